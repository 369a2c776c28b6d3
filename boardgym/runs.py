"""Run folders and the files in them: ``runs/<game>/<method>/<run-name>/``.

- ``RunFolder`` is a run's folder: its name under the root, its lock, resume and the refusal to
  overwrite, for every command that writes one; ``check_run_name`` keeps a ``--run-name``
  inside the root.
- ``jsonable`` turns a value into what JSON holds (tuples as lists, numpy scalars unwrapped,
  NaN as null) for the files written there.
- ``atomic_write_bytes`` / ``atomic_write_text`` write a temporary file beside the real name
  and rename it over it, so a crash never leaves half a file; the file gets the permissions
  the umask gives any new file (``0o666 & ~umask``).
- ``RunLock`` is an OS lock on ``<folder>/.lock`` held for the life of a run, so that a second
  process on the same folder is refused; the OS drops it when the holder dies, even by
  ``kill -9``, so it never goes stale. Where there is no ``fcntl`` (Windows) runs go unlocked.
- Checkpoints are ``boardgym.checkpoints``'s (the file names ``CHECKPOINT`` and ``FINAL`` of a
  run folder are here).

"""

from __future__ import annotations

import math
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from boardgym.types import BoardgymError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

RUNS_ROOT = Path("runs")
LOCK_FILE = ".lock"
CHECKPOINT = "checkpoint.pt"
FINAL = "final.pt"


class RunFolder:
    """One run's folder, ``<root>/<game>/<method>/<run-name>/``, for every command that writes
    one (training, evaluate, ladder, grade, the solvers): its name, its lock, the resume check
    and the refusal to overwrite, in one place::

        folder = RunFolder.named(root, "nim", "qlearning", run_name, seed=0)
        with folder.open(resume=False, holds="checkpoint.pt", what="run"):
            ...  # the only writer of folder.path

    ``named`` picks the folder: ``run_name`` (one plain folder name: ``check_run_name``), else
    with ``resume`` the newest folder of that game and method holding ``holds``, else a new
    ``s<seed>-<date>-<time>`` (``-2``, ``-3`` ... if two runs start in the same second).
    ``open`` creates it and takes its lock (a second process on the same folder is refused); a
    default name is made there as a new folder, so that a run beaten to its name by another
    (both named in the same second) takes the next one: ``path`` is final once ``open`` returns.
    With ``resume`` the folder must hold ``holds``, without it the folder must be empty (an
    existing run is never overwritten). ``close`` lets go of the lock; a fresh folder that a
    ``BoardgymError`` (bad input) ended before ``keep`` was called is emptied, so that the same
    ``--run-name`` works once the input is fixed.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.fresh = False
        self._stem = self.path.name
        self._unclaimed = False  # a default name, not yet made ours (``open`` does)
        self._lock: RunLock | None = None
        self._kept = False

    @classmethod
    def named(
        cls,
        root: Path | str,
        game: str,
        method: str,
        run_name: str | None = None,
        *,
        seed: int | None = None,
        resume: bool = False,
        holds: str | None = None,
        default_name: str | None = None,
    ) -> RunFolder:
        base = check_root(root) / game / method
        if run_name is not None:
            return cls(base / check_run_name(run_name))
        if resume and holds is not None:
            found = sorted(base.glob(f"*/{holds}"), key=lambda path: path.stat().st_mtime)
            if not found:
                raise BoardgymError(f"nothing under {str(base)!r} to resume; start a new run without --resume")
            return cls(found[-1].parent)
        if default_name:
            return cls(base / default_name)
        folder = cls(base / f"s{seed if seed is not None else 0}-{time.strftime('%Y%m%d-%H%M%S')}")
        folder._unclaimed = True
        return folder._next_free()

    def _next_free(self) -> RunFolder:
        """The first of ``<name>``, ``<name>-2``, ``<name>-3`` ... not there yet (a default name)."""
        name, number = self._stem, 1
        while self.path.exists():  # two runs started in the same second
            number += 1
            self.path = self.path.with_name(f"{name}-{number}")
        return self

    def _claim(self) -> None:
        """Create a default-named folder as a new folder, taking the next free name if another
        run made one of that name since ``named`` (two runs started in the same second)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            try:
                self.path.mkdir()
            except FileExistsError:
                self._next_free()
                continue
            self._unclaimed = False
            return

    @property
    def name(self) -> str:
        return self.path.name

    def open(
        self, *, resume: bool = False, holds: str | None = None, what: str = "run", resumable: bool = True
    ) -> RunFolder:
        """Create the folder, lock it and check it (see the class doc); on a refusal the lock
        is let go again. ``what`` names what a run folder holds in the refusal, ``resumable``
        whether the command can ``--resume`` (and so says so)."""
        if not self.path.exists():  # a --resume of a name that is not there leaves no folder behind
            self._check_resumable(resume, holds)
        if self._unclaimed and not resume:
            self._claim()
        self.path.mkdir(parents=True, exist_ok=True)
        self._lock = RunLock(self.path).acquire()
        try:
            existing = [path for path in self.path.iterdir() if path.name != LOCK_FILE]
            self._check_resumable(resume, holds)  # again, now that no other process can change it
            if not resume and existing:
                advice = "pass --resume to continue it, or " if resumable else "pass "
                raise BoardgymError(
                    f"run folder {str(self.path)!r} already holds a {what}; {advice}another --run-name for a new one"
                )
        except BaseException:
            self.close()
            raise
        self.fresh = not existing
        return self

    def keep(self) -> None:
        """The run wrote what it must keep (its first checkpoint, its first game): an error
        from now on leaves the folder as it is."""
        self._kept = True

    def close(self, error: BaseException | None = None) -> None:
        lock, self._lock = self._lock, None
        if lock is None:
            return
        try:
            if isinstance(error, BoardgymError) and self.fresh and not self._kept:
                self._clear()
        finally:
            lock.release()

    def __enter__(self) -> RunFolder:
        if self._lock is None:
            self.open()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: Any) -> None:
        self.close(error)

    def _check_resumable(self, resume: bool, holds: str | None) -> None:
        if resume and holds is not None and not (self.path / holds).is_file():
            raise BoardgymError(
                f"--resume: there is no {holds} in {str(self.path)!r} to continue from; check --run-name and "
                "--root, or start a new run without --resume"
            )

    def _clear(self) -> None:
        import shutil

        for path in self.path.iterdir():
            if path.name == LOCK_FILE:
                continue
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)


