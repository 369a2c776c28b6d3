"""The batched search against the scalar one: the same visit counts with a fixed evaluator and
no noise; Gumbel's root with a perfect value oracle; noise, sampling and the network evaluator."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
import torch

from boardgym.agents.alphazero.network import build_network
from boardgym.agents.alphazero.network_leaf import NetworkBatchEvaluator
from boardgym.agents.batched_search import (
    BatchedMCTS,
    DepthReader,
    LaggedDepthReader,
    best_actions,
    considered_visits,
    sample_actions,
)
from boardgym.agents.mcts import MCTS
from boardgym.batch import batched
from boardgym.game import Game
from boardgym.games import make_game
from boardgym.types import BoardgymError


def fixed_evaluation(planes: torch.Tensor, legal: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A made-up evaluator, a function of each position alone: uneven priors, values in (-1, 1)."""
    flat = planes.reshape(len(planes), -1).double()
    weights = torch.arange(1, flat.shape[1] + 1, dtype=torch.float64) * 0.7548776662
    code = (flat * weights).sum(1, keepdim=True)
    columns = torch.arange(1, legal.shape[1] + 1, dtype=torch.float64)
    raw = (torch.sin(code * columns * 12.9898 + columns) * 43758.5453).frac().abs() + 0.05
    priors = (raw * legal).float()
    priors = priors / priors.sum(1, keepdim=True).clamp_min(1e-30)
    values = torch.tanh(torch.sin(code.squeeze(1) * 3.1) * 2.0).float()
    return priors, values


class ScalarFixed:
    """``fixed_evaluation`` as ``MCTS``'s evaluator, one position a row."""

    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        planes = torch.as_tensor(np.stack([game.observation(s, game.current_player(s)) for s in states]))
        legal = torch.as_tensor(np.stack([game.legal_mask(s) for s in states]))
        priors, values = fixed_evaluation(planes.float(), legal.bool())
        return priors.numpy(), values.numpy()


@pytest.mark.parametrize(
    ("name", "params", "simulations", "most"),
    [
        ("tictactoe", {}, 60, 6),
        ("connect_four", {}, 80, 20),
        ("hex", {"size": 5}, 80, 12),
    ],
)
def test_same_visit_counts_as_mcts(
    name: str, params: dict[str, Any], simulations: int, most: int, random_positions: Any
) -> None:
    game = make_game(name, **params)
    rules = batched(game)
    positions = [game.initial_state(), *random_positions(game, 11, most, seed=1)]
    search = BatchedMCTS(rules, fixed_evaluation, simulations=simulations, c_puct=1.5, dtype=torch.float64)
    result = search.search(rules.from_scalar_states(positions))
    for row, state in enumerate(positions):
        tree = MCTS(game, ScalarFixed(), simulations=simulations, c_puct=1.5, rng=np.random.default_rng(0))
        root = tree.search(state)
        np.testing.assert_array_equal(result.visits[row].numpy(), tree.visit_counts(root), err_msg=f"position {row}")
        values = tree.action_values(root)
        for action, (visits, mean) in values.items():
            if visits:
                assert result.q[row, action].item() == pytest.approx(mean, abs=1e-12)
    assert search.calls == simulations + 1  # the roots', then one a simulation
    search.early_exit = False  # as on a GPU: every walk as deep as the deepest tree
    assert torch.equal(search.search(rules.from_scalar_states(positions)).visits, result.visits)
    search.evaluate_all, search.depth_reader = True, LaggedDepthReader()  # the rest of a GPU's way
    assert torch.equal(search.search(rules.from_scalar_states(positions)).visits, result.visits)


class ExactDepthReader(DepthReader):
    """The CPU's reader, its bounds kept."""

    def start(self) -> None:
        super().start()
        self.bounds: list[int] = []

    def bound(self, simulation: int) -> int:
        self.bounds.append(super().bound(simulation))
        return self.bounds[-1]


class SlowDepthReader(LaggedDepthReader):
    """A lagged reader whose copies arrive at every third look only, as a busy GPU's might;
    its bounds kept."""

    looks = 0

    def start(self) -> None:
        super().start()
        self.bounds: list[int] = []

    def _arrived(self, event: Any) -> bool:
        self.looks += 1
        return self.looks % 3 == 0

    def bound(self, simulation: int) -> int:
        self.bounds.append(super().bound(simulation))
        return self.bounds[-1]


