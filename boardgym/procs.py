"""Worker processes that never outlive the process that started them: ``WorkerPool``, the one
process pool of the package (self-play workers, the tournament's workers, the solver's
workers, the benchmarks' workers).

A pool ends with its parent however the parent ends:

- **normal end**: ``shutdown`` (or leaving ``with WorkerPool(...)``) lets the workers finish and
  joins them;
- **an error, Ctrl-C**: leaving the ``with`` block by an exception, or ``close()`` while work is
  still pending, stops the workers at once (SIGTERM, then SIGKILL after a grace period) instead
  of waiting for the work they hold. Workers ignore SIGINT: Ctrl-C reaches the whole process
  group, and ending the pool is the parent's to do;
- **SIGTERM to the parent**: while a pool is open in the main thread, SIGTERM (where nobody
  else handles it) raises ``Terminated`` (a ``SystemExit`` with the status 143) in the parent, so
  that the code unwinds, the pool's ``with`` block or ``finally`` stops the workers, and the
  process exits as SIGTERM asked;
- **the parent killed** (``kill -9``, out of memory): every worker runs a daemon thread that
  checks about twice a second that its parent is alive and ends the worker (``os._exit``)
  when it is not.

``child_pids`` lists the live processes whose parent is a given process (from ``/proc``), for
checks that nothing is left behind.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

WATCH_INTERVAL = 0.5
"""Seconds between a worker's checks that its parent is alive."""
GRACE = 5.0
"""Seconds a stopped worker has to end on SIGTERM before it is killed."""
ORPHANED_EXIT = 70
"""A worker's exit status when it ends because its parent has gone."""


class Terminated(SystemExit):
    """SIGTERM, raised in the main thread of a process holding a pool (exit status 143)."""

    def __init__(self) -> None:
        super().__init__(128 + signal.SIGTERM)


class WorkerPool(ProcessPoolExecutor):
    """A ``ProcessPoolExecutor`` whose workers end with it and with their parent (module doc).

    ``start_method`` is multiprocessing's (``spawn``, ``fork``, ``forkserver``; None: the
    platform's default); ``initializer(*initargs)`` runs in each worker once it watches its
    parent. Use it as a context manager, or call ``close()`` on every path (``finally``)."""

    def __init__(
        self,
        workers: int,
        *,
        start_method: str | None = "spawn",
        initializer: Callable[..., Any] | None = None,
        initargs: tuple[Any, ...] = (),
    ) -> None:
        context = multiprocessing.get_context(start_method)
        super().__init__(
            max_workers=workers,
            mp_context=context,
            initializer=_start_worker,
            initargs=(os.getpid(), initializer, tuple(initargs)),
        )
        self._sigterm: _SigtermGuard | None = None  # taken with the first job, when workers start

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if self._sigterm is None:
            self._sigterm = _SigtermGuard()
        return super().submit(fn, *args, **kwargs)

    def pids(self) -> list[int]:
        """The worker processes' ids (workers start with the first job)."""
        return [pid for pid in list(getattr(self, "_processes", None) or {}) if pid is not None]

    def pending(self) -> bool:
        """Whether jobs were submitted that have not finished."""
        return bool(getattr(self, "_pending_work_items", None))

    def terminate(self) -> None:
        """Stop the workers now, whatever they are doing, and wait until they are gone; the
        jobs not finished are cancelled."""
        processes = list((getattr(self, "_processes", None) or {}).values())
        for process in processes:
            if process.is_alive():
                process.terminate()
        deadline = time.monotonic() + GRACE
        for process in processes:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join(GRACE)
        self.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        """End the pool: at once (``terminate``) when work is still pending (an error, Ctrl-C),
        else by letting the workers exit. Safe to call twice."""
        if self.pending():
            self.terminate()
        else:
            self.shutdown(wait=True, cancel_futures=True)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        try:
            super().shutdown(wait=wait, cancel_futures=cancel_futures)
        finally:
            if self._sigterm is not None:
                self._sigterm.release()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if kind is None:
            self.shutdown(wait=True)
        else:
            self.terminate()


class _SigtermGuard:
    """SIGTERM as ``Terminated`` in the main thread while at least one pool is open, where the
    process left SIGTERM at its default (which would end it without unwinding)."""

    _lock = threading.Lock()
    _holders = 0
    _installed = False

    def __init__(self) -> None:
        self._held = False
        if threading.current_thread() is not threading.main_thread():
            return
        with _SigtermGuard._lock:
            if _SigtermGuard._holders == 0 and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
                signal.signal(signal.SIGTERM, _raise_terminated)
                _SigtermGuard._installed = True
            _SigtermGuard._holders += 1
            self._held = True

    def release(self) -> None:
        if not self._held:
            return
        self._held = False
        with _SigtermGuard._lock:
            _SigtermGuard._holders -= 1
            if _SigtermGuard._holders == 0 and _SigtermGuard._installed:
                _SigtermGuard._installed = False
                if threading.current_thread() is threading.main_thread():
                    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated()


@contextmanager
def sigterm_as_exit() -> Iterator[None]:
    """Within the block, SIGTERM to this process raises ``Terminated`` in the main thread (where
    SIGTERM is at its default), so that ``finally`` blocks and context managers run."""
    guard = _SigtermGuard()
    try:
        yield
    finally:
        guard.release()


def _start_worker(parent: int, initializer: Callable[..., Any] | None, initargs: tuple[Any, ...]) -> None:
    """A worker's first act: ignore Ctrl-C, take SIGTERM's default back (a forked worker
    inherits the parent's handler), watch the parent, then the pool's own initializer."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    watch_parent(parent)
    if initializer is not None:
        initializer(*initargs)


def watch_parent(parent: int, interval: float = WATCH_INTERVAL) -> threading.Thread:
    """Start a daemon thread that ends this process (``os._exit``) once ``parent`` is gone: the
    process that was its parent is no longer (its parent id changed), or ``parent`` no longer
    exists. ``parent`` may be a grandparent (a worker started by the forkserver)."""
    first = os.getppid()

    def gone() -> bool:
        if os.getppid() != first:
            return True
        if first == parent:
            return False
        return not _alive(parent)

    def watch() -> None:
        while True:
            time.sleep(interval)
            try:
                if gone():
                    os._exit(ORPHANED_EXIT)
            except MemoryError:  # a worker at its memory cap (the play page's): look again
                continue

    if gone():
        os._exit(ORPHANED_EXIT)
    thread = threading.Thread(target=watch, name="boardgym-watch-parent", daemon=True)
    thread.start()
    return thread


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _state(pid) not in (None, "Z", "X")


def _state(pid: int) -> str | None:
    """The state letter of ``pid`` in ``/proc`` (``R``, ``S``, ``Z`` ...), or None."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rfind(")") + 2 :].split(" ", 1)[0]


def process_alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie, dead but not yet reaped, is not)."""
    return _alive(pid)


def child_pids(parent: int | None = None) -> list[int]:
    """The live processes whose parent is ``parent`` (default: this process), from ``/proc``
    (empty where there is no ``/proc``)."""
    parent = os.getpid() if parent is None else parent
    found = []
    try:
        entries = list(Path("/proc").iterdir())
    except OSError:
        return []
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue
        fields = text[text.rfind(")") + 2 :].split()
        if len(fields) > 1 and fields[0] not in ("Z", "X") and int(fields[1]) == parent:
            found.append(int(entry.name))
    return sorted(found)