def check_root(root: Path | str) -> Path:
    """``root`` as a path, or one sentence if it is empty (which would put runs in the current
    folder unannounced)."""
    if not str(root).strip():
        raise BoardgymError("--root is empty; give the folder that holds the runs, e.g. runs")
    return Path(root)


def check_run_name(name: str) -> str:
    """``name`` if it is one plain folder name; else one sentence: a run name may not climb out
    of the runs root (``..``), be absolute, hold a path separator or be empty."""
    if not isinstance(name, str) or not name.strip():
        raise BoardgymError(f"--run-name {name!r} is empty; give a folder name such as 'first-try'")
    separators = {"/", "\\", os.sep, os.altsep or "/"}
    if name in (".", "..") or any(sep in name for sep in separators) or "\0" in name or Path(name).is_absolute():
        raise BoardgymError(
            f"--run-name {name!r} must be one folder name inside the runs root (no '/', '\\', '..' or "
            "absolute path); use --root to put runs elsewhere"
        )
    return name


def os_error_sentence(error: OSError) -> str:
    """One sentence for an error of the operating system (a folder we may not write, a full
    disk): what failed, on which file, and what to try."""
    what = error.strerror or str(error) or type(error).__name__
    where = f" on {str(error.filename)!r}" if error.filename is not None else ""
    return f"{what}{where}; check the folder's permissions and free space, or pass another --root"


# -- atomic writes ------------------------------------------------------------------------------
def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it over ``path``, so a
    crash never leaves a half-written file under the real name. The file's permissions are
    those the umask gives a new file (``mkstemp`` alone would leave it private, 0600)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


def atomic_write_text(path: Path | str, text: str) -> None:
    atomic_write_bytes(path, text.encode())


def current_umask() -> int:
    """The process's umask, read without changing it where the OS tells it (Linux's
    ``/proc/self/status``), else by setting and restoring it."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_folder(folder: Path) -> None:
    """Make a rename durable (POSIX); a no-op where folders cannot be opened."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def jsonable(value: Any) -> Any:
    """``value`` with tuples as lists, keys as text, numpy scalars unwrapped and NaN as null."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value


# -- the run-folder lock ------------------------------------------------------------------------
class RunLock:
    """An exclusive OS lock (``flock``) on ``<folder>/.lock``, held until ``release`` (or the
    process ends, however it ends). A second holder, in this process or another, is refused::

        with RunLock(folder):
            ...  # the only writer of folder
    """

    def __init__(self, folder: Path | str, *, elsewhere: str = "pass another --run-name") -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_FILE
        self.elsewhere = elsewhere  # how the refused caller writes somewhere else
        self._handle: Any = None

    @property
    def held(self) -> bool:
        return self._handle is not None

    def acquire(self) -> RunLock:
        if self._handle is not None:
            return self
        self.folder.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the life of the run
        if fcntl is not None:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.seek(0)
                holder = handle.read().strip()
                handle.close()
                who = f"process {holder}" if holder.isdigit() else "another process"
                raise BoardgymError(
                    f"run folder {str(self.folder)!r} is in use by {who}; wait for that run to end or {self.elsewhere}"
                ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._handle = handle
        return self

    def release(self) -> None:
        """Let go of the lock (the ``.lock`` file stays: removing it would let a process that
        opened it just before lock a file nobody else sees)."""
        handle, self._handle = self._handle, None
        if handle is None:
            return
        try:
            handle.seek(0)
            handle.truncate()
        except OSError:
            pass
        if fcntl is not None:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        handle.close()

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
