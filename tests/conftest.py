"""Fixtures shared by several test folders."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

RAY_MISSING = "Ray is an optional extra: pip install 'boardgym[ray]' to run the tests of the ray backend"


def start_local_ray(request: pytest.FixtureRequest, num_cpus: int = 2, **resources: Any) -> Iterator[Any]:
    """A Ray of ``num_cpus`` CPUs (and ``resources``) on this machine, for one test module;
    classes and functions of that module travel to the Ray workers by value (tests/ is no
    package)."""
    ray = pytest.importorskip("ray", reason=RAY_MISSING)
    if ray.is_initialized():
        ray.shutdown()
    ray.init(
        address="local",
        num_cpus=num_cpus,
        include_dashboard=False,
        object_store_memory=200 * 1024 * 1024,
        logging_level=logging.WARNING,
        log_to_driver=False,
        **resources,
    )
    ray.cloudpickle.register_pickle_by_value(request.module)
    try:
        yield ray
    finally:
        ray.cloudpickle.unregister_pickle_by_value(request.module)
        ray.shutdown()


@pytest.fixture(scope="module")
def ray_local(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The ``ray`` module, initialised: two CPUs here, shut down after the module's tests;
    those tests skip, saying why, where Ray is not installed."""
    yield from start_local_ray(request)


@pytest.fixture(scope="module")
def ray_with_a_gpu(request: pytest.FixtureRequest) -> Iterator[Any]:
    """As ``ray_local`` with three CPUs, and Ray told that this machine has one GPU (whether it
    has one or not), so that the code that hands out GPU shares runs on a CPU-only machine too."""
    yield from start_local_ray(request, num_cpus=3, num_gpus=1)
