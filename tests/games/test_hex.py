"""Hex rules on scripted positions (ASCII boards), the swap rule, an independent winner check
under random play, and the known winning first moves of 3x3 and 4x4."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from boardgym import BoardgymError, IllegalActionError, make_game
from boardgym.agents.perfect import PerfectAgent
from boardgym.games.hex import Hex, HexState, outcome, stones

NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))


def board(game: Hex, text: str, player: int) -> HexState:
    """X (Black) / O (White) / . in reading order, row 1 first; whitespace is ignored, so the
    rows can be drawn as the rhombus of ``render``."""
    cells = "".join(text.split())
    assert len(cells) == game.size**2
    stones = [0, 0]
    for index, mark in enumerate(cells):
        if mark in "XO":
            stones["XO".index(mark)] |= game.cell_bits[index]
    return game.state(stones[0], stones[1], player)


def play(game: Hex, state: HexState, *moves: str) -> HexState:
    for move in moves:
        state = game.apply(state, game.parse_action(state, move))
    return state


def connected(game: Hex, state: HexState, player: int) -> bool:
    """Breadth-first search over (x, y) cells with the neighbour rule of the standard notation."""
    n = game.size
    mine = {(x, y) for y in range(n) for x in range(n) if stones(state)[player] & game.cell_bits[y * n + x]}
    start = [c for c in mine if (c[1] if player == 0 else c[0]) == 0]
    seen, queue = set(start), deque(start)
    while queue:
        x, y = queue.popleft()
        if (y if player == 0 else x) == n - 1:
            return True
        for dx, dy in NEIGHBOURS:
            cell = (x + dx, y + dy)
            if cell in mine and cell not in seen:
                seen.add(cell)
                queue.append(cell)
    return False


def test_black_joins_top_and_bottom() -> None:
    game = Hex(4)
    state = board(
        game,
        """
        . X . .
         . X O .
          X O O .
           . . . .
        """,
        0,
    )
    assert not game.is_terminal(game.apply(state, game.parse_action(state, "b4")))  # b4 does not touch a3
    after = play(game, state, "a4")
    assert outcome(after) == 0 and game.returns(after) == (1.0, -1.0)


def test_white_joins_left_and_right() -> None:
    game = Hex(4)
    # White's chain a3-b3-c2 needs d1 or d2 (d2 and d1 are both neighbours of c2).
    state = board(
        game,
        """
        X . . .
         X . O .
          O O X .
           . X . .
        """,
        1,
    )
    for move in ("d1", "d2"):
        after = play(game, state, move)
        assert outcome(after) == 1 and game.returns(after) == (-1.0, 1.0), move
    assert not game.is_terminal(play(game, state, "d3"))


def test_only_the_six_hex_neighbours_connect() -> None:
    game = Hex(3)
    # a1, b2, c3 touch only through (x+1, y+1), which is not a hex neighbour.
    state = board(
        game,
        """
        X . .
         . . .
          . . X
        """,
        0,
    )
    assert not game.is_terminal(play(game, state, "b2"))
    # c1, b2, a3 run along (x-1, y+1): a chain.
    state = board(
        game,
        """
        . . X
         . . .
          X . .
        """,
        0,
    )
    assert outcome(play(game, state, "b2")) == 0


def test_a_chain_touching_one_edge_does_not_win() -> None:
    game = Hex(5)
    state = board(
        game,
        """
        X . . . .
         X . . . .
          X . . . .
           X . . . .
            . . . . .
        """,
        1,
    )
    state = play(game, state, "e5")
    assert not game.is_terminal(state)
    assert outcome(play(game, state, "a5")) == 0  # the same column, now both edges


def test_winning_chain_marks_the_joining_stones() -> None:
    game = Hex(3)
    state = play(game, game.initial_state(), "b1", "a2", "b2", "c2", "a3")
    assert outcome(state) == 0
    chain = game.winning_chain(state)
    assert {game.action_to_str(state, a) for a in range(9) if chain & game.cell_bits[a]} == {"b1", "b2", "a3"}


def test_swap_mirrors_the_first_stone_into_white() -> None:
    game = Hex(5, swap=True)
    state = play(game, game.initial_state(), "b1")
    assert "swap" in game.legal_moves_text(state)
    swapped = play(game, state, "swap")
    assert game.current_player(swapped) == 0 and stones(swapped) == (
        0,
        game.cell_bits[1 * 5 + 0],
    )  # b1 -> a2, now White's
    assert game.swap_action not in game.legal_actions(play(game, swapped, "c3"))
    with pytest.raises(IllegalActionError):
        game.apply(play(game, swapped, "c3"), game.swap_action)


def test_swap_is_only_a_second_move() -> None:
    game = Hex(5, swap=True)
    assert game.swap_action not in game.legal_actions(game.initial_state())
    with pytest.raises(IllegalActionError):
        game.parse_action(game.initial_state(), "swap")
    plain = Hex(5)
    assert plain.num_actions == 25
    with pytest.raises(IllegalActionError):
        plain.parse_action(play(plain, plain.initial_state(), "c3"), "swap")


def test_occupied_cell_is_illegal_and_notation_round_trips() -> None:
    game = Hex(11)
    state = play(game, game.initial_state(), "f6")
    with pytest.raises(IllegalActionError, match="f6"):
        game.parse_action(state, "f6")
    with pytest.raises(IllegalActionError, match="row"):
        game.parse_action(state, "z9")
    for action in (0, 10, 11, 120):
        assert game.parse_action(game.initial_state(), game.action_to_str(state, action)) == action
    assert game.action_to_str(state, 11) == "a2"


@pytest.mark.parametrize("size", [5, 11, 16, 19])  # free cells as bytes up to 16x16, a tuple above
def test_apply_refuses_occupied_cells_and_non_cells(size: int) -> None:
    game = Hex(size)
    rng = np.random.default_rng(size)
    state = game.initial_state()
    played = []
    for _ in range(2 * size):
        legal = game.legal_actions(state)
        action = legal[int(rng.integers(len(legal)))]
        played.append(action)
        state = game.apply(state, action)
    for action in [*played, -1, -size * size, size * size, 1000]:
        with pytest.raises(IllegalActionError):
            game.apply(state, action)
    assert sorted(game.legal_actions(state)) == sorted(set(range(size * size)) - set(played))


def test_render_shows_coordinates_and_the_rhombus() -> None:
    game = Hex(3)
    text = game.render(play(game, game.initial_state(), "b2"))
    lines = text.splitlines()
    assert lines[0].split() == ["a", "b", "c"]
    assert lines[2].lstrip().startswith("2") and "X" in lines[2]
    assert lines[2].index("2") == lines[1].index("1") + 1  # each row shifted right by one


def test_observation_planes() -> None:
    game = Hex(4)
    state = play(game, game.initial_state(), "b1", "c3")
    black = game.observation(state, 0)
    white = game.observation(state, 1)
    assert black.shape == (3, 4, 4) and black[0, 0, 1] == 1 and black[1, 2, 2] == 1 and black[2].all()
    assert white[0, 2, 2] == 1 and white[1, 0, 1] == 1 and not white[2].any()
    assert game.board_grid(state)[0, 1] == 1 and game.board_grid(state)[2, 2] == 2


@pytest.mark.parametrize("size", [3, 7, 19])
def test_winner_agrees_with_a_breadth_first_search(size: int) -> None:
    game = Hex(size)
    rng = np.random.default_rng(size)
    for _ in range(3):
        state = game.initial_state()
        while not game.is_terminal(state):
            for player in (0, 1):
                assert not connected(game, state, player)
            legal = game.legal_actions(state)
            state = game.apply(state, legal[int(rng.integers(len(legal)))])
        assert connected(game, state, outcome(state)) and not connected(game, state, 1 - outcome(state))


def test_a_full_board_always_has_a_winner() -> None:
    game = Hex(5)
    rng = np.random.default_rng(1)
    for _ in range(20):
        cells = rng.permutation(25)
        stones = [sum(game.cell_bits[c] for c in cells[:13]), sum(game.cell_bits[c] for c in cells[13:])]
        full = game.state(stones[0], stones[1], 0)
        assert connected(game, full, 0) != connected(game, full, 1)


def test_size_out_of_range_is_refused() -> None:
    with pytest.raises(BoardgymError, match="size=20"):
        make_game("hex", size=20)


def _winning_first_moves(game: Hex) -> set[str]:
    """Exact solver for small boards: win/loss negamax over raw bitboards with a transposition
    table (Hex has no draws), centre cells first, stopping at the first winning reply. The
    board's 180-degree rotation keeps both players' edges, so a first move and its rotation
    (action ``n*n - 1 - a``) have the same value and only one of them is solved."""
    n = game.size
    centre = (n - 1) / 2
    order = sorted(range(n * n), key=lambda a: abs(a // n - centre) + abs(a % n - centre))
    cells = [game.cell_bits[a] for a in order]
    memo: dict[tuple[int, int, int], bool] = {}

    def to_move_wins(mine: int, theirs: int, player: int) -> bool:
        key = (mine, theirs, player)
        known = memo.get(key)
        if known is None:
            occupied = mine | theirs
            free = [bit for bit in cells if not occupied & bit]
            known = any(game._joins_edges(mine | bit, bit, player) for bit in free) or not all(
                to_move_wins(theirs, mine | bit, 1 - player) for bit in free
            )
            memo[key] = known
        return known

    wins = set()
    for a in range(n * n):
        if a <= n * n - 1 - a and not to_move_wins(0, game.cell_bits[a], 1):
            wins |= {a, n * n - 1 - a}
    return {game.action_to_str(game.initial_state(), a) for a in wins}


def test_3x3_winning_first_moves_by_the_perfect_agent() -> None:
    game = make_game("hex", size=3)
    values = PerfectAgent(game, seed=0).action_values(game.initial_state())
    wins = {game.action_to_str(game.initial_state(), a) for a, v in values.items() if v > 0}
    assert wins == {"c1", "a2", "b2", "c2", "a3"}
    assert _winning_first_moves(game) == wins


def test_4x4_winning_first_moves() -> None:
    assert _winning_first_moves(Hex(4)) == {"d1", "c2", "b3", "a4"}


def test_neighbours_follow_the_notation_and_stop_at_the_sides() -> None:
    game = Hex(4)
    n = game.size

    def cells(bits: int) -> set[str]:
        return {game.action_to_str(game.initial_state(), a) for a in range(n * n) if bits & game.cell_bits[a]}

    assert cells(game.neighbours(game.cell_bits[1 * n + 1])) == {"a2", "c2", "b1", "b3", "c1", "a3"}  # b2
    assert cells(game.neighbours(game.cell_bits[0])) == {"b1", "a2"}  # a1: the acute corner
    assert cells(game.neighbours(game.cell_bits[n - 1])) == {"c1", "d2", "c2"}  # d1: no wrap to row 2's a
    assert cells(game.neighbours(game.cell_bits[n * n - 1])) == {"c4", "d3"}  # d4
    assert game.neighbours(game.board_bits) == game.board_bits


def test_flood_grows_a_group_through_the_given_cells_only() -> None:
    game = Hex(4)
    state = board(
        game,
        """
        X . . X
         X . X .
          . O . .
           . . . X
        """,
        0,
    )
    black = stones(state)[0]
    a1, d1 = game.cell_bits[0], game.cell_bits[3]
    assert game.flood(a1, black) == game.cell_bits[0] | game.cell_bits[4]  # a1 a2
    assert game.flood(d1, black) == game.cell_bits[3] | game.cell_bits[6]  # d1 c2 (a neighbour across)
    empty = game.board_bits & ~(black | stones(state)[1])
    assert game.flood(a1, black | empty) == game.board_bits & ~stones(state)[1]  # everything but the wall
    top, bottom = game.edges[0]
    left, right = game.edges[1]
    assert top == sum(game.cell_bits[:4]) and bottom == sum(game.cell_bits[12:])
    assert left == sum(game.cell_bits[0::4]) and right == sum(game.cell_bits[3::4])


@pytest.mark.parametrize("size, swap", [(3, False), (5, True), (11, False), (19, False)])
def test_states_built_move_by_move_equal_states_built_from_the_stones(size: int, swap: bool) -> None:
    """The groups and free cells a move carries forward are what a fresh computation gives,
    and the winner is the one a flood fill of the full board finds (random games)."""
    game = Hex(size, swap=swap)
    rng = np.random.default_rng(size)
    for _ in range(6 if size > 5 else 40):
        state = game.initial_state()
        while True:
            black, white = stones(state)
            fresh = game.state(black, white, game.current_player(state))
            assert state == fresh and hash(state) == hash(fresh)
            assert tuple(state[8]) == tuple(a for a in range(size * size) if not (black | white) & game.cell_bits[a])
            won = [connected(game, state, side) for side in (0, 1)]
            assert outcome(state) == (0 if won[0] else 1 if won[1] else -1)
            if game.is_terminal(state):
                break
            legal = game.legal_actions(state)
            state = game.apply(state, legal[int(rng.integers(len(legal)))])


def test_transpositions_are_equal_states() -> None:
    game = Hex(7)
    one = play(game, game.initial_state(), "d4", "c5", "e3", "b2")
    two = play(game, game.initial_state(), "e3", "b2", "d4", "c5")
    assert one == two and hash(one) == hash(two) and one[3] == two[3] and one[4] == two[4]


def test_state_refuses_overlapping_or_off_board_stones() -> None:
    game = Hex(3)
    with pytest.raises(BoardgymError, match="not a 3x3 Hex position"):
        game.state(1, 1, 0)
    with pytest.raises(BoardgymError, match="not a 3x3 Hex position"):
        game.state(1 << 3, 0, 0)  # the padding column
