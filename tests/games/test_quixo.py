"""Quixo rules on scripted positions (ASCII boards): every push direction at corners and
edges, which cubes may be taken, the double-line rule both ways, the move limit, and the
solved 3x3 game (a first-player win) by retrograde analysis."""

from __future__ import annotations

from collections import deque
from functools import cache
from itertools import product

import numpy as np
import pytest

from boardgym import BoardgymError, IllegalActionError, make_game
from boardgym.agents.perfect import PerfectAgent
from boardgym.envs import quixo_v0
from boardgym.games.quixo import Quixo, QuixoState

GAME = Quixo(5)

BOARD = """
    . X O . .
    O . . . X
    X . . . .
    . . . . O
    . O . X .
"""


def board(text: str, player: int, size: int = 5) -> QuixoState:
    """X / O / . in reading order, row 1 first (whitespace ignored)."""
    cells = "".join(text.split())
    assert len(cells) == size * size
    x = sum(1 << i for i, c in enumerate(cells) if c == "X")
    o = sum(1 << i for i, c in enumerate(cells) if c == "O")
    return QuixoState((x, o), player, 0, -1)


def picture(state: QuixoState, size: int = 5) -> str:
    x, o = state.stones
    return "".join("X" if x >> i & 1 else "O" if o >> i & 1 else "." for i in range(size * size))


def line_of(cells: str, line: str) -> str:
    """``"row 3"`` or ``"col b"`` of a 5x5 picture string."""
    kind, name = line.split()
    if kind == "row":
        r = int(name) - 1
        return cells[5 * r : 5 * r + 5]
    c = "abcde".index(name)
    return cells[c::5]


# (move by X, the line that changes, that line after the move). The cube taken is blank or
# X's own; it comes back as X at the end it is pushed in at, the others slide toward the hole.
PUSHES = [
    ("a1:B", "col a", "OX..X"),  # corner, push in at the bottom: column a slides up
    ("a1:R", "row 1", "XO..X"),  # corner, push in at the right: row 1 slides left
    ("e5:T", "col e", "X.X.O"),  # corner, push in at the top: column e slides down
    ("e5:L", "row 5", "X.O.X"),  # corner, push in at the left: row 5 slides right
    ("b1:B", "col b", "...OX"),  # top edge
    ("b1:L", "row 1", "X.O.."),
    ("b1:R", "row 1", ".O..X"),
    ("a3:T", "col a", "X.O.."),  # left edge
    ("a3:B", "col a", ".O..X"),
    ("a3:R", "row 3", "....X"),
    ("e2:T", "col e", "X..O."),  # right edge
    ("e2:B", "col e", "..O.X"),
    ("e2:L", "row 2", "XO..."),
    ("d5:T", "col d", "X...."),  # bottom edge
    ("d5:L", "row 5", "X.O.."),
    ("d5:R", "row 5", ".O..X"),
]


