"""The Connect Four solver against Pons's published test positions, and its helpers."""

from __future__ import annotations

import time

import pytest

from boardgym.games.connect_four import ConnectFour
from boardgym.solve.connect_four import (
    TEST_SETS,
    Solver,
    SolveTimeout,
    best_moves,
    move_scores,
    score,
    state_from_moves,
)
from boardgym.types import BoardgymError

DATA = TEST_SETS
SETS = ("Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1", "Test_L1_R2", "Test_L1_R3")
# Lines (0-based) checked by default: quick ones, so the default run stays short.
SAMPLE = {
    "Test_L3_R1": range(0, 100),
    "Test_L2_R1": range(0, 30),
    "Test_L2_R2": (0, 1, 2, 3, 5, 7),
    "Test_L1_R1": (0, 1, 2, 3, 4),
    "Test_L1_R2": (8, 13),
}
# Begin-Hard takes minutes a position in pure Python: only under ``-m slow``.


def read_set(name: str) -> list[tuple[str, int]]:
    lines = (DATA / name).read_text().split("\n")
    return [(moves, int(value)) for moves, value in (line.split() for line in lines if line.strip())]


@pytest.mark.parametrize("name", sorted(SAMPLE))
def test_sample_scores_match_the_published_ones(name: str) -> None:
    positions = read_set(name)
    solver = Solver()
    for index in SAMPLE[name]:
        moves, expected = positions[index]
        assert solver.solve(state_from_moves(moves)) == expected, (name, index, moves)


@pytest.mark.slow
@pytest.mark.parametrize("name", SETS)
def test_every_shipped_score_matches(name: str) -> None:
    solver = Solver()
    for moves, expected in read_set(name):
        assert solver.solve(state_from_moves(moves)) == expected, (name, moves)


def test_weak_solve_gives_the_sign() -> None:
    solver = Solver()
    for moves, expected in read_set("Test_L2_R1")[:20]:
        value = solver.solve(state_from_moves(moves), weak=True)
        assert value == (expected > 0) - (expected < 0), moves


def test_state_from_moves_matches_the_rules() -> None:
    game = ConnectFour()
    state = game.initial_state()
    for column in (3, 3, 4, 2):
        state = game.apply(state, column)
    assert state_from_moves("4453") == state
    assert state_from_moves("") == game.initial_state()


@pytest.mark.parametrize(
    ("moves", "fragment"),
    [("4489", "'8' at position 3"), ("1111111", "column 1, which is full"), ("12121213", "after the game ended")],
)
def test_state_from_moves_refuses_a_bad_string_in_one_sentence(moves: str, fragment: str) -> None:
    with pytest.raises(BoardgymError, match=fragment) as error:
        state_from_moves(moves)
    assert "\n" not in str(error.value)


def test_immediate_win_and_forced_loss() -> None:
    # X has three in column 1 and wins at once: 22 minus X's 4 stones.
    assert score(state_from_moves("121212")) == 18
    # O to move cannot stop both of X's threats (X holds b, c, d on the bottom row with a
    # and e open): X wins with their 4th stone, so O's score is 4 - 22.
    assert score(state_from_moves("27374")) == -18


def test_move_scores_agree_with_the_position_score() -> None:
    for moves, expected in read_set("Test_L3_R1")[:30]:
        state = state_from_moves(moves)
        scores = move_scores(state)
        assert max(scores.values()) == expected
        assert set(best_moves(state)) == {c for c, v in scores.items() if v == expected}
        assert set(scores) == set(ConnectFour().legal_actions(state))


def test_a_passed_deadline_interrupts_with_bounds() -> None:
    solver = Solver()
    state = state_from_moves("")  # the empty board: far beyond any short deadline
    with pytest.raises(SolveTimeout) as timeout:
        solver.solve(state, deadline=time.perf_counter() - 1.0)
    assert timeout.value.low <= timeout.value.high


def test_a_finished_game_is_refused() -> None:
    with pytest.raises(BoardgymError, match="game is over"):
        Solver().solve(ConnectFour().apply(state_from_moves("121212"), 0))
