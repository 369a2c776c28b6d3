"""Rastros rules on scripted positions (ASCII boards): the first move from (4,5), the goal
cells whoever moves there, the blocked player's loss, and a naive cross-check under random
play."""

from __future__ import annotations

import numpy as np
import pytest

from boardgym import IllegalActionError
from boardgym.games.rastros import BOARD, GOALS, START, Rastros, RastrosState, cell_index, cell_of, king_step

GAME = Rastros()
S, N = 0, 1


def board(text: str, player: int) -> RastrosState:
    """Eight rows of 8 cells, row 1 first: ``@`` the white stone, ``#`` black, anything else free."""
    cells = "".join(text.split())
    assert len(cells) == 64 and cells.count("@") == 1
    black = sum(1 << i for i, c in enumerate(cells) if c == "#")
    return RastrosState(cells.index("@"), black, player, -1)


def play(state: RastrosState, *moves: str) -> RastrosState:
    for move in moves:
        state = GAME.apply(state, GAME.parse_action(state, move))
    return state


def test_first_move_from_4_5() -> None:
    state = GAME.initial_state()
    assert state.white == cell_index(4, 5) == START and state.black == 0 and state.player == S
    destinations = {GAME.action_to_str(state, a) for a in GAME.legal_actions(state)}
    assert destinations == {"3,4", "3,5", "3,6", "4,4", "4,6", "5,4", "5,5", "5,6"}
    after = play(state, "5,4")
    assert cell_of(after.white) == (5, 4) and after.black == 1 << cell_index(4, 5) and after.player == N
    assert "4,5" not in {GAME.action_to_str(after, a) for a in GAME.legal_actions(after)}  # now black
    with pytest.raises(IllegalActionError):
        GAME.parse_action(after, "4,5")


@pytest.mark.parametrize("mover", [S, N])
def test_reaching_8_1_wins_for_s_whoever_moves(mover: int) -> None:
    state = board(
        """
        . . . . . . . N
        . . . . . . . .
        . . . . . . . .
        . . . . # . . .
        . . . # . . . .
        . . # . . . . .
        . @ . . . . . .
        S . . . . . . .
        """,
        mover,
    )
    after = play(state, "8,1")
    assert after.outcome == S and GAME.returns(after) == (1.0, -1.0) and GAME.legal_actions(after) == []


@pytest.mark.parametrize("mover", [S, N])
def test_reaching_1_8_wins_for_n_whoever_moves(mover: int) -> None:
    state = board(
        """
        . . . . . . . N
        . . . . . . @ .
        . . . . . # . .
        . . . . # . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        S . . . . . . .
        """,
        mover,
    )
    after = play(state, "ne")
    assert after.outcome == N and GAME.returns(after) == (-1.0, 1.0)


@pytest.mark.parametrize("mover", [S, N])
def test_leaving_the_opponent_without_a_move_wins(mover: int) -> None:
    # The stone on (1,2) can only go to (1,1); there it has no free neighbour left.
    state = board(
        """
        . @ # . . . . N
        # # # . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        S . . . . . . .
        """,
        mover,
    )
    assert [GAME.action_to_str(state, a) for a in GAME.legal_actions(state)] == ["1,1"]
    after = play(state, "1,1")
    assert after.outcome == mover and after.player == 1 - mover and GAME.returns(after)[mover] == 1.0


def test_a_move_that_leaves_the_opponent_a_way_out_goes_on() -> None:
    state = board(
        """
        . @ # . . . . N
        . # # . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        S . . . . . . .
        """,
        S,
    )
    after = play(state, "1,1")
    assert not GAME.is_terminal(after) and [GAME.action_to_str(after, a) for a in GAME.legal_actions(after)] == ["2,1"]


def test_off_board_and_black_cells_are_illegal() -> None:
    state = board(
        """
        @ # . . . . . N
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        S . . . . . . .
        """,
        S,
    )
    assert sorted(GAME.action_to_str(state, a) for a in GAME.legal_actions(state)) == ["2,1", "2,2"]
    for action in (0, 1, 2, 6, 7):  # N, NE, E (black), W, NW
        with pytest.raises(IllegalActionError):
            GAME.apply(state, action)
    with pytest.raises(IllegalActionError, match="not next to"):
        GAME.parse_action(state, "5,5")


def test_features_follow_seed_report_002() -> None:
    state = GAME.initial_state()
    assert GAME.features(state, S).tolist() == [0, 4, 3, 8]  # (4,5) is 4 king steps from (8,1), 3 from (1,8)
    after = play(state, "5,4")
    assert GAME.features(after, S).tolist() == [1, 3, 4, 7]
    assert GAME.features(after, N).tolist() == [1, 4, 3, 7]


def test_observation_planes_depend_on_the_viewer() -> None:
    state = play(GAME.initial_state(), "3,6")
    s_view, n_view = GAME.observation(state, S), GAME.observation(state, N)
    assert s_view.shape == (4, 8, 8) and s_view[0, 2, 5] == 1 and s_view[1, 3, 4] == 1
    assert s_view[2, 7, 0] == 1 and s_view[3, 0, 7] == 1
    assert n_view[2, 0, 7] == 1 and n_view[3, 7, 0] == 1
    assert np.array_equal(s_view[:2], n_view[:2])


def test_render_draws_the_board_with_coordinates() -> None:
    lines = GAME.render(play(GAME.initial_state(), "5,4")).splitlines()
    assert lines[0].split() == [str(c) for c in range(1, 9)]
    assert lines[4].split() == ["4", ".", ".", ".", ".", "#", ".", ".", "."]
    assert lines[5].split()[4] == "@" and lines[1].split()[-1] == "N" and lines[8].split()[1] == "S"


def test_random_play_agrees_with_a_naive_referee() -> None:
    rng = np.random.default_rng(11)
    for _ in range(50):
        state = GAME.initial_state()
        while not GAME.is_terminal(state):
            row, col = cell_of(state.white)
            free = {
                (row + dr, col + dc)
                for dr in (-1, 0, 1)
                for dc in (-1, 0, 1)
                if (dr or dc) and 1 <= row + dr <= 8 and 1 <= col + dc <= 8
                if not state.black >> cell_index(row + dr, col + dc) & 1
            }
            assert {cell_of(a) for a in _destinations(state)} == free and free
            mover = state.player
            legal = GAME.legal_actions(state)
            state = GAME.apply(state, legal[int(rng.integers(len(legal)))])
        if state.white in GOALS:
            assert state.outcome == GOALS.index(state.white)
        else:
            assert state.outcome == mover  # the opponent was left without a move


def _destinations(state: RastrosState) -> list[int]:
    return [cell_index(*map(int, GAME.action_to_str(state, a).split(","))) for a in GAME.legal_actions(state)]


def test_king_step_reaches_the_eight_neighbours_without_wrapping() -> None:
    def cells(bits: int) -> set[tuple[int, int]]:
        return {cell_of(i) for i in range(64) if bits >> i & 1}

    assert cells(king_step(1 << START)) == {(r, c) for r in (3, 4, 5) for c in (4, 5, 6)}
    assert cells(king_step(1 << cell_index(1, 8))) == {(1, 7), (1, 8), (2, 7), (2, 8)}  # no wrap to (2,1)
    assert cells(king_step(1 << cell_index(8, 1))) == {(7, 1), (7, 2), (8, 1), (8, 2)}
    assert king_step(BOARD) == BOARD
