"""Fixtures shared by several test folders."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
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


@pytest.fixture
def one_torch_thread() -> Iterator[None]:
    """Torch on one thread for the test: tiny networks run fastest so, and the test machine's
    cores are shared (``pytestmark = pytest.mark.usefixtures("one_torch_thread")``)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def tiny_network() -> Callable[..., Any]:
    """``tiny_network(game, seed=0)``: a seeded AlphaZero network of one block of 8 channels."""

    def build(game: Any, seed: int = 0) -> Any:
        import torch

        from boardgym.agents.alphazero.network import build_network

        torch.manual_seed(seed)
        return build_network(game, blocks=1, channels=8, value_hidden=8).eval()

    return build


@pytest.fixture
def moves_played() -> Callable[[Any, str], Any]:
    """``moves_played(game, "a1 a2 b1")``: the position after those moves, typed as the game reads them."""

    def play(game: Any, moves: str) -> Any:
        state = game.initial_state()
        for text in moves.split():
            state = game.apply(state, game.parse_action(state, text))
        return state

    return play
