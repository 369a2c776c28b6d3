"""Lock-step search and batched self-play (the network evaluator inside the shared MCTS class:
tests/agents/test_alphazero_search.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from boardgym import make_game
from boardgym.agents.alphazero.network_leaf import NetworkEvaluator
from boardgym.games import GAMES
from boardgym.games.tictactoe import stones
from boardgym.train.alphazero import Config
from boardgym.train.alphazero.selfplay import MoveSchedule, SelfPlaySettings, default_dirichlet_alpha, random_start
from boardgym.train.alphazero.tree_selfplay import make_tree, play_selfplay_games, search_lockstep

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize("leaves", [1, 3])
def test_lockstep_search_runs_the_budget_in_every_tree(leaves: int, tiny_network, moves_played) -> None:
    game = make_game("tictactoe")
    evaluator = NetworkEvaluator(tiny_network(game), cache_size=0)
    settings = SelfPlaySettings(simulations=30, leaves_per_game=leaves)
    rng = np.random.default_rng(1)
    trees = [make_tree(game, evaluator, settings, rng) for _ in range(4)]
    states = [
        game.initial_state(),
        moves_played(game, "b2"),
        moves_played(game, "a1 a2 b1 b2"),
        moves_played(game, "c3"),
    ]
    calls, evaluated = search_lockstep(game, trees, states, evaluator, 30, leaves)
    assert calls == evaluator.calls
    assert evaluated == evaluator.positions
    assert evaluated > calls  # several trees share each network call
    for tree, state in zip(trees, states, strict=True):
        root = tree.root
        assert root.state == state
        assert sum(root.edge_n) == 30
        assert all(abs(w) <= n + 1e-9 for n, w in zip(root.edge_n, root.edge_w, strict=True))


def test_selfplay_records_legal_policies_and_final_results(tiny_network) -> None:
    game = make_game("tictactoe")
    evaluator = NetworkEvaluator(tiny_network(game))
    settings = SelfPlaySettings(simulations=16, temperature_moves=9)
    result = play_selfplay_games(game, evaluator, 6, parallel=4, settings=settings, rng=np.random.default_rng(2))
    assert result.games == 6 and len(result.outcomes) == 6
    assert len(result.positions(game)) == result.moves
    assert 1 < result.mean_batch <= 4
    for state, policy, value in result.positions(game):
        legal = game.legal_mask(state)
        assert policy[~legal].sum() == 0.0
        assert policy.sum() == pytest.approx(1.0)
        assert value in (-1.0, 0.0, 1.0)
    # Within a game the players alternate, so consecutive positions hold opposite results.
    for (before, _, value_before), (after, _, value_after) in zip(
        result.positions(game), result.positions(game)[1:], strict=False
    ):
        if _stones(after) == _stones(before) + 1:
            assert value_after == -value_before


def _stones(state) -> int:
    x, o = stones(state)
    return (x | o).bit_count()


def test_selfplay_is_reproducible_from_its_seed(tiny_network) -> None:
    game = make_game("tictactoe")
    network = tiny_network(game)
    settings = SelfPlaySettings(simulations=8)

    def moves(seed: int) -> list[tuple]:
        result = play_selfplay_games(
            game, NetworkEvaluator(network), 3, parallel=3, settings=settings, rng=np.random.default_rng(seed)
        )
        return [state for state, _, _ in result.positions(game)]

    assert moves(5) == moves(5)


@pytest.mark.parametrize("name", [n for n in GAMES if make_game(n).num_players == 2])
def test_selfplay_runs_on_every_two_player_game(name: str, tiny_network) -> None:
    game = make_game(name)
    settings = SelfPlaySettings(simulations=2, max_moves=60)
    result = play_selfplay_games(
        game, NetworkEvaluator(tiny_network(game)), 1, parallel=1, settings=settings, rng=np.random.default_rng(0)
    )
    assert result.games == 1 and 0 < len(result.positions(game)) <= 60
    for state, policy, _ in result.positions(game):
        assert policy[~game.legal_mask(state)].sum() == 0.0


def test_random_openings_vary_the_first_move_of_greedy_self_play(tiny_network, moves_played) -> None:
    game = make_game("tictactoe")
    network = tiny_network(game)

    def second_positions(random_opening_moves: int) -> set:
        settings = SelfPlaySettings(
            simulations=8, temperature_moves=0, dirichlet_fraction=0.0, random_opening_moves=random_opening_moves
        )
        result = play_selfplay_games(
            game, NetworkEvaluator(network), 12, parallel=12, settings=settings, rng=np.random.default_rng(4)
        )
        return {state for state, _, _ in result.positions(game) if _stones(state) == 1}

    assert len(second_positions(0)) == 1  # greedy search without noise: one opening
    assert len(second_positions(1)) > 3


def test_random_starts_cover_every_depth_and_are_never_over() -> None:
    game = make_game("connect_four")
    rng = np.random.default_rng(5)
    plies = []
    for _ in range(300):
        state = random_start(game, 20, rng)
        assert not game.is_terminal(state)
        plies.append(state[1].bit_count())  # the mask of occupied cells
    assert min(plies) == 0 and max(plies) == 20
    assert len(set(plies)) == 21
    assert random_start(game, 0, rng) == game.initial_state()
    again = np.random.default_rng(5)
    assert random_start(game, 20, again) == random_start(game, 20, np.random.default_rng(5))


def test_selfplay_from_random_starts_records_only_searched_positions(tiny_network) -> None:
    game = make_game("tictactoe")
    network = tiny_network(game)
    settings = SelfPlaySettings(simulations=4, temperature_moves=0, dirichlet_fraction=0.0, random_start_moves=6)
    result = play_selfplay_games(
        game, NetworkEvaluator(network), 30, parallel=10, settings=settings, rng=np.random.default_rng(2)
    )
    assert result.games == 30
    # each game records its start and every position after it: without random starts all 30
    # would record the empty board; here a start is empty one time in seven (0..6 moves)
    empty = sum(1 for state, _, _ in result.positions(game) if _stones(state) == 0)
    assert 0 < empty < 15
    assert result.moves == len(result.positions(game))  # the random moves are neither counted nor recorded


def test_settings_have_the_trainers_defaults_and_take_a_runs_config(tiny_network) -> None:
    """One default per setting: self-play's are ``Config``'s, and a run's config carries over."""
    assert SelfPlaySettings() == SelfPlaySettings.from_config(Config())
    config = Config(
        simulations=7,
        c_puct=2.0,
        dirichlet_alpha=0.3,
        dirichlet_fraction=0.5,
        temperature_moves=1,
        random_opening_moves=0,
        random_start_moves=3,
        leaves_per_game=2,
        max_moves=9,
    )
    settings = dataclasses.asdict(SelfPlaySettings.from_config(config))
    assert settings == {name: getattr(config, name) for name in settings}
    game = make_game("connect_four")  # alpha 0 (--dirichlet-alpha 0): the game's own; fraction 0: no noise
    evaluator = NetworkEvaluator(tiny_network(game))
    rng = np.random.default_rng(0)
    assert make_tree(game, evaluator, SelfPlaySettings(), rng).dirichlet_alpha == default_dirichlet_alpha(game)
    assert make_tree(game, evaluator, SelfPlaySettings(dirichlet_fraction=0.0), rng).dirichlet_alpha is None


@pytest.mark.parametrize(("random", "drawn"), [(2, 4), (5, 2), (0, 0)])
def test_move_schedule_on_ints_arrays_and_tensors(random: int, drawn: int) -> None:
    schedule = MoveSchedule(random, drawn)
    moves = list(range(8))
    expected = [(move < random, move < drawn, move < random or move < drawn) for move in moves]
    assert [(schedule.random(m), schedule.drawn(m), schedule.random_or_drawn(m)) for m in moves] == expected
    for values in (np.array(moves), torch.tensor(moves)):
        columns = (schedule.random(values), schedule.drawn(values), schedule.random_or_drawn(values))
        assert list(zip(*(column.tolist() for column in columns), strict=True)) == expected
