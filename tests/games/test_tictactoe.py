"""Tic-Tac-Toe rules on scripted positions (ASCII boards) with known outcomes."""

from __future__ import annotations

import random

import pytest

from boardgym import BoardgymError, IllegalActionError, make_game
from boardgym.games.tictactoe import TicTacToeState, outcome, stones

GAME = make_game("tictactoe")


def board(text: str, player: int) -> TicTacToeState:
    """Rows of X/O/. top to bottom; the state has ``player`` to move and no result yet."""
    cells = "".join(text.split())
    x = sum(1 << i for i, c in enumerate(cells) if c == "X")
    o = sum(1 << i for i, c in enumerate(cells) if c == "O")
    state = GAME.state(x, o)
    assert GAME.current_player(state) == player and outcome(state) == -1
    return state


@pytest.mark.parametrize(
    ("text", "move", "winner"),
    [
        ("XX. OO. ...", "c1", 0),  # row
        ("X.O X.O ...", "a3", 0),  # column
        ("X.O .XO ...", "c3", 0),  # diagonal
        (".OX .XO ...", "a3", 0),  # anti-diagonal
    ],
)
def test_completing_a_line_wins(text: str, move: str, winner: int) -> None:
    state = board(text, 0)
    after = GAME.apply(state, GAME.parse_action(state, move))
    assert GAME.is_terminal(after)
    assert GAME.returns(after) == (1.0, -1.0)


def test_full_board_without_line_is_a_draw() -> None:
    state = board("XOX XOO OX.", 0)
    after = GAME.apply(state, GAME.parse_action(state, "c3"))
    assert GAME.is_terminal(after) and GAME.returns(after) == (0.0, 0.0)
    assert "draw" in GAME.render(after)


def test_occupied_cell_is_illegal_with_reason() -> None:
    state = GAME.apply(GAME.initial_state(), 4)
    with pytest.raises(IllegalActionError, match="b2"):
        GAME.apply(state, 4)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        GAME.apply(state, 9)


def test_parse_and_render_use_the_same_coordinates() -> None:
    state = GAME.initial_state()
    for action in range(9):
        assert GAME.parse_action(state, GAME.action_to_str(state, action)) == action
    with pytest.raises(IllegalActionError, match="column a-c"):
        GAME.parse_action(state, "z9")
    assert GAME.render(state).splitlines()[0].split() == ["a", "b", "c"]


def test_observation_is_from_the_players_view() -> None:
    state = GAME.apply(GAME.initial_state(), 0)  # X in a1
    assert GAME.observation(state, 0)[0, 0, 0] == 1 and GAME.observation(state, 0)[1, 0, 0] == 0
    assert GAME.observation(state, 1)[1, 0, 0] == 1 and GAME.observation(state, 1)[0, 0, 0] == 0


def test_number_of_positions_after_n_moves() -> None:
    """Known counts of distinct positions after 0..4 plies: 1, 9, 72, 252, 756."""
    layer = {GAME.initial_state()}
    counts = [1]
    for _ in range(4):
        layer = {GAME.apply(s, a) for s in layer for a in GAME.legal_actions(s)}
        counts.append(len(layer))
    assert counts == [1, 9, 72, 252, 756]


def test_states_built_from_boards_match_the_states_reached_by_play() -> None:
    rng = random.Random(0)
    for _ in range(50):
        state = GAME.initial_state()
        while True:
            x, o = stones(state)
            assert GAME.state(x, o) == state
            if GAME.is_terminal(state):
                break
            legal = GAME.legal_actions(state)
            state = GAME.apply(state, legal[rng.randrange(len(legal))])


@pytest.mark.parametrize(("x", "o"), [(0b1, 0b1), (0b11, 0), (0, 0b1), (1 << 9, 0), (0b111, 0b111000)])
def test_impossible_boards_are_refused(x: int, o: int) -> None:
    with pytest.raises(BoardgymError, match="not a tic-tac-toe position"):
        GAME.state(x, o)
