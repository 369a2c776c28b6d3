"""Exact Connect Four training targets from the solver (``--solver-targets``), checked against
the shipped grading set's solved move values."""

from __future__ import annotations

import random

import numpy as np
import pytest

from boardgym import make_game
from boardgym.evaluate.grade_sets import read_connect_four_set, varied_game_moves
from boardgym.games.connect_four import ConnectFour
from boardgym.solve.connect_four import state_from_moves
from boardgym.train.alphazero.buffer import augment
from boardgym.train.alphazero.solved import SolverTargets, exact_targets, move_values, varied_positions
from boardgym.types import BoardgymError

RULES = ConnectFour()


def late_positions(count: int, min_ply: int = 24):
    """Graded positions with at least ``min_ply`` stones (cheap to solve)."""
    positions = [p for p in read_connect_four_set() if p.ply >= min_ply]
    return positions[:: max(1, len(positions) // count)][:count]


def test_move_values_match_the_graded_values() -> None:
    for position in late_positions(12):
        assert move_values(position.state, limit=30.0) == position.values, position.label


def test_targets_keep_the_visits_of_the_best_moves() -> None:
    policy, value = exact_targets({0: -1, 1: 0, 2: 0, 3: 1, 4: 1}, np.array([0.5, 0.1, 0.1, 0.1, 0.3, 0, 0]))
    assert value == 1.0
    np.testing.assert_allclose(policy, [0, 0, 0, 0.25, 0.75, 0, 0])
    policy, value = exact_targets({0: -1, 1: 0, 2: 0}, np.array([1.0, 0, 0, 0, 0, 0, 0]))
    assert value == 0.0  # no visit on a drawing move: uniform over them
    np.testing.assert_allclose(policy, [0, 0.5, 0.5, 0, 0, 0, 0])


def test_positions_get_the_solver_value_and_mirrors_agree() -> None:
    labeller = SolverTargets(make_game("connect_four"), min_ply=20, limit=30.0)
    graded = late_positions(6)
    uniform = np.full(7, 1 / 7, dtype=np.float32)
    early = RULES.apply(RULES.initial_state(), 3)  # 1 stone: below min_ply, kept as it was
    triples = [(p.state, uniform, 0.5) for p in graded] + [(early, uniform, 0.5)]
    mirrors = [(RULES.symmetric_states(p.state)[1][0], uniform, 0.5) for p in graded]
    out, stats = labeller.positions(triples + mirrors)
    assert stats.eligible == stats.solved == 2 * len(graded)
    for index, position in enumerate(graded):
        state, policy, value = out[index]
        assert state == position.state and value == position.best
        best = {column for column, v in position.values.items() if v == position.best}
        assert {int(c) for c in np.flatnonzero(policy)} == best
        np.testing.assert_allclose(out[len(triples) + index][1], policy[::-1])
        assert out[len(triples) + index][2] == value
    assert out[len(graded)][1] is uniform and out[len(graded)][2] == 0.5


def test_replay_rows_are_labelled_like_positions() -> None:
    game = make_game("connect_four")
    labeller = SolverTargets(game, min_ply=20, limit=30.0)
    graded = late_positions(4)
    rows = [row for p in graded for row in augment(game, p.state, np.full(7, 1 / 7, dtype=np.float32))]
    planes = np.stack([r[0] for r in rows])
    policy = np.stack([r[1] for r in rows])
    value = np.full(len(rows), 0.25, dtype=np.float32)
    heard: list[tuple[int, int]] = []
    new_policy, new_value, stats = labeller.rows(planes, policy, value, progress=lambda *pair: heard.append(pair))
    assert stats.solved == len(rows) and value[0] == 0.25  # the inputs are not changed
    assert heard == [(len(graded), len(graded))]  # a position and its mirror are solved once
    assert list(new_value) == [p.best for p in graded for _ in range(2)]
    for row in range(len(rows)):
        position = graded[row // 2]
        best = {column for column, v in position.values.items() if v == position.best}
        columns = {int(c) for c in np.flatnonzero(new_policy[row])}
        assert columns == (best if row % 2 == 0 else {6 - c for c in best})


def test_a_position_past_the_limit_keeps_its_targets() -> None:
    labeller = SolverTargets(make_game("connect_four"), min_ply=1, limit=1e-9)
    state = RULES.apply(RULES.initial_state(), 3)
    policy = np.full(7, 1 / 7, dtype=np.float32)
    out, stats = labeller.positions([(state, policy, 0.5)])
    assert stats.eligible == 1 and stats.solved == 0 and out[0][2] == 0.5


def test_solver_processes_give_the_same_targets() -> None:
    graded = late_positions(6)
    uniform = np.full(7, 1 / 7, dtype=np.float32)
    alone, _ = SolverTargets(make_game("connect_four"), min_ply=20, limit=30.0).positions(
        [(p.state, uniform, 0.0) for p in graded]
    )
    pooled = SolverTargets(make_game("connect_four"), min_ply=20, limit=30.0, workers=2)
    try:
        together, _ = pooled.positions([(p.state, uniform, 0.0) for p in graded])
    finally:
        pooled.close()
    for a, b in zip(alone, together, strict=True):
        np.testing.assert_array_equal(a[1], b[1])
        assert a[2] == b[2]


def test_games_without_a_solver_are_refused() -> None:
    with pytest.raises(BoardgymError, match="--solver-targets needs an exact solver.*not tictactoe"):
        SolverTargets(make_game("tictactoe"), min_ply=4, limit=1.0)


def test_varied_positions_are_distinct_at_the_plies_asked_and_skip_excluded_ones() -> None:
    states = varied_positions(60, range(20, 23), seed=5)
    assert len(set(states)) == 60 and {s[1].bit_count() for s in states} == {20, 21, 22}
    assert not any(RULES.is_terminal(s) for s in states)
    assert varied_positions(60, range(20, 23), seed=5) == states  # same seed, same positions
    rng = random.Random(5)  # the first move string varied_positions(..., seed=5) takes
    first = None
    while first is None:
        first = varied_game_moves(rng, rng.randrange(20, 21))
    assert varied_positions(5, range(20, 21), seed=5)[0] == state_from_moves(first)
    assert state_from_moves(first) not in varied_positions(5, range(20, 21), 5, exclude=frozenset({first}))
    with pytest.raises(BoardgymError, match="found only .* distinct positions at plies 1-1"):
        varied_positions(8, range(1, 2), seed=0)  # 7 first moves exist


def test_solved_positions_get_the_value_and_a_uniform_policy_over_the_best_moves() -> None:
    labeller = SolverTargets(make_game("connect_four"), min_ply=20, limit=30.0)
    graded = late_positions(6)
    early = RULES.apply(RULES.initial_state(), 3)  # below min_ply: left out
    triples, stats = labeller.solved([p.state for p in graded] + [early])
    assert stats.eligible == stats.solved == len(triples) == len(graded)
    for (state, policy, value), position in zip(triples, graded, strict=True):
        best = [column for column, v in position.values.items() if v == position.best]
        assert state == position.state and value == position.best
        np.testing.assert_allclose(policy[best], 1 / len(best))
        assert policy.sum() == pytest.approx(1.0)
