"""Ray, the optional backend that plays tournaments and AlphaZero self-play beyond one machine.

``connect_ray(address)`` joins a Ray cluster, or starts a Ray on this machine, for one run;
``close()`` on what it returns leaves again (and stops the Ray it started). The backends
(tournaments through ``imap_chunks``, ``boardgym.train.alphazero.ray_actors``) take their
Ray from here, so the words a user types after ``--address`` mean the same in both:

- no address: the cluster named by ``RAY_ADDRESS`` when that is set, else a Ray started on
  this machine for the run (``num_cpus`` workers) and stopped at its end;
- ``local``: a Ray started on this machine for the run, whatever ``RAY_ADDRESS`` says;
- ``auto``: the cluster that ``ray start --head`` began on this machine;
- ``HOST:PORT``: the head node of a cluster (port 6379 by default), run from a machine of it;
- ``ray://HOST:10001``: Ray Client, from a machine outside the cluster (needs ``ray[client]``).

A Ray already initialised in this process (by the caller, or a test) is used as it is and
left running. Ray is an extra: ``pip install 'boardgym[ray]'``; without it every entry point
here says so in one sentence. docs/cluster.md has the recipe for a cluster.
"""

from __future__ import annotations

import logging
import os
import pickle
import socket
import sys
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any, TypeVar

from boardgym.types import BoardgymError

T = TypeVar("T")

INSTALL_HINT = "pip install 'boardgym[ray]'"
MAX_RETRIES = 3
"""How often Ray runs a task again whose worker process died (``imap_chunks``)."""


class RayLost(BoardgymError):
    """Ray itself stopped under a run: one of its system processes died (the raylet of this
    machine, the GCS, a node). The command that ran adds ``resume``, how to go on from what the
    run kept; the error reads as one sentence either way."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what
        self.resume = ""

    def __str__(self) -> str:
        return f"{self.what}; {self.resume}" if self.resume else self.what


_LOST = {
    "LocalRayletDiedError": "the Ray process of this machine (its raylet) died",
    "NodeDiedError": "a Ray node died (the raylet of a machine of the cluster, or of this one)",
    "OwnerDiedError": "the Ray worker that held the run's data died",
    "RaySystemError": "a Ray system process failed",
    "RpcError": "Ray's processes stopped answering",
}


@contextmanager
def ray_system_errors(ray: Any) -> Iterator[None]:
    """Turn the errors Ray raises when one of its own processes died into ``RayLost``, one
    sentence instead of Ray's pages of traceback."""
    errors = tuple(getattr(ray.exceptions, name) for name in _LOST if hasattr(ray.exceptions, name))
    try:
        yield
    except errors as error:
        what = next(text for name, text in _LOST.items() if _is(error, ray, name))
        raise RayLost(f"Ray stopped under the run: {what} ({type(error).__name__})") from None


def _is(error: BaseException, ray: Any, name: str) -> bool:
    kind = getattr(ray.exceptions, name, None)
    return kind is not None and isinstance(error, kind)


def say_once(said: set[str], key: str, line: str, say: Callable[[str], object] | None = None) -> None:
    """``line`` on stderr (or through ``say``) the first time ``key`` comes up in ``said``."""
    if key in said:
        return
    said.add(key)
    if say is not None:
        say(line)
    else:
        print(line, file=sys.stderr, flush=True)


def import_ray() -> ModuleType:
    """The ``ray`` module, or one sentence on how to install it."""
    try:
        import ray
    except ImportError:
        raise BoardgymError(
            f"the ray backend needs Ray, which is not installed here; {INSTALL_HINT} (or use --backend local)"
        ) from None
    return ray


def check_address(address: str | None) -> str | None:
    """``address`` stripped, or one sentence when it cannot name a cluster."""
    if address is None:
        return None
    if not isinstance(address, str) or not address.strip():
        raise BoardgymError(
            f"--address {address!r} names no Ray cluster; give auto, HOST:PORT or ray://HOST:PORT, "
            "or leave it out to start Ray on this machine"
        )
    address = address.strip()
    if address in ("auto", "local"):
        return address
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise BoardgymError(
            f"--address {address!r} is not a Ray address; give auto, HOST:PORT (the head node, port 6379 by "
            "default) or ray://HOST:10001 (Ray Client)"
        )
    return address


