"""Fixtures of the training tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from tensorboard.backend.event_processing.plugin_event_accumulator import EventAccumulator


def _read_hparams(folder: Path) -> tuple[dict[str, object], set[str], dict[str, float]]:
    """What TensorBoard's HParams tab reads in a run folder (through the accumulator its
    plugins use): the session's hyper-parameters, the experiment's metric tags, and each
    metric's last logged value."""
    from tensorboard.plugins.hparams import metadata
    from tensorboard.util import tensor_util

    events = EventAccumulator(str(folder), size_guidance={"tensors": 0})
    events.Reload()
    content = events.PluginTagToContent(metadata.PLUGIN_NAME)
    assert metadata.EXPERIMENT_TAG in content and metadata.SESSION_START_INFO_TAG in content
    start = metadata.parse_session_start_info_plugin_data(content[metadata.SESSION_START_INFO_TAG])
    experiment = metadata.parse_experiment_plugin_data(content[metadata.EXPERIMENT_TAG])
    hparams = {key: getattr(value, value.WhichOneof("kind")) for key, value in start.hparams.items()}
    metric_tags = {info.name.tag for info in experiment.metric_infos}
    logged = set(events.Tags()["tensors"])
    values = {
        tag: float(tensor_util.make_ndarray(events.Tensors(tag)[-1].tensor_proto))
        for tag in metric_tags
        if tag in logged
    }
    return hparams, metric_tags, values


@pytest.fixture
def read_hparams() -> Callable[[Path], tuple[dict[str, object], set[str], dict[str, float]]]:
    """Reads a run folder's HParams session back from its event files."""
    return _read_hparams
