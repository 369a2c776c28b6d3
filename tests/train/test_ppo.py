"""MaskablePPO: tiny end-to-end runs against a fixed agent and in self-play, and resume."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from boardgym import make_agent, make_game
from boardgym.agents.ppo import PPOAgent
from boardgym.evaluate.match import play_games
from boardgym.train import METHODS
from boardgym.train.ppo import Config, PoolOpponent, main, train
from boardgym.types import BoardgymError

TINY = dict(
    game="tictactoe",
    timesteps=256,
    n_envs=2,
    n_steps=64,
    batch_size=64,
    n_epochs=1,
    net_arch=(16,),
    eval_every=128,
    checkpoint_every=128,
    eval_games=4,
    progress=False,
)


def scalar_tags(folder: Path) -> set[str]:
    events = EventAccumulator(str(folder))
    events.Reload()
    return set(events.Tags()["scalars"])


def test_method_is_registered() -> None:
    assert METHODS["ppo"].target == "boardgym.train.ppo:main"


def test_tiny_run_logs_sb3_and_eval_scalars_and_loads_as_agent(tmp_path: Path) -> None:
    final = train(Config(run_name="tiny", root=str(tmp_path), **TINY))
    assert final == tmp_path / "tictactoe" / "ppo" / "tiny" / "final.pt"
    payload = torch.load(final, weights_only=True)
    assert payload["step"] >= 256 and payload["net_arch"] == [16]
    tags = scalar_tags(final.parent)
    assert {
        "eval/win_rate_vs_random",
        "eval/loss_rate_vs_perfect",
        "progress/games",
        "perf/steps_per_s",
        # SB3's own tags, as SB3 writes them
        "rollout/ep_rew_mean",
        "time/fps",
        "train/loss",
        "train/value_loss",
        "train/entropy_loss",
        "train/learning_rate",
    } <= tags
    assert not {"train/return", "loss/total", "loss/entropy", "train/lr"} & tags  # no renamed copies
    game = make_game("tictactoe")
    summary = play_games(game, f"ppo:checkpoint={final}", "random", 6, seed=0)
    assert summary.games == 6


def test_the_bar_ends_at_the_step_the_log_reaches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SB3 plays whole rollouts (2 envs x 64 steps): asked for 200 steps it plays 256, and the
    bar says 256 of 256, as the log and the checkpoint do, not 200 of 200."""
    import io

    from tqdm import tqdm

    import boardgym.train.training_run as training_run

    bars: list[tqdm] = []

    def shown_bar(enabled: bool = True, **settings: object) -> tqdm:
        bars.append(tqdm(file=io.StringIO(), **settings))  # type: ignore[call-overload]
        return bars[-1]

    monkeypatch.setattr(training_run, "progress_bar", shown_bar)
    final = train(Config(run_name="bar", root=str(tmp_path), **{**TINY, "timesteps": 200, "progress": True}))
    step = torch.load(final, weights_only=True)["step"]
    assert step == 256 and bars[0].n == bars[0].total == step


def test_the_final_evaluation_is_logged_once(tmp_path: Path) -> None:
    # 256 steps with a measurement every 128: once at 128, once at the end (256), after the last update
    final = train(Config(run_name="once", root=str(tmp_path), **TINY))
    events = EventAccumulator(str(final.parent), size_guidance={"scalars": 0})
    events.Reload()
    steps = [event.step for event in events.Scalars("eval/win_rate_vs_random")]
    assert steps == [128, 256]


def test_self_play_fills_the_pool_and_resume_keeps_it(tmp_path: Path) -> None:
    config = Config(opponent="self", snapshot_every=128, run_name="self", root=str(tmp_path), **TINY)
    final = train(config)
    pool = sorted((final.parent / "pool").glob("*.pt"))
    assert len(pool) >= 2  # the untrained policy plus at least one snapshot
    with pytest.raises(BoardgymError, match="--resume"):
        train(config)
    longer = Config(
        opponent="self",
        snapshot_every=128,
        run_name="self",
        root=str(tmp_path),
        resume=True,
        **{**TINY, "timesteps": 512},
    )
    final = train(longer)
    assert torch.load(final, weights_only=True)["step"] >= 512


def test_pool_opponent_draws_from_the_pool(tmp_path: Path) -> None:
    final = train(Config(run_name="p", root=str(tmp_path), **{**TINY, "eval_every": 0}))
    game = make_game("tictactoe")
    member = PPOAgent(game, checkpoint=final)
    opponent = PoolOpponent(game, [member], random_rate=0.0, seed=0)
    opponent.reset(seed=1)
    assert opponent.current is member
    state = game.initial_state()
    assert opponent.act(game, state) == member.act(game, state)


def test_agent_plays_only_legal_moves_and_samples_when_asked(tmp_path: Path) -> None:
    final = train(Config(run_name="a", root=str(tmp_path), **{**TINY, "eval_every": 0}))
    game = make_game("tictactoe")
    for spec in (f"ppo:checkpoint={final}", f"ppo:checkpoint={final},deterministic=false"):
        agent = make_agent(spec, game, seed=0)
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.apply(state, agent.act(game, state))


def test_bad_options_are_clear_errors(tmp_path: Path, capsys) -> None:
    with pytest.raises(BoardgymError, match="--seat"):
        train(Config(seat="2", root=str(tmp_path), **TINY))
    wrong = {
        "learning_rate": (math.nan, -1e-3, math.inf),
        "ent_coef": (math.nan, -0.5),
        "gamma": (math.nan, 1.5, -0.1),
        "gae_lambda": (math.nan, 2.0),
        "clip_range": (math.nan, 0.0, math.inf),
    }
    for name, values in wrong.items():
        for value in values:
            with pytest.raises(BoardgymError, match=f"--{name.replace('_', '-')} {value} must be"):
                train(Config(root=str(tmp_path), run_name="bad", **{**TINY, name: value}))
    assert not list(tmp_path.rglob("bad"))  # refused before the run folder opens
    with pytest.raises(BoardgymError, match="ppo agent needs"):
        make_agent("ppo", make_game("tictactoe"))
    with pytest.raises(SystemExit):
        main(["--no-such-option"])


@pytest.mark.slow
def test_connect_four_default_config_beats_random(tmp_path: Path) -> None:
    final = train(Config(run_name="c4", root=str(tmp_path), eval_every=0, progress=False))
    summary = play_games(make_game("connect_four"), f"ppo:checkpoint={final}", "random", 200, seed=0)
    assert summary.win_rate >= 0.95