@pytest.mark.parametrize("gumbel", [False, True])
def test_a_lagged_depth_only_lengthens_the_walks(gumbel: bool, random_positions: Any) -> None:
    game = make_game("connect_four")
    rules = batched(game)
    roots = rules.from_scalar_states([game.initial_state(), *random_positions(game, 7, 16, seed=4)])
    searches = []
    for reader in (ExactDepthReader(), SlowDepthReader()):
        search = BatchedMCTS(rules, fixed_evaluation, simulations=80, gumbel=gumbel, dtype=torch.float64)
        search.early_exit = False  # as on a GPU
        search.depth_reader = reader
        search.evaluate_all = isinstance(reader, SlowDepthReader)  # the GPU's walk, all of it
        searches.append(search.search(roots, rng=np.random.default_rng(1)))
        if isinstance(reader, ExactDepthReader):
            exact = reader.bounds
        else:
            late = reader.bounds
    want, got = searches
    for name, value in zip(want._fields, want, strict=True):
        assert torch.equal(value, getattr(got, name)), name
    # the bound ran ahead of the exact depth while a copy was on its way, a few levels at most
    pairs = list(zip(late, exact, strict=True))
    assert all(ahead >= true for ahead, true in pairs)
    assert sum(ahead > true for ahead, true in pairs) > 10
    assert max(ahead - true for ahead, true in pairs) <= 4  # arrivals 3 looks apart


def test_the_cache_changes_nothing_but_the_evaluations(random_positions: Any) -> None:
    game = make_game("connect_four")
    rules = batched(game)
    roots = rules.from_scalar_states([game.initial_state()] * 4 + random_positions(game, 4, 10, seed=2))
    plain = BatchedMCTS(rules, fixed_evaluation, simulations=60, dtype=torch.float64)
    cached = BatchedMCTS(rules, fixed_evaluation, simulations=60, dtype=torch.float64, cache=1000)
    assert torch.equal(plain.search(roots).visits, cached.search(roots).visits)
    # the four games at the start are one position: evaluated once a call
    assert cached.cache_hits > 0 and cached.evaluations + cached.cache_hits == plain.evaluations
    again = cached.evaluations
    assert torch.equal(plain.search(roots).visits, cached.search(roots).visits)
    assert cached.evaluations - again < plain.evaluations / 4  # the second search mostly remembers
    with pytest.raises(BoardgymError, match="cache=-1"):
        BatchedMCTS(rules, fixed_evaluation, simulations=4, cache=-1)


