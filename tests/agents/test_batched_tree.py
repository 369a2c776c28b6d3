"""One simulation of the batched search (walk, expansion with the rules' step, evaluation,
backup) as a fixed-shape tensor program: compiled whole without a graph break, to the eager
result's bit, and with no operation that waits for the device."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from boardgym.agents.alphazero.network import build_network, inference_copy
from boardgym.agents.alphazero.network_leaf import NetworkBatchEvaluator
from boardgym.agents.batched_search import BatchedMCTS
from boardgym.agents.batched_tree import Tree
from boardgym.batch import batched
from boardgym.batch.graph_safety import assert_no_sync, assert_same, compile_fullgraph
from boardgym.games import GAMES, make_game

BATCHED = [name for name, entry in GAMES.items() if entry.batched]


def evaluation(planes: torch.Tensor, legal: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Made-up priors and values, a function of each position: uneven, no host read."""
    code = (planes.flatten(1) * torch.arange(1, planes[0].numel() + 1, device=planes.device)).sum(1, keepdim=True)
    columns = torch.arange(1, legal.shape[1] + 1, device=legal.device)
    priors = ((code * columns).sin().abs() + 0.05) * legal
    return priors / priors.sum(1, keepdim=True).clamp_min(1e-30), torch.tanh(code.squeeze(1).sin())


def grown_tree(name: str, gumbel: bool) -> tuple[BatchedMCTS, Tree]:
    """A search set up as a GPU runs it (no early exit, every leaf evaluated) and its trees after
    a few simulations, for games at their start and a few moves in."""
    game = make_game(name)
    rules = batched(game)
    generator = torch.Generator().manual_seed(0)
    state = rules.init(6, generator)
    for _ in range(3):  # a few random moves, the finished games started again
        state = rules.step(state, rules.random_actions(state, generator), auto_reset=True, generator=generator)
    state = state._replace(ended=torch.zeros_like(state.ended), rewards=torch.zeros_like(state.rewards))
    search = BatchedMCTS(rules, evaluation, simulations=12, gumbel=gumbel, considered=4, capture=False)
    search.early_exit, search.evaluate_all = False, True
    tree = search.start(state, np.random.default_rng(0))
    for _ in range(5):
        search.simulate(tree, int(tree.deepest) + 1)
    return search, tree


def copied(tree: Tree) -> Tree:
    """A copy of every tensor of ``tree`` (its rules' state too)."""
    states: Any = tree.states
    return tree._replace(
        **{name: value.clone() for name, value in zip(tree._fields, tree, strict=True) if name != "states"},
        states=states._replace(**{name: value.clone() for name, value in zip(states._fields, states, strict=True)}),
    )


@pytest.mark.parametrize("name", BATCHED)
def test_a_simulation_compiles_whole_to_the_eager_bit(name: str) -> None:
    for gumbel in (False, True):
        search, tree = grown_tree(name, gumbel)
        levels = int(tree.deepest) + 2  # a walk one level longer than needed, as a lagged depth gives
        eager, compiled = copied(tree), copied(tree)
        with torch.inference_mode():
            search.simulate(eager, levels)
            compile_fullgraph(search.simulate)(compiled, levels)
        assert_same(eager, compiled)
        assert int(eager.simulation) == 6


@pytest.mark.parametrize("name", BATCHED)
def test_a_simulation_makes_no_host_read(name: str) -> None:
    for gumbel in (False, True):
        search, tree = grown_tree(name, gumbel)
        levels = int(tree.deepest) + 1
        with torch.inference_mode():
            assert_no_sync(search.simulate, tree, levels)
        assert int(tree.simulation) == 6


def test_a_simulation_with_the_network_compiles_whole_and_makes_no_host_read() -> None:
    """The simulation self-play captures: the network's inference copy as the evaluator."""
    search, tree = grown_tree("connect_four", gumbel=False)
    torch.manual_seed(0)
    network = inference_copy(build_network(make_game("connect_four"), blocks=1, channels=8))
    search.evaluator = NetworkBatchEvaluator(network)
    levels = int(tree.deepest) + 1
    eager, compiled = copied(tree), copied(tree)
    with torch.inference_mode():
        search.simulate(eager, levels)
        compile_fullgraph(search.simulate)(compiled, levels)
        assert_no_sync(search.simulate, tree, levels)
    assert_same(eager, compiled)
    assert_same(eager, tree)
