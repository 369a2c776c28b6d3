"""Fixtures of the training tests."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True)
class HParamsTable:
    """TensorBoard's HParams tab for a log folder: its columns and one row per run."""

    hparams: set[str]
    """The hyper-parameter columns."""
    metrics: set[str]
    """The metric columns (scalar tags)."""
    rows: dict[str, tuple[dict[str, object], dict[str, float], str]]
    """Per run (its folder relative to the log folder): hyper-parameters, metric values, status."""


def _hparams_table(logdir: Path) -> HParamsTable:
    """The HParams tab as TensorBoard's backend builds it for ``tensorboard --logdir logdir``:
    the event files read by its multiplexer and data provider, the experiment and the session
    groups computed by the HParams plugin's own request handlers."""
    from tensorboard import context
    from tensorboard.backend.event_processing import data_provider, plugin_event_multiplexer
    from tensorboard.plugins import base_plugin
    from tensorboard.plugins.hparams import api_pb2, backend_context, get_experiment, list_session_groups

    multiplexer = plugin_event_multiplexer.EventMultiplexer(tensor_size_guidance={"hparams": 0})
    multiplexer.AddRunsFromDirectory(str(logdir))
    multiplexer.Reload()
    provider = data_provider.MultiplexerDataProvider(multiplexer, str(logdir))
    backend = backend_context.Context(base_plugin.TBContext(logdir=str(logdir), data_provider=provider))
    request = context.RequestContext()
    experiment = get_experiment.Handler(request, backend, "", api_pb2.GetExperimentRequest()).run()
    every_status = [api_pb2.Status.Value(name) for name in api_pb2.Status.keys()]  # as the tab asks
    groups = list_session_groups.Handler(
        request,
        backend,
        "",
        api_pb2.ListSessionGroupsRequest(start_index=0, slice_size=1000, allowed_statuses=every_status),
    ).run()
    rows = {}
    for group in groups.session_groups:
        (session,) = group.sessions
        values = {key: getattr(value, value.WhichOneof("kind")) for key, value in group.hparams.items()}
        metrics = {value.name.tag: value.value for value in session.metric_values}
        rows[session.name] = (values, metrics, api_pb2.Status.Name(session.status))
    return HParamsTable(
        hparams={info.name for info in experiment.hparam_infos},
        metrics={info.name.tag for info in experiment.metric_infos},
        rows=rows,
    )


@pytest.fixture
def hparams_table() -> Callable[[Path], HParamsTable]:
    """Reads the HParams tab of a log folder as TensorBoard's backend does."""
    return _hparams_table
