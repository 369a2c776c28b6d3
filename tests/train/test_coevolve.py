"""Coevolution of evaluation weights: the cup, the next generation, tiny runs, resume."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from boardgym import make_agent, make_game
from boardgym.agents.coevolved import CoevolvedAgent
from boardgym.evaluate.match import play_games
from boardgym.games import parse_game_params
from boardgym.train import METHODS
from boardgym.train.coevolve import Config, Cup, _next_generation, train
from boardgym.types import BoardgymError

TINY = dict(population=4, generations=2, depths=(1,), pairs=1, eval_every=1, eval_games=4, progress=False)


def test_method_is_registered() -> None:
    assert METHODS["coevolve"].target == "boardgym.train.coevolve:main"


def test_cup_fitness_is_the_round_reached() -> None:
    game = make_game("rastros")
    population = np.random.default_rng(0).uniform(-1, 1, (8, 4))
    fitness = Cup(game, (1,), 1).fitness(population, np.random.default_rng(1))
    # 8 players: 4 go out in round 1, 2 in round 2, 1 in round 3, the winner scores 4.
    assert sorted(fitness.tolist()) == [1, 1, 1, 1, 2, 2, 3, 4]


def test_cup_prefers_heading_for_the_own_goal() -> None:
    game = make_game("rastros")
    toward, away = np.array([0.0, -1.0, 1.0, 0.0]), np.array([0.0, 1.0, -1.0, 0.0])
    # At depth 1 heading for one's goal wins every game (40 of 40 measured), from any opening.
    cup = Cup(game, (1,), 2, openings=2)
    assert all(cup.first_wins(toward, away, np.random.default_rng(s)) for s in range(3))
    assert not any(cup.first_wins(away, toward, np.random.default_rng(s)) for s in range(3))


def test_next_generation_keeps_the_elite_and_the_shape() -> None:
    config = Config(population=8, elite=0.25, mutation=1.0, delta=0.1)
    population = np.arange(32, dtype=float).reshape(8, 4)
    fitness = np.array([1, 1, 1, 1, 2, 2, 3, 4], dtype=float)
    children = _next_generation(config, population, fitness, np.random.default_rng(0))
    assert children.shape == (8, 4)
    assert (children[0] == population[7]).all() and (children[1] == population[6]).all()
    assert not any((child == population[7]).all() for child in children[2:])  # every child mutated


def test_tiny_run_writes_checkpoint_and_tensorboard_and_loads_as_agent(tmp_path: Path) -> None:
    final = train(Config(run_name="t", root=str(tmp_path), **TINY))
    payload = torch.load(final, weights_only=True)
    assert payload["best"].shape == (4,) and payload["depth"] == 1 and payload["step"] == 2
    events = EventAccumulator(str(final.parent))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    assert {"train/cup_rounds", "eval/win_rate_vs_random", "eval/win_rate_vs_report_weights"} <= tags
    assert "eval/win_rate_vs_random_weights" in tags
    agent = make_agent(f"coevolved:checkpoint={final},depth=2", make_game("rastros"))
    assert isinstance(agent, CoevolvedAgent) and agent.weights == payload["best"].tolist()
    assert play_games(make_game("rastros"), agent, "random", 4, seed=0).games == 4


def test_resume_continues_the_generations(tmp_path: Path) -> None:
    train(Config(run_name="r", root=str(tmp_path), **TINY))
    final = train(Config(run_name="r", root=str(tmp_path), resume=True, **{**TINY, "generations": 3}))
    assert torch.load(final, weights_only=True)["step"] == 3


def test_weights_in_the_spec_and_random_weights_redrawn_each_game() -> None:
    game = make_game("rastros")
    agent = make_agent("coevolved:weights=0/-1/1/0,depth=1", game)
    assert agent.weights == [0.0, -1.0, 1.0, 0.0]
    drawn = make_agent("coevolved:weights=random,depth=1", game, seed=0)
    first = list(drawn.weights)
    drawn.reset(seed=5)
    assert drawn.weights != first


def test_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(BoardgymError, match="power of two"):
        train(Config(root=str(tmp_path), **{**TINY, "population": 6}))
    with pytest.raises(BoardgymError, match="no features"):
        train(Config(game="nim", root=str(tmp_path), **TINY))
    with pytest.raises(BoardgymError, match="4 features"):
        make_agent("coevolved:weights=1/2", make_game("rastros"))
    with pytest.raises(BoardgymError, match="checkpoint=PATH"):
        make_agent("coevolved", make_game("rastros"))


def test_round_robin_counts_match_wins() -> None:
    game = make_game("rastros")
    toward, away = [0.0, -1.0, 1.0, 0.0], [0.0, 1.0, -1.0, 0.0]
    wins = Cup(game, (1,), 1, openings=2).round_robin(np.array([away, toward, away]), np.random.default_rng(0))
    assert wins[1] == 2 and wins.sum() == 3


@pytest.mark.parametrize(("name", "params"), [("tictactoe", ""), ("quixo", "size=4"), ("hex", "size=5")])
def test_tiny_run_on_other_games_with_features(tmp_path: Path, name: str, params: str) -> None:
    final = train(Config(game=name, game_params=params, run_name="g", root=str(tmp_path), **TINY))
    game = make_game(name, **parse_game_params(params.split()))
    assert torch.load(final, weights_only=True)["best"].shape == game.features(game.initial_state(), 0).shape
    agent = make_agent(f"coevolved:checkpoint={final},depth=1", game)
    assert play_games(game, agent, "random", 2, seed=0).games == 2
