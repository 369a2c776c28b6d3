"""The network evaluator inside the shared MCTS class (lock-step search and batched self-play:
tests/train/alphazero/test_selfplay.py)."""

from __future__ import annotations

import numpy as np
import pytest

from boardgym import make_game
from boardgym.agents.alphazero.network_leaf import NetworkEvaluator
from boardgym.agents.leaf import Evaluator, RolloutEvaluator
from boardgym.agents.mcts import MCTS

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_network_evaluator_is_an_evaluator_with_legal_priors(tiny_network) -> None:
    game = make_game("connect_four")
    evaluator = NetworkEvaluator(tiny_network(game))
    assert isinstance(evaluator, Evaluator)
    state = game.initial_state()
    for column in (0, 0, 0, 0, 0, 0):  # fill column a: only b..g stay legal
        state = game.apply(state, column)
    priors, values = evaluator.evaluate(game, [game.initial_state(), state])
    assert priors.shape == (2, 7) and values.shape == (2,)
    assert priors[1, 0] == 0.0
    np.testing.assert_allclose(priors.sum(1), 1.0, rtol=1e-5)
    assert np.all(np.abs(values) <= 1.0)


def test_network_evaluator_cache_returns_the_same_answer_without_a_new_call(tiny_network, moves_played) -> None:
    game = make_game("tictactoe")
    evaluator = NetworkEvaluator(tiny_network(game))
    states = [game.initial_state(), moves_played(game, "b2")]
    first = evaluator.evaluate(game, states)
    calls = evaluator.calls
    second = evaluator.evaluate(game, states)
    assert evaluator.calls == calls
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
    evaluator.clear_cache()
    evaluator.evaluate(game, states)
    assert evaluator.calls == calls + 1


@pytest.mark.parametrize("kind", ["network", "rollouts"])
def test_the_same_mcts_class_finds_a_win_in_one_with_either_evaluator(kind: str, tiny_network, moves_played) -> None:
    game = make_game("tictactoe")
    rng = np.random.default_rng(0)
    evaluator = NetworkEvaluator(tiny_network(game)) if kind == "network" else RolloutEvaluator(rng=rng)
    tree = MCTS(game, evaluator, simulations=300, c_puct=1.5, rng=rng)
    state = moves_played(game, "a1 a2 b1 b2")  # X to move; c1 wins
    root = tree.search(state)
    assert tree.best_action(root) == game.parse_action(state, "c1")
    assert tree.visit_counts(root)[[0, 1, 3, 4]].sum() == 0  # occupied cells never visited
