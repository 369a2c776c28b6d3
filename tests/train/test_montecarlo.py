"""Monte Carlo control: a tiny end-to-end run, and learning small Nim by self-play."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from boardgym import make_agent, make_game
from boardgym.evaluate.match import play_games
from boardgym.train import METHODS
from boardgym.train.montecarlo import Config, train

TINY = dict(episodes=2000, eval_every=1000, eval_games=10, checkpoint_every=1000, progress=False)


def test_method_is_registered() -> None:
    assert METHODS["montecarlo"].target == "boardgym.train.montecarlo:main"


def test_tiny_run_writes_checkpoint_tensorboard_and_loads_as_agent(tmp_path: Path) -> None:
    final = train(Config(run_name="tiny", root=str(tmp_path), **TINY))
    assert final == tmp_path / "tictactoe" / "montecarlo" / "tiny" / "final.pt"
    assert torch.load(final, weights_only=True)["method"] == "montecarlo"
    events = EventAccumulator(str(final.parent))
    events.Reload()
    assert {"train/epsilon", "eval/win_rate_vs_random", "eval/loss_rate_vs_perfect"} <= set(events.Tags()["scalars"])
    game = make_game("tictactoe")
    summary = play_games(game, f"montecarlo:checkpoint={final}", "random", 20, seed=0)
    assert summary.games == 20


def test_self_play_wins_small_nim_against_random(tmp_path: Path) -> None:
    # heaps 2,3,4: the first player wins with perfect play (nim-sum 5), random mostly errs.
    final = train(
        Config(game="nim", game_params="heaps=2,3,4", run_name="n", root=str(tmp_path), **{**TINY, "episodes": 8000})
    )
    game = make_game("nim", heaps=(2, 3, 4))
    summary = play_games(game, f"montecarlo:checkpoint={final}", "random", 100, seed=1)
    assert summary.wins >= 85


def test_against_a_fixed_opponent_the_learner_plays_both_seats(tmp_path: Path) -> None:
    final = train(Config(opponent="perfect", run_name="vp", root=str(tmp_path), **{**TINY, "episodes": 50}))
    agent = make_agent(f"montecarlo:checkpoint={final}", make_game("tictactoe"))
    game = make_game("tictactoe")
    movers = {game.current_player(key[0]) for key in agent.table.rows}  # (position code,)
    assert movers == {0, 1}
    assert (0,) in agent.table.rows  # the empty board, as X


@pytest.mark.slow
def test_default_config_never_loses_to_perfect(tmp_path: Path) -> None:
    final = train(Config(run_name="default", root=str(tmp_path), progress=False))
    summary = play_games(make_game("tictactoe"), f"montecarlo:checkpoint={final}", "perfect", 400, seed=0)
    assert summary.losses == 0
