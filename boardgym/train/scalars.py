"""What every training run writes for TensorBoard, and what its tags mean.

Each run folder ``runs/<game>/<method>/<run-name>/`` is one TensorBoard run. Its scalars sit in
namespaces that mean the same thing whatever the method (``docs/guides/tensorboard.md``):

- ``eval/``: the agent measured against fixed opponents (``TrainingRun.measure``: the same
  opponents, games and seeds for every method, so these compare across methods), plus the
  measurements a method adds (``eval/elo``, ``eval/optimal_move_rate``);
- ``loss/``: the terms the optimiser minimises (AlphaZero's network; PPO's are SB3's own
  ``train/loss``, ``train/value_loss`` ...);
- ``train/``: the learner's own state and the statistics of its training games (epsilon,
  learning rate, fitness, replay size, results of the training games): each method's own, to
  read within a method, not across;
- ``perf/``: speed (positions, games or steps per second);
- ``progress/games``: the common step, the training games played so far (self-play, fitness,
  episodes and cup games; never the measurement games), logged beside every method's own step
  (episodes, timesteps, generations or iterations, the x-axis of its charts);
- ``solver/``: what the exact solver labelled (AlphaZero's ``--solver-targets``);
- ``rollout/``, ``time/``: SB3's own, as SB3 writes them (PPO; ``SB3_BESIDE``).

The hyper-parameters go to TensorBoard's HParams tab as a session of the run (its start when
the run first opens, its end when the run finishes) and never as an experiment: when no run
holds an experiment summary, the tab builds its table from every run's session (the union of
the hyper-parameters of all methods under the log folder) and takes every scalar tag of those
runs as a metric column, showing each one's last value. A run that wrote its own experiment
would hide every other method's columns.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from boardgym.config import config_to_dict

GAMES_TAG = "progress/games"
"""The common step: training games played so far, logged beside every method's own step."""

NAMESPACES = ("eval", "loss", "train", "perf", "progress", "solver")
"""The namespaces of the scalars a training run logs (see the module docstring)."""


def make_writer(path: Path | str) -> Any:
    """A TensorBoard ``SummaryWriter`` writing into ``path``."""
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(log_dir=str(path))


def log_config_table(writer: Any, config: Any) -> None:
    """Hyper-parameters once, as a markdown table under ``hparams/config`` (CleanRL's habit)."""
    rows = "\n".join(f"|{k}|{v}|" for k, v in config_to_dict(config).items())
    writer.add_text("hparams/config", f"|param|value|\n|-|-|\n{rows}")


def hparam_values(config: Any, extra: dict[str, Any] | None = None) -> dict[str, int | float | str]:
    """The config as values the HParams tab takes: numbers and strings as they are, booleans as
    ``true``/``false`` (as typed on the command line; the tab would show them as 0 and 1),
    sequences joined with commas (``256,256``). A value of None is left out, so that the
    column keeps the type of the runs that set it (the tab turns a column whose runs disagree
    on the type into text)."""
    values: dict[str, int | float | str] = {}
    for key, value in {**config_to_dict(config), **(extra or {})}.items():
        if value is None:
            continue
        if isinstance(value, bool):
            values[key] = "true" if value else "false"
        elif isinstance(value, (int, float, str)):
            values[key] = value
        elif isinstance(value, (list, tuple)):
            values[key] = ",".join(map(str, value))
        else:
            values[key] = str(value)
    return values


def log_session_start(writer: Any, config: Any, extra: dict[str, Any], step: int = 0) -> None:
    """The run as a session of TensorBoard's HParams tab: its hyper-parameters (``config`` and
    ``extra``), written into the run's own folder without an experiment summary, so that the
    tab's table is the union of every run's (``SummaryWriter.add_hparams`` would write an
    experiment, and into a folder of its own)."""
    from torch.utils.tensorboard.summary import hparams

    _experiment, start, _end = hparams(hparam_values(config, extra), {})
    writer.file_writer.add_summary(start, step)
    writer.flush()


def log_session_end(writer: Any, status: str, step: int = 0) -> None:
    """The session's end: ``status`` is ``success``, ``failure`` or ``unknown``. TensorBoard
    keeps the first end a run folder holds."""
    from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata
    from tensorboard.plugins.hparams import api_pb2, metadata
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData, SessionEndInfo

    end = SessionEndInfo(status=api_pb2.Status.Value(f"STATUS_{status.upper()}"))
    content = HParamsPluginData(session_end_info=end, version=metadata.PLUGIN_DATA_VERSION)
    plugin = SummaryMetadata.PluginData(plugin_name=metadata.PLUGIN_NAME, content=content.SerializeToString())
    summary = Summary(
        value=[Summary.Value(tag=metadata.SESSION_END_INFO_TAG, metadata=SummaryMetadata(plugin_data=plugin))]
    )
    writer.file_writer.add_summary(summary, step)
    writer.flush()


SB3_NAMESPACES = ("rollout", "time")
"""The namespaces of SB3's own scalars besides ``train/`` (PPO writes SB3's tags as SB3 does)."""

SB3_BESIDE = {"time/fps": "perf/steps_per_s"}
"""The cross-method tags PPO writes beside SB3's own: SB3's scalars keep the tags SB3's
TensorBoard writer gives them (``rollout/ep_rew_mean``, ``train/loss``, ``time/fps`` ...;
those SB3 keeps out of TensorBoard, as ``time/total_timesteps``, stay out), and its speed is
also written as ``perf/steps_per_s``, beside the other methods' speeds."""


def sb3_scalars(key: str, value: Any, excluded: tuple[str, ...] | str | None) -> dict[str, float]:
    """The scalars a run writes for SB3's logger entry ``key`` (``excluded``: the writers SB3
    keeps it from): SB3's own tag, and the cross-method tag beside it (``SB3_BESIDE``)."""
    if excluded is not None and "tensorboard" in excluded:
        return {}
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return {}
    tags = (key, SB3_BESIDE[key]) if key in SB3_BESIDE else (key,)
    return {tag: float(value) for tag in tags}
