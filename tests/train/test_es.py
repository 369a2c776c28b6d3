"""Evolution of Nim players: tiny runs of both genomes, selections and strategies, resume."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from boardgym import make_agent, make_game
from boardgym.agents.evolved_nim import NimPolicy, feature_names
from boardgym.evaluate.match import play_games
from boardgym.train import METHODS
from boardgym.train.es import Config, Field, optimal_move_rate, train
from boardgym.types import BoardgymError

TINY = dict(mu=4, offspring=8, generations=2, games=4, eval_every=1, eval_games=10, progress=False)


def nim_sum_genome(game) -> np.ndarray:
    """Bouton's rule as weights: every nim-sum bit of the position left behind is bad."""
    return np.array([-1.0 if name.startswith("nim_sum") else 0.0 for name in feature_names(game)])


def test_method_is_registered() -> None:
    assert METHODS["es"].target == "boardgym.train.es:main"


@pytest.mark.parametrize(
    ("genome", "strategy", "selection"),
    [("weights", "plus", "tournament"), ("rules", "comma", "roulette")],
)
def test_tiny_run_writes_checkpoint_and_tensorboard_and_loads_as_agent(
    tmp_path: Path, genome: str, strategy: str, selection: str
) -> None:
    config = Config(genome=genome, strategy=strategy, selection=selection, run_name="t", root=str(tmp_path), **TINY)
    final = train(config)
    payload = torch.load(final, weights_only=True)
    assert payload["genome_kind"] == genome and payload["step"] == 2
    assert payload["population"].shape[0] == 4
    events = EventAccumulator(str(final.parent))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    assert {
        "train/best_fitness",
        "eval/win_rate_vs_random",
        "eval/win_rate_vs_perfect",
        "eval/optimal_move_rate",
    } <= tags
    summary = play_games(make_game("nim"), f"es:checkpoint={final}", "random", 10, seed=0)
    assert summary.games == 10


def test_resume_continues_the_generations(tmp_path: Path) -> None:
    train(Config(run_name="r", root=str(tmp_path), **TINY))
    final = train(Config(run_name="r", root=str(tmp_path), resume=True, **{**TINY, "generations": 3}))
    assert torch.load(final, weights_only=True)["step"] == 3
    with pytest.raises(BoardgymError, match="rules genomes|weights genomes"):
        train(Config(genome="rules", run_name="r", root=str(tmp_path), resume=True, **{**TINY, "generations": 4}))


def test_nim_sum_weights_are_perfect_and_beat_the_field() -> None:
    game = make_game("nim")
    policy = NimPolicy(game, "weights", nim_sum_genome(game))
    assert optimal_move_rate(game, policy, random.Random(0)) == 1.0
    field = Field(game)
    fitness = field.fitness_of("weights", np.stack([nim_sum_genome(game), -nim_sum_genome(game)]), 20, seed=0)
    # 1,3,5,7,9 is a first-player win: perfect play wins every game but those it starts second against optimal.
    assert fitness[0] == pytest.approx(0.75)
    assert fitness[1] < 0.5


def test_evolution_improves_on_the_initial_population(tmp_path: Path) -> None:
    config = Config(run_name="e", root=str(tmp_path), **{**TINY, "generations": 6, "eval_every": 0, "games": 10})
    final = train(config)
    payload = torch.load(final, weights_only=True)
    game = make_game("nim")
    rate = optimal_move_rate(game, NimPolicy(game, "weights", payload["best"].tolist()), random.Random(0))
    assert rate > 0.8  # random weights: 1% to 55% (8 draws of seed 0)


def test_bad_options_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(BoardgymError, match="not nim"):
        train(Config(game="tictactoe", root=str(tmp_path), **TINY))
    with pytest.raises(BoardgymError, match="--selection"):
        train(Config(selection="best", root=str(tmp_path), **TINY))
    with pytest.raises(BoardgymError, match="es agent plays Nim only"):
        make_agent("es:checkpoint=x.pt", make_game("tictactoe"))
