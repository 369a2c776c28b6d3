"""Fixtures shared by several test folders."""

from __future__ import annotations

import logging
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

TEST_PROCESS = "BOARDGYM_TEST_PROCESS"
"""Set to the id of each pytest process (the controller and each xdist worker), so that every
process started under it, however deep and even once orphaned, carries that id in its
environment (``/proc/<pid>/environ``)."""
LEFT_WITHIN = 20.0  # seconds the session's own processes have to end once its tests are done
OURS_TILL_EXIT = (b"from multiprocessing.forkserver import", b"from multiprocessing.resource_tracker import")
"""Children that live as long as the test process by design and end with it: multiprocessing's
forkserver and resource tracker."""

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


def random_live_positions(game: Any, count: int, most: int, seed: int) -> list[Any]:
    """``count`` positions not over, each after up to ``most`` uniformly random moves."""
    import numpy as np

    rng = np.random.default_rng(seed)
    positions: list[Any] = []
    while len(positions) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(most + 1))):
            legal = game.legal_actions(state)
            state = game.apply(state, legal[int(rng.integers(len(legal)))])
            if game.is_terminal(state):
                break
        if not game.is_terminal(state):
            positions.append(state)
    return positions


@pytest.fixture
def random_positions() -> Callable[[Any, int, int, int], list[Any]]:
    """``random_positions(game, count, most, seed)``: ``count`` positions not over, each after
    up to ``most`` uniformly random moves drawn from ``seed``."""
    return random_live_positions


@pytest.fixture
def moves_played() -> Callable[[Any, str], Any]:
    """``moves_played(game, "a1 a2 b1")``: the position after those moves, typed as the game reads them."""

    def play(game: Any, moves: str) -> Any:
        state = game.initial_state()
        for text in moves.split():
            state = game.apply(state, game.parse_action(state, text))
        return state

    return play


def pytest_configure(config: pytest.Config) -> None:
    os.environ[TEST_PROCESS] = str(os.getpid())


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def processes_left_behind() -> dict[int, str]:
    """The live processes this test process started, directly or not, and that are still
    running (their command lines by id): its children, and any process whose environment names
    this process in ``BOARDGYM_TEST_PROCESS`` (an orphaned grandchild too)."""
    me = os.getpid()
    mark = f"{TEST_PROCESS}={me}".encode()
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        stat = _read(entry / "stat")
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) < 2 or fields[0] in (b"Z", b"X"):
            continue
        command = _read(entry / "cmdline")
        child = int(fields[1]) == me
        if child and any(part in command for part in OURS_TILL_EXIT):
            continue
        if child or mark in _read(entry / "environ").split(b"\0"):
            found[int(entry.name)] = command.replace(b"\0", b" ").decode(errors="replace")[:200]
    return found


@pytest.fixture(scope="session", autouse=True)
def no_process_left_behind() -> Iterator[None]:
    """Fail the session, loudly, when processes its tests started outlive them (worker pools
    never shut down, workers of a killed parent); they are then killed, not left running."""
    yield
    deadline = time.monotonic() + LEFT_WITHIN
    left = processes_left_behind()
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = processes_left_behind()
    if not left:
        return
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    listing = "\n".join(f"  {pid}: {command}" for pid, command in sorted(left.items()))
    pytest.fail(
        f"{len(left)} process(es) started by the tests outlived them by {LEFT_WITHIN:.0f} s (now killed):\n{listing}",
        pytrace=False,
    )
