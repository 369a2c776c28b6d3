"""Black-box optimisers: the acceptance target of the issue (median run reaches 1.0 on
a = 1, 2, 5, 10 over 10 seeds, in fewer calls than seed report 000's 142,705), the baselines
under a budget, linkage groups on a known genome, and the tracker."""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from boardgym.games.blackbox import BlackBoxProblem
from boardgym.solve.blackbox import OPTIMISERS, StopSearch, Tracker, linkage_groups, run
from boardgym.types import BoardgymError


def test_linkage_reaches_one_on_every_instance_in_few_calls() -> None:
    median_calls = []
    for instance in (1, 2, 5, 10):
        results = [run("linkage", BlackBoxProblem(instance), seed=seed, max_calls=20_000) for seed in range(10)]
        assert statistics.median(r.best_fitness for r in results) == 1.0
        median_calls.append(statistics.median(r.calls for r in results))
    assert sum(median_calls) < 142_705


@pytest.mark.parametrize("algorithm", ["steady_state", "fitness_selection"])
def test_baselines_improve_and_respect_the_budget(algorithm: str) -> None:
    result = run(algorithm, BlackBoxProblem(1), seed=0, max_calls=3000)
    assert result.calls == 3000
    calls = [c for c, _ in result.curve]
    values = [f for _, f in result.curve]
    assert calls == sorted(calls) and values == sorted(values) and len(set(values)) == len(values)
    assert result.best_fitness == values[-1] > values[0]  # OneMax improves within 3000 calls
    assert BlackBoxProblem(1)(result.best_genome) == result.best_fitness


def test_runs_are_reproducible_by_seed() -> None:
    first = run("steady_state", BlackBoxProblem(5), seed=3, max_calls=500)
    again = run("steady_state", BlackBoxProblem(5), seed=3, max_calls=500)
    assert first.curve == again.curve and np.array_equal(first.best_genome, again.best_genome)


def test_linkage_groups_are_the_slices_when_counts_are_far_apart() -> None:
    problem = BlackBoxProblem(10)
    genome = np.zeros(1000, np.int8)
    for s, count in enumerate([10, 20, 30, 40, 50, 60, 70, 80, 90, 5]):
        genome[s::10][:count] = 1
    score = problem(genome)
    deltas = np.empty(1000)
    for locus in range(1000):
        genome[locus] ^= 1
        deltas[locus] = problem(genome) - score
        genome[locus] ^= 1
    groups = linkage_groups(genome, deltas, 1e-14)
    assert sorted(tuple(g.tolist()) for g in groups) == [tuple(range(s, 1000, 10)) for s in range(10)]


def test_tracker_stops_at_the_budget_and_at_the_target() -> None:
    tracker = Tracker(BlackBoxProblem(1), max_calls=2)
    tracker(np.zeros(1000, np.int8))
    tracker(np.zeros(1000, np.int8))
    with pytest.raises(StopSearch):
        tracker(np.zeros(1000, np.int8))
    tracker = Tracker(BlackBoxProblem(1), max_calls=10)
    with pytest.raises(StopSearch):
        tracker(np.ones(1000, np.int8))
    assert tracker.calls == 1 and tracker.curve == [(1, 1.0)]


def test_unknown_algorithm_is_refused() -> None:
    with pytest.raises(BoardgymError, match="known: " + ", ".join(OPTIMISERS)):
        run("hillclimb", BlackBoxProblem(1))
