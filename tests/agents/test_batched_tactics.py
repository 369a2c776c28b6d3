"""The batched search's device tactics change how it runs, never what it finds: a search whose
simulations are recorded once per walk length and replayed (as CUDA graphs are on a GPU; here
a recorder whose replay runs the simulation again) finds what the CPU's search finds, counts
its evaluator calls, keeps its tree and recordings from search to search, and falls back to
running eagerly when a simulation cannot be recorded."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

from boardgym.agents.alphazero.network import build_network
from boardgym.agents.alphazero.network_leaf import NetworkBatchEvaluator
from boardgym.agents.batched_search import BatchedMCTS, LaggedDepthReader
from boardgym.batch import batched
from boardgym.games import make_game


class Rerun:
    """A recorder whose recording runs nothing and whose replay runs the function again, its
    counts of evaluator calls put back (a CUDA graph's replay runs no Python)."""

    def __init__(self, fail: bool = False) -> None:
        self.recorded = 0
        self.fail = fail
        self.search: BatchedMCTS | None = None

    def __call__(self, function: Callable[[], object]) -> Callable[[], None]:
        if self.fail:
            raise RuntimeError("operation not permitted when stream is capturing")
        self.recorded += 1
        return lambda: self.replay(function)

    def replay(self, function: Callable[[], object]) -> None:
        assert self.search is not None
        tactics, evaluator = self.search.tactics, self.search.evaluator
        assert isinstance(evaluator, NetworkBatchEvaluator)
        counts = tactics.calls, tactics.evaluations, evaluator.calls, evaluator.positions
        function()
        tactics.calls, tactics.evaluations, evaluator.calls, evaluator.positions = counts


def as_on_a_gpu(search: BatchedMCTS, recorder: Rerun) -> BatchedMCTS:
    search.tactics.recorder = recorder
    recorder.search = search
    search.early_exit, search.evaluate_all, search.depth_reader = False, True, LaggedDepthReader()
    return search


@pytest.mark.parametrize("gumbel", [False, True])
def test_recorded_simulations_find_what_the_cpu_finds(gumbel: bool, random_positions: Any) -> None:
    game = make_game("connect_four")
    rules = batched(game)
    roots = rules.from_scalar_states([game.initial_state(), *random_positions(game, 5, 12, seed=3)])
    network = build_network(game, blocks=1, channels=8).eval()
    plain = BatchedMCTS(rules, NetworkBatchEvaluator(network), simulations=24, gumbel=gumbel, dtype=torch.float64)
    plain.evaluate_all = True  # the network's rounding depends on its batch: the same batches
    evaluator = NetworkBatchEvaluator(network)
    recorder = Rerun()
    replayed = as_on_a_gpu(BatchedMCTS(rules, evaluator, simulations=24, gumbel=gumbel, dtype=torch.float64), recorder)
    for round_ in range(2):
        want = plain.search(roots, np.random.default_rng(round_))
        got = replayed.search(roots, np.random.default_rng(round_))
        for name, value in zip(want._fields, want, strict=True):
            assert torch.equal(value, getattr(got, name)), name
        assert replayed.calls == evaluator.calls == 25 * (round_ + 1)  # the roots', then one a simulation
        assert replayed.evaluations == evaluator.positions == 25 * 6 * (round_ + 1)
    # one recording per walk length, made in the first search and replayed in the second
    assert recorder.recorded == len(replayed.tactics._graphs) >= 2
    kept = replayed.tactics.tree(lambda: pytest.fail("a new tree"), 6, 25)
    assert kept is replayed.tactics._tree
    replayed.evaluator = NetworkBatchEvaluator(network)  # a new evaluator: recorded again
    assert torch.equal(
        replayed.search(roots, np.random.default_rng(0)).visits, plain.search(roots, np.random.default_rng(0)).visits
    )
    assert recorder.recorded == 2 * len(replayed.tactics._graphs)


def test_a_simulation_that_cannot_be_recorded_runs_eagerly() -> None:
    rules = batched("tictactoe")
    network = build_network(make_game("tictactoe"), blocks=1, channels=8).eval()
    plain = BatchedMCTS(rules, NetworkBatchEvaluator(network), simulations=10)
    plain.evaluate_all = True
    failing = as_on_a_gpu(BatchedMCTS(rules, NetworkBatchEvaluator(network), simulations=10), Rerun(fail=True))
    with pytest.warns(UserWarning, match="runs eagerly"):
        got = failing.search(rules.init(3))
    assert torch.equal(got.visits, plain.search(rules.init(3)).visits)
    assert not failing.tactics.capture and failing.calls == 11