def test_terminal_leaves_take_the_rules_value() -> None:
    """X to move can win at once: an evaluator that calls every position a loss for the mover
    cannot hide it, since the finished game is scored by the rules."""
    game = make_game("tictactoe")
    rules = batched(game)
    state = game.initial_state()
    for action in (0, 3, 1, 4):  # X: 0, 1; O: 3, 4; X wins with 2
        state = game.apply(state, action)

    def pessimist(planes: torch.Tensor, legal: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return legal.float() / legal.sum(1, keepdim=True), torch.full((len(legal),), -1.0)

    result = BatchedMCTS(rules, pessimist, simulations=40).search(rules.from_scalar_states([state]))
    assert result.action.item() == 2
    assert result.q[0, 2].item() == 1.0


def perfect_values(game: Game) -> dict[Any, float]:
    """Every tic-tac-toe position's value for the player to move, by full search."""
    values: dict[Any, float] = {}

    def solve(state: Any) -> float:
        if state in values:
            return values[state]
        if game.is_terminal(state):
            value = game.returns(state)[game.current_player(state)]
        else:
            value = max(-solve(game.apply(state, a)) for a in game.legal_actions(state))
        values[state] = value
        return value

    solve(game.initial_state())
    return values


def test_gumbel_root_picks_a_best_move_with_a_perfect_oracle() -> None:
    game = make_game("tictactoe")
    rules = batched(game)
    values = perfect_values(game)
    cells = int(np.prod(game.observation_shape))
    powers = 2 ** torch.arange(cells)
    table = torch.zeros(2**cells)  # the value of every position, by its planes read as bits
    for state, value in values.items():
        if not game.is_terminal(state):
            key = (torch.as_tensor(game.observation(state, game.current_player(state))).flatten().long() * powers).sum()
            table[key] = value

    def oracle(planes: torch.Tensor, legal: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        keys = (planes.flatten(1).long() * powers).sum(1)
        return legal.float() / legal.sum(1, keepdim=True), table[keys]

    positions = sorted(s for s in values if not game.is_terminal(s))
    roots = rules.from_scalar_states(positions)
    # Below the root the search is PUCT and backs up means: with few visits a losing move whose
    # refutation is not found yet can look better than a draw (18 of the 4,520 positions miss
    # at 16 simulations); from 128 simulations every root plays a best move.
    result = BatchedMCTS(rules, oracle, simulations=128, gumbel=True).search(roots, gumbel_noise=False)
    for state, action in zip(positions, result.action.tolist(), strict=True):
        best = max(-values[game.apply(state, a)] for a in game.legal_actions(state))
        assert -values[game.apply(state, action)] == best, (state, action)


def test_sequential_halving_schedule() -> None:
    assert considered_visits(1, 4) == [0, 1, 2, 3]
    assert considered_visits(4, 8) == [0, 0, 0, 0, 1, 1, 2, 2]
    assert len(considered_visits(16, 200)) == 200


def test_gumbel_visits_sum_to_the_budget_and_policy_is_legal() -> None:
    rules = batched("connect_four")
    rng = np.random.default_rng(3)
    roots = rules.init(5)
    result = BatchedMCTS(rules, fixed_evaluation, simulations=32, gumbel=True, considered=4).search(roots, rng)
    assert result.visits.sum(1).tolist() == [32.0] * 5
    assert (result.visits > 0).sum(1).max().item() <= 4
    assert torch.allclose(result.policy.sum(1), torch.ones(5))
    assert bool(result.legal.gather(1, result.action.unsqueeze(1)).all())


def test_root_noise_is_seeded_and_changes_the_search() -> None:
    rules = batched("connect_four")
    roots = rules.init(4)

    def run(seed: int) -> torch.Tensor:
        search = BatchedMCTS(rules, fixed_evaluation, simulations=30, dirichlet_alpha=0.3, dirichlet_fraction=0.5)
        return search.search(roots, np.random.default_rng(seed)).visits

    assert torch.equal(run(1), run(1))
    assert not torch.equal(run(1), run(2))


def test_best_and_sampled_actions() -> None:
    visits = torch.tensor([[3.0, 5.0, 5.0, 0.0], [1.0, 0.0, 0.0, 0.0]])
    q = torch.tensor([[0.0, 0.1, 0.4, 0.0], [0.0, 0.0, 0.0, 0.9]])
    legal = torch.tensor([[True, True, True, True], [True, False, False, True]])
    assert best_actions(visits, q, legal).tolist() == [2, 0]
    policy = torch.tensor([[0.0, 1.0, 0.0], [0.5, 0.0, 0.5]])
    draws = sample_actions(policy.repeat(200, 1), np.random.default_rng(0))
    assert set(draws[0::2].tolist()) == {1}
    assert set(draws[1::2].tolist()) == {0, 2}


class _FixedDraws(np.random.Generator):
    """A generator whose uniform draws are all ``value``."""

    def __init__(self, value: float) -> None:
        super().__init__(np.random.PCG64(0))
        self.value = value

    def random(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:
        return np.full(size, self.value)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_sampled_actions_at_the_ends_of_the_draw_have_weight(dtype: torch.dtype) -> None:
    """The smallest and largest uniform draws pick the first and the last action of weight
    above zero, never one of weight 0 beside them, also for a tiny total."""
    policy = torch.tensor([[0.0, 0.3, 0.0, 0.7, 0.0], [0.0, 0.0, 0.0, 0.0, 1e-30], [1e-30, 0.0, 0.0, 1e-30, 0.0]])
    if dtype == torch.float16:
        policy = policy[:1]  # 1e-30 is 0 in float16
    policy = policy.to(dtype)
    lowest = sample_actions(policy, _FixedDraws(0.0))
    highest = sample_actions(policy, _FixedDraws(1.0 - 2.0**-53))
    assert lowest.tolist() == [1, 4, 0][: len(policy)]
    assert highest.tolist() == [3, 4, 3][: len(policy)]


def test_network_evaluator_and_bad_settings(random_positions: Any) -> None:
    game = make_game("connect_four")
    rules = batched(game)
    network = build_network(game, blocks=1, channels=8)
    evaluator = NetworkBatchEvaluator(network)
    result = BatchedMCTS(rules, evaluator, simulations=8).search(rules.init(3))
    assert evaluator.calls == 9 and evaluator.positions == 27
    assert result.visits.sum().item() == 24
    with pytest.raises(BoardgymError, match="simulations=0"):
        BatchedMCTS(rules, evaluator, simulations=0)
    finished = rules.from_scalar_states([random_positions(game, 1, 0, 0)[0]])
    finished = finished._replace(terminated=torch.tensor([True]))
    with pytest.raises(BoardgymError, match="finished game"):
        BatchedMCTS(rules, evaluator, simulations=4).search(finished)