@pytest.mark.parametrize(("move", "line", "after"), PUSHES)
def test_push(move: str, line: str, after: str) -> None:
    state = board(BOARD, 0)
    new = GAME.apply(state, GAME.parse_action(state, move))
    before_cells, after_cells = picture(state), picture(new)
    assert line_of(after_cells, line) == after
    in_line = {i for i in range(25) if (i // 5 if line.startswith("row") else i % 5) == _line_index(line)}
    assert all(before_cells[i] == after_cells[i] for i in range(25) if i not in in_line)
    assert new.player == 1 and new.moves == 1 and not GAME.is_terminal(new)


def _line_index(line: str) -> int:
    kind, name = line.split()
    return int(name) - 1 if kind == "row" else "abcde".index(name)


def test_moves_per_cube_and_action_counts() -> None:
    assert [Quixo(n).num_actions for n in (3, 4, 5)] == [20, 32, 44]
    names = GAME.push_names
    assert [n for n in names if n.startswith("a1:")] == ["a1:B", "a1:R"]  # corner: 2
    assert [n for n in names if n.startswith("c1:")] == ["c1:B", "c1:L", "c1:R"]  # edge: 3
    assert [n for n in names if n.startswith("a3:")] == ["a3:T", "a3:B", "a3:R"]
    assert names[0] == "a1:B" and names[-1] == "e5:L"


def test_opponents_cube_cannot_be_taken() -> None:
    state = board(BOARD, 0)
    legal = {GAME.action_to_str(state, a) for a in GAME.legal_actions(state)}
    assert not any(name.startswith(("c1", "a2", "e4", "b5")) for name in legal)  # O's border cubes
    assert {"a1:B", "b1:B", "a3:R", "e2:L", "d5:T"} <= legal
    with pytest.raises(IllegalActionError, match="c1:B"):
        GAME.parse_action(state, "c1:B")
    with pytest.raises(IllegalActionError):
        GAME.apply(state, GAME.push_names.index("c1:B"))
    as_o = board(BOARD, 1)  # and O may not take X's cubes
    assert not any(GAME.action_to_str(as_o, a).startswith("b1") for a in GAME.legal_actions(as_o))


def test_a_cube_may_not_return_to_its_square() -> None:
    state = board(BOARD, 0)
    for move in ("a1:T", "a1:L", "b1:T", "a3:L", "e2:R", "d5:B"):
        with pytest.raises(IllegalActionError, match="back in at the square it came from"):
            GAME.parse_action(state, move)


def test_inner_cubes_cannot_be_taken() -> None:
    with pytest.raises(IllegalActionError, match="only border cubes"):
        GAME.parse_action(GAME.initial_state(), "c3:T")
    with pytest.raises(IllegalActionError, match="cannot read move"):
        GAME.parse_action(GAME.initial_state(), "c1 sideways")


def test_move_notation_variants() -> None:
    state = GAME.initial_state()
    action = GAME.push_names.index("c1:B")
    for text in ("c1:B", "c1 b", "C1-bottom", "c1>B", "c1b"):
        assert GAME.parse_action(state, text) == action


# Row 1 has four O's and X's cube on a1; a2 is O. X takes a1 and pushes it in at the bottom of
# column a, which slides the O of a2 up into a1 and completes O's row 1. Row 5 decides whether
# the cube arriving on a5 also completes X's own line.
@pytest.mark.parametrize(
    ("row5", "winner"),
    [
        (". X X X X", 1),  # both lines: the mover loses anyway
        (". X X X .", 1),  # only the opponent's line: the mover loses
    ],
)
def test_completing_the_opponents_line_loses(row5: str, winner: int) -> None:
    text = f"X O O O O  O . . . .  . . . . .  . . . . .  {row5}"
    for mover in (0, 1):
        state = _as_mover(text, mover)
        after = GAME.apply(state, GAME.parse_action(state, "a1:B"))
        expected = winner if mover == 0 else 1 - winner
        assert after.outcome == expected and GAME.returns(after)[expected] == 1.0


def test_completing_only_ones_own_line_wins() -> None:
    text = "X O O O .  O . . . .  . . . . .  . . . . .  . X X X X"
    for mover in (0, 1):
        state = _as_mover(text, mover)
        after = GAME.apply(state, GAME.parse_action(state, "a1:B"))
        assert after.outcome == mover and GAME.returns(after)[mover] == 1.0


def _as_mover(text: str, mover: int) -> QuixoState:
    """The position with X as the mover; for mover 1 the colours are swapped."""
    if mover == 1:
        text = text.replace("X", "x").replace("O", "X").replace("x", "O")
    return board(text, mover)


def test_move_limit_ends_in_a_truncated_draw() -> None:
    game = Quixo(3, max_moves=4)
    state = game.initial_state()
    for move in ("a1:B", "c3:T", "b1:B", "a1:R"):
        assert not game.is_terminal(state)
        state = game.apply(state, game.parse_action(state, move))
    assert game.is_terminal(state) and game.is_truncated(state) and game.returns(state) == (0.0, 0.0)
    assert "draw" in game.render(state)


def test_aec_env_reports_the_move_limit_as_truncation() -> None:
    env = quixo_v0.env(size=3, max_moves=2)
    env.reset(seed=0)
    for _ in range(2):
        agent = env.agent_selection
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert set(env._cumulative_rewards.values()) == {0.0}


def test_observation_and_render() -> None:
    state = board(BOARD, 1)
    planes = GAME.observation(state, 1)
    assert planes.shape == (2, 5, 5)
    assert planes[0, 0, 2] == 1 and planes[1, 0, 1] == 1 and planes.sum() == 8
    text = GAME.render(state)
    assert text.splitlines()[0].split() == list("abcde") and text.splitlines()[1].split() == [
        "1",
        ".",
        "X",
        "O",
        ".",
        ".",
    ]


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(BoardgymError, match="size=6"):
        make_game("quixo", size=6)
    with pytest.raises(BoardgymError, match="max_moves=0"):
        make_game("quixo", max_moves=0)


@cache
def solve_3x3_by_retrograde_analysis() -> dict[tuple[int, int], int]:
    """The exact value (+1 win, -1 loss, absent: draw) for the player to move of every 3x3
    position without a line, written (mover's cubes, opponent's cubes). No move counter: the
    analysis works backwards from the decided positions, so cycles are handled exactly.

    A position is a win if some move wins at once or leads to a loss for the opponent, and a
    loss once every move loses at once or leads to a win for the opponent; what is never
    decided is a draw (repetition for ever)."""
    game = Quixo(3, max_moves=None)
    values: dict[tuple[int, int], int] = {}
    parents: dict[tuple[int, int], list[tuple[int, int]]] = {}
    undecided_children: dict[tuple[int, int], int] = {}
    decided: deque[tuple[int, int]] = deque()
    for cells in product(range(3), repeat=9):
        mine = sum(1 << i for i, v in enumerate(cells) if v == 1)
        theirs = sum(1 << i for i, v in enumerate(cells) if v == 2)
        if game._has_line(mine) or game._has_line(theirs):
            continue  # the game ended before this position could be on move
        position, state = (mine, theirs), QuixoState((mine, theirs), 0, 0, -1)
        children = []
        for action in game.legal_actions(state):
            child = game.apply(state, action)
            if child.outcome == 0:  # an immediate win
                values[position] = 1
                break
            if child.outcome == -1:  # (an immediate loss is just not a way out)
                children.append((child.stones[1], child.stones[0]))  # the opponent becomes the mover
        if position in values or not children:
            values.setdefault(position, -1)
            decided.append(position)
            continue
        undecided_children[position] = len(children)
        for child in children:
            parents.setdefault(child, []).append(position)
    while decided:
        position = decided.popleft()
        for parent in parents.get(position, ()):
            if parent in values:
                continue
            if values[position] == -1:
                values[parent] = 1
                decided.append(parent)
            else:
                undecided_children[parent] -= 1
                if undecided_children[parent] == 0:
                    values[parent] = -1
                    decided.append(parent)
    return values


def test_3x3_is_a_first_player_win() -> None:
    values = solve_3x3_by_retrograde_analysis()
    assert values[(0, 0)] == 1
    # c2:T slides c1 down and puts the mover's cube on c1: a1-b1-c1 at once.
    assert values[(0b000100011, 0b001000000)] == 1


def test_retrograde_values_agree_with_depth_limited_search() -> None:
    """Where the perfect agent, searching with a 6-ply limit, finds a forced result, the
    retrograde analysis must give the same one."""
    values = solve_3x3_by_retrograde_analysis()
    game = Quixo(3, max_moves=6)
    agent = PerfectAgent(game, seed=0)
    rng = np.random.default_rng(3)
    found = 0
    for _ in range(40):
        state = game.initial_state()
        for _ in range(int(rng.integers(1, 6))):
            legal = game.legal_actions(state)
            state = game.apply(state, legal[int(rng.integers(len(legal)))])
            if game.is_terminal(state):
                break
        if game.is_terminal(state):
            continue
        mover = state.player
        position = (state.stones[mover], state.stones[1 - mover])
        value = agent.value(state._replace(moves=0))
        if value != 0:
            found += 1
            assert values.get(position, 0) == (1 if value > 0 else -1)
    assert found >= 10


def test_3x3_perfect_agent_wins_as_first_player_within_a_move_limit() -> None:
    """With a short move limit the counter keeps the state space small; a forced win inside
    the limit is a forced win of the real game, since truncation only ever gives a draw."""
    game = make_game("quixo", size=3, max_moves=8)
    agent = PerfectAgent(game, seed=0)
    assert agent.value(game.initial_state()) > 0
    assert not Quixo(3).solvable_by_search and not Quixo(4, max_moves=10).solvable_by_search


@pytest.mark.parametrize("size", [3, 4, 5])
def test_lines_are_the_rows_columns_and_long_diagonals(size: int) -> None:
    game = Quixo(size)
    assert len(game.lines) == 2 * size + 2 == len(set(game.lines))
    assert all(line.bit_count() == size for line in game.lines)
    assert sum(1 << (i * size + i) for i in range(size)) in game.lines  # a1 .. the far corner
    assert sum(1 << (r * size) for r in range(size)) in game.lines  # column a
