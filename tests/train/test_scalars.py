"""The TensorBoard side of the training runs: hyper-parameters as the HParams tab takes them,
SB3's tags in the shared namespaces, and one HParams table for the runs of every method."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from boardgym.config import option
from boardgym.registry import load
from boardgym.train import METHODS
from boardgym.train.scalars import NAMESPACES, SB3_BESIDE, SB3_NAMESPACES, hparam_values, sb3_scalars
from boardgym.train.training_run import RunConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_run_contract import TINY  # noqa: E402  (a tiny run of every method)


def test_hparam_values_are_what_the_tab_takes() -> None:
    @dataclass(frozen=True)
    class Wide(RunConfig):
        layers: tuple[int, ...] = option((256, 256), "layers")
        rate: float = option(0.5, "rate")

    values = hparam_values(Wide(), {"method": "toy"})
    assert values["layers"] == "256,256" and values["rate"] == 0.5
    assert values["method"] == "toy" and values["progress"] == "true"
    assert "run_name" not in values  # None: left out, so the column keeps the type of the runs that set it


def test_sb3_tags_stay_as_sb3_writes_them_with_the_shared_ones_beside() -> None:
    assert sb3_scalars("rollout/ep_rew_mean", 0.5, None) == {"rollout/ep_rew_mean": 0.5}
    assert sb3_scalars("train/loss", np.float32(2.0), ("stdout",)) == {"train/loss": 2.0}
    assert sb3_scalars("time/fps", 300, None) == {"time/fps": 300.0, "perf/steps_per_s": 300.0}
    assert sb3_scalars("time/total_timesteps", 64, ("tensorboard",)) == {}  # SB3 keeps it out; so do we
    assert sb3_scalars("train/clip_range", "text", None) == {}


def test_runs_of_every_method_compare_in_one_hparams_table(tmp_path: Path, hparams_table) -> None:
    """``tensorboard --logdir`` over runs of every method: one table, whose columns are every
    method's hyper-parameters and every scalar each run logged (at its last value)."""
    for method in sorted(METHODS):
        game, _, options, (flag, budget, _) = TINY[method]
        argv = [
            "--game",
            game,
            *options,
            flag,
            str(budget),
            "--root",
            str(tmp_path),
            "--run-name",
            "r",
            "--no-progress",
        ]
        assert load(METHODS[method].target)(argv, prog=f"boardgym train {method}") == 0
    table = hparams_table(tmp_path)
    assert set(table.rows) == {f"{TINY[method][0]}/{method}/r" for method in METHODS}
    for run, (hparams, values, status) in table.rows.items():
        folder = tmp_path / run
        config = json.loads((folder / "config.json").read_text())
        events = EventAccumulator(str(folder))
        events.Reload()
        logged = set(events.Tags()["scalars"])
        assert status == "STATUS_SUCCESS" and hparams["method"] == config["method"]
        assert {key for key, value in config.items() if value is not None and key != "method"} <= table.hparams
        assert logged <= table.metrics and set(values) == logged  # its final metrics, in this one table
        assert {tag.partition("/")[0] for tag in logged} <= set(NAMESPACES + SB3_NAMESPACES)
        assert "eval/win_rate_vs_random" in values and values["progress/games"] > 0
    # The columns the issue found missing beside the tabular methods' own.
    assert {"lr", "simulations", "blocks", "learning_rate", "alpha", "episodes", "mu", "population"} <= table.hparams
    assert {"eval/elo", "loss/policy", "loss/value", "perf/steps_per_s", "train/epsilon"} <= table.metrics
    assert {
        "rollout/ep_rew_mean",
        "time/fps",
        "train/loss",
        "train/entropy_loss",
        "train/learning_rate",
    } <= table.metrics


def test_the_tensorboard_guide_names_every_namespace_and_sb3_tag() -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "guides" / "tensorboard.md").read_text()
    for namespace in NAMESPACES:
        assert f"`{namespace}/" in guide or f"`{namespace}/games`" in guide, namespace
    for namespace in SB3_NAMESPACES:
        assert f"`{namespace}/" in guide, namespace
    for sb3, ours in SB3_BESIDE.items():
        assert f"`{sb3}`" in guide and f"`{ours}`" in guide, sb3
    for sb3 in ("rollout/ep_rew_mean", "train/loss", "train/entropy_loss", "train/learning_rate"):
        assert f"`{sb3}`" in guide, sb3