class RaySession:
    """Ray, joined or started for one run (see the module docstring); ``close`` leaves it."""

    def __init__(self, address: str | None = None, *, num_cpus: int | None = None) -> None:
        self.address = check_address(address)
        if num_cpus is not None and num_cpus < 1:
            raise BoardgymError(f"num_cpus={num_cpus} must be at least 1")
        self.ray = import_ray()
        self.owned = False
        if self.ray.is_initialized():
            return
        options: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": True}
        starts_here = self.address in (None, "local") and not (self.address is None and os.environ.get("RAY_ADDRESS"))
        if starts_here:
            options.update(include_dashboard=False, num_cpus=num_cpus)
        elif self.address not in (None, "auto"):
            _check_reachable(self.address)
        try:
            self.ray.init(address=self.address, **options)
        except (ConnectionError, ValueError, TimeoutError) as error:
            where = self.address or os.environ.get("RAY_ADDRESS") or "this machine"
            reason = (str(error).splitlines() or [type(error).__name__])[0]
            raise BoardgymError(
                f"cannot reach a Ray cluster at {where!r} ({reason}); start one with `ray start --head` "
                "(docs/cluster.md), check --address, or leave it out to start Ray here"
            ) from None
        self.owned = True

    def resources(self) -> dict[str, float]:
        """What the cluster has in all: ``CPU``, ``GPU``, memory ..."""
        return {str(k): float(v) for k, v in self.ray.cluster_resources().items()}

    def close(self) -> None:
        """Leave Ray; stop it if this session started it."""
        if self.owned and self.ray.is_initialized():
            self.ray.shutdown()
        self.owned = False

    def __enter__(self) -> RaySession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check_reachable(address: str, timeout: float = 10.0) -> None:
    """Fail in seconds, not minutes, when nothing listens at ``HOST:PORT`` (Ray itself retries
    an unreachable head for a long time)."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except (OSError, ValueError) as error:
        raise BoardgymError(
            f"nothing answers at --address {address!r} ({error}); start the head with `ray start --head` "
            "(docs/cluster.md), check the host and port, or leave --address out to start Ray here"
        ) from None


def connect_ray(address: str | None = None, *, num_cpus: int | None = None) -> RaySession:
    """Join the Ray cluster at ``address`` or start one here (see the module docstring)."""
    return RaySession(address, num_cpus=num_cpus)


def gpu_share(cluster_gpus: float, actors: int, device: str) -> float:
    """The fraction of a GPU each of ``actors`` self-play actors asks Ray for: none on
    ``--worker-device cpu`` (the default) or a cluster without GPUs, else the cluster's GPUs shared evenly, at most
    one each (Ray then places an actor only where its share is free and hands it that GPU)."""
    if device == "cpu" or cluster_gpus <= 0 or actors < 1:
        return 0.0
    return min(1.0, cluster_gpus / actors)


def imap_chunks(
    function: Callable[..., list[T]],
    shared: Any,
    items: Sequence[Any],
    *,
    args: tuple[Any, ...] = (),
    address: str | None = None,
    num_cpus: int | None = None,
    max_retries: int = MAX_RETRIES,
    what: str = "the work",
    say: Callable[[str], object] | None = None,
) -> Generator[T, None, None]:
    """``function(shared, chunk, *args)`` as Ray tasks over short chunks of ``items``; yields
    the items of each returned list as its task finishes (in completion order).

    ``shared`` (named ``what`` in an error) goes to the object store once and is handed to
    every task. A task whose worker process dies (killed, out of memory) is run again, up to
    ``max_retries`` times, from the start of its chunk: a chunk's results come back all
    together or not at all. The first such retry is said once, on stderr (or through ``say``).
    An error the function raises fails the run at once (no retry: it would raise again), a
    ``BoardgymError`` as its own sentence; a Ray system process that dies is ``RayLost``, one
    sentence. Closing the generator cancels the tasks still running and leaves Ray
    (``RaySession.close``). ``function`` is sent by reference: its module must be importable
    on every node."""
    if not items:
        return
    session = connect_ray(address, num_cpus=num_cpus)
    ray = session.ray
    pending: dict[Any, tuple[Sequence[Any], int]] = {}  # task -> (its chunk, attempts so far)
    said: set[str] = set()
    try:
        with ray_system_errors(ray):
            try:
                shared_ref = ray.put(shared)
            except (TypeError, pickle.PicklingError, AttributeError):
                raise BoardgymError(
                    f"cannot send {what} to the Ray workers ({_pickling_error(ray, shared)}); every part must pickle"
                ) from None
            task = ray.remote(num_cpus=1, max_retries=0)(function)  # retried here, to say so
            cpus = max(1, int(session.resources().get("CPU", 1)))
            size = max(1, min(16, len(items) // (cpus * 16)))  # steady progress, little to play again
            for i in range(0, len(items), size):
                chunk = items[i : i + size]
                pending[task.remote(shared_ref, chunk, *args)] = (chunk, 1)
        while pending:
            with ray_system_errors(ray):
                ready, _ = ray.wait(list(pending), num_returns=1)
                ref = ready[0]
                chunk, attempts = pending.pop(ref)
                try:
                    results = _task_result(ray, ref, attempts, max_retries)
                except _WorkerDied as died:
                    say_once(
                        said,
                        "retry",
                        f"a Ray worker died while running a task ({died.reason}); Ray runs it again from the start "
                        f"of its chunk (up to {max_retries} times), so no result is lost or counted twice",
                        say,
                    )
                    pending[task.remote(shared_ref, chunk, *args)] = (chunk, attempts + 1)
                    continue
            yield from results
    finally:
        for ref in pending:
            try:
                ray.cancel(ref, force=True)
            except ray.exceptions.RayError:  # Ray itself is gone: nothing left to cancel
                break
        session.close()


def _pickling_error(ray: Any, value: Any) -> str:
    """Why ``value`` does not pickle, in one line (Ray's own message is a page)."""
    try:
        ray.cloudpickle.dumps(value)
    except Exception as error:  # whatever pickling raised is the reason
        return str(error).splitlines()[0] if str(error) else type(error).__name__
    return "it pickles here, but not in Ray's serializer"


class _WorkerDied(Exception):
    """A task's worker process died and the task may run again."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _task_result(ray: Any, ref: Any, attempts: int, max_retries: int) -> list[Any]:
    try:
        return list(ray.get(ref))
    except ray.exceptions.RayTaskError as error:
        if isinstance(error.cause, BoardgymError):
            raise BoardgymError(str(error.cause)) from None
        raise
    except (ray.exceptions.WorkerCrashedError, ray.exceptions.OutOfMemoryError) as error:
        if attempts <= max_retries:
            raise _WorkerDied(type(error).__name__) from None
        raise BoardgymError(
            f"the Ray worker running one task died on every attempt ({max_retries + 1}); the Ray logs "
            "(/tmp/ray/session_latest/logs on each node) say why"
        ) from None
