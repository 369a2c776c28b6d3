"""Run folders and the files in them: ``runs/<game>/<method>/<run-name>/``.

- ``RunFolder`` is a run's folder: its name under the root, its lock, resume and the refusal to
  overwrite, for every command that writes one; ``check_run_name`` keeps a ``--run-name``
  inside the root.
- ``atomic_write_bytes`` / ``atomic_write_text`` write a temporary file beside the real name
  and rename it over it, so a crash never leaves half a file; the file gets the permissions
  the umask gives any new file (``0o666 & ~umask``).
- ``RunLock`` is an OS lock on ``<folder>/.lock`` held for the life of a run, so that a second
  process on the same folder is refused; the OS drops it when the holder dies, even by
  ``kill -9``, so it never goes stale. Where there is no ``fcntl`` (Windows) runs go unlocked.
- Checkpoints: ``save_checkpoint(path, payload, format=..., game=...)`` stamps the payload
  with its ``format`` (one tag per method, e.g. ``boardgym.tabular/1``) and the game's
  signature (``game_signature``); ``load_checkpoint`` is the one loader every learned agent and
  every ``--resume`` uses: ``torch.load(weights_only=True)`` (no pickle), then the format, the
  game and the required keys are checked, each failure one sentence saying what to do.

This module reads games duck-typed (``name`` and ``params()``): it sits below the games layer.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from boardgym.types import BoardgymError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

RUNS_ROOT = Path("runs")
LOCK_FILE = ".lock"
CHECKPOINT = "checkpoint.pt"
FINAL = "final.pt"

LEGACY_FORMATS: dict[str, str] = {"boardgym-alphazero-v1": "boardgym.alphazero/1"}
"""Format tags of checkpoints written before the tags were unified, and the tag each one
reads as now (the contents did not change)."""


class NamedGame(Protocol):
    """What the run layer needs of a game: its registry name and constructor parameters."""

    name: str

    def params(self) -> dict[str, Any]: ...


# -- run folders --------------------------------------------------------------------------------
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
    ``open`` creates it and takes its lock (a second process on the same folder is refused);
    with ``resume`` the folder must hold ``holds``, without it the folder must be empty (an
    existing run is never overwritten). ``close`` lets go of the lock; a fresh folder that a
    ``BoardgymError`` (bad input) ended before ``keep`` was called is emptied, so that the same
    ``--run-name`` works once the input is fixed.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.fresh = False
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
        name = default_name or f"s{seed if seed is not None else 0}-{time.strftime('%Y%m%d-%H%M%S')}"
        path, number = base / name, 1
        while not default_name and path.exists():  # two runs started in the same second
            number += 1
            path = base / f"{name}-{number}"
        return cls(path)

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


# -- the run-folder lock ------------------------------------------------------------------------
class RunLock:
    """An exclusive OS lock (``flock``) on ``<folder>/.lock``, held until ``release`` (or the
    process ends, however it ends). A second holder, in this process or another, is refused::

        with RunLock(folder):
            ...  # the only writer of folder
    """

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_FILE
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
                    f"run folder {str(self.folder)!r} is in use by {who}; wait for that run to end "
                    "or pass another --run-name"
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


# -- checkpoints --------------------------------------------------------------------------------
def game_signature(game: NamedGame) -> str:
    """The game and its parameters as JSON, stamped in checkpoints and checked on load."""
    params = {k: (list(v) if isinstance(v, tuple) else v) for k, v in game.params().items()}
    return json.dumps({"game": game.name, "params": params}, sort_keys=True)


def retrain_command(method: str, game: NamedGame | None) -> str:
    """``boardgym train METHOD --game GAME -p KEY=VALUE ...`` for ``game``."""
    if game is None:
        return f"boardgym train {method} --game GAME"
    params = "".join(
        f" -p {k}={','.join(map(str, v)) if isinstance(v, (tuple, list)) else v}" for k, v in game.params().items()
    )
    return f"boardgym train {method} --game {game.name}{params}"


def save_checkpoint(path: Path | str, payload: dict[str, Any], *, format: str, game: NamedGame | None) -> Path:
    """``torch.save`` atomically, stamped with ``format`` and ``game_signature(game)`` (no game
    stamp with ``game=None``, for files that are not tied to one). Keep the payload to tensors,
    numbers, strings, lists and dicts so that ``load_checkpoint`` reads it with
    ``weights_only=True``."""
    import torch

    stamped = {**payload, "format": format}
    if game is not None:
        stamped["game_signature"] = game_signature(game)
    buffer = io.BytesIO()
    torch.save(stamped, buffer)
    atomic_write_bytes(path, buffer.getvalue())
    return Path(path)


def load_checkpoint(
    path: Path | str | None,
    *,
    format: str | None = None,
    game: NamedGame | None = None,
    required: Iterable[str] = (),
    method: str | None = None,
    agent: str | None = None,
    what: str = "checkpoint",
    map_location: str = "cpu",
) -> dict[str, Any]:
    """The payload of a checkpoint written by ``save_checkpoint``, read without unpickling any
    object, after checking (when given) its ``format`` tag, that it was trained on ``game``,
    and that it holds the ``required`` keys. Every failure is one ``BoardgymError`` sentence
    that names the file and says what to do; ``method`` names the training method in the
    advice to retrain, ``agent`` the agent spec that was not given a ``path`` (None), ``what``
    the kind of file in the messages."""
    import torch

    retrain = retrain_command(method or "METHOD", game)
    if path is None:
        agent = agent or method or "learned"
        example = f"runs/{game.name if game is not None else '<game>'}/{method or '<method>'}/<run>/final.pt"
        raise BoardgymError(
            f"the {agent} agent needs checkpoint=PATH, a file written by training such as "
            f"{agent}:checkpoint={example} (train one with `{retrain}`)"
        )
    path = Path(path)
    name = f"{what} {str(path)!r}"
    if not path.exists():
        raise BoardgymError(
            f"{name} does not exist; pass the path of a final.pt or checkpoint.pt written by `boardgym train`"
        )
    if path.is_dir():
        raise BoardgymError(f"{name} is a folder; pass the final.pt or checkpoint.pt inside it")
    if not path.is_file():
        raise BoardgymError(
            f"{name} is not a regular file; pass a final.pt or checkpoint.pt written by `boardgym train`"
        )
    try:
        size = path.stat().st_size
        if size == 0:
            raise BoardgymError(
                f"{name} is empty (0 bytes), cut off by an interrupted copy or a full disk; copy it again or retrain with `{retrain}`"
            )
        payload = torch.load(path, map_location=map_location, weights_only=True)
    except BoardgymError:
        raise
    except OSError as error:  # the file is fine, we may not read it (another user's, a lost mount)
        if error.errno is None:  # not the operating system's error: torch's own about the content
            raise BoardgymError(
                f"{name} cannot be read ({type(error).__name__}): it is corrupt or not a boardgym checkpoint; "
                f"pass another file or retrain with `{retrain}`"
            ) from None
        raise BoardgymError(
            f"{name} cannot be opened: {error.strerror or error}; the file is there but this user may not read "
            "it: ask its owner to make it readable (chmod a+r) or copy it"
        ) from None
    except Exception as error:  # torch raises many kinds for a corrupt or foreign file
        reason = type(error).__name__
        raise BoardgymError(
            f"{name} cannot be read ({reason}): it is corrupt or not a boardgym checkpoint; "
            f"pass another file or retrain with `{retrain}`"
        ) from None
    if not isinstance(payload, dict):
        raise BoardgymError(f"{name} is not a boardgym checkpoint (it holds no dict); retrain with `{retrain}`")
    payload = _upgrade(payload)
    if format is not None and payload.get("format") != format:
        found = payload.get("format")
        if isinstance(found, str) and found.rpartition("/")[0] == format.rpartition("/")[0]:
            raise BoardgymError(
                f"{name} is in format {found}, which this version of boardgym no longer reads ({format}); "
                f"retrain with `{retrain}`"
            )
        raise BoardgymError(
            f"{name} is not a {format} checkpoint (its format is {found!r}); pass a file written by "
            f"`boardgym train {method or 'METHOD'}`, or retrain with `{retrain}`"
        )
    # The file is of the right kind: the method that wrote it knows best how to retrain it.
    written_by = payload.get("method")
    retrain = retrain_command(written_by if isinstance(written_by, str) and written_by else method or "METHOD", game)
    if game is not None:
        saved = payload.get("game_signature")
        if saved is None:
            raise BoardgymError(f"{name} does not say which game it was trained on; retrain with `{retrain}`")
        if saved != game_signature(game):
            raise BoardgymError(
                f"{name} was trained on {_describe(saved)}, not on {_describe(game_signature(game))}; "
                f"pass the same game and parameters, or retrain with `{retrain}`"
            )
    missing = [key for key in required if key not in payload]
    if missing:
        raise BoardgymError(
            f"{name} lacks {', '.join(missing)}: it was written by an older boardgym or another method; "
            f"retrain with `{retrain}`"
        )
    return payload


CONTENT_ERRORS = (KeyError, IndexError, TypeError, ValueError, RuntimeError, AttributeError, OverflowError)
"""What building an agent or a training state from a payload of the wrong shape raises."""


@contextmanager
def checkpoint_content(
    path: Path | str | None, *, method: str | None = None, game: NamedGame | None = None, what: str = "checkpoint"
) -> Iterator[None]:
    """Build something from a checkpoint's payload inside this block: a payload in the right
    format whose content does not fit (a key missing deep inside, a value of the wrong type,
    weights that do not match the architecture, non-finite weights) becomes one sentence
    naming the file and how to retrain, instead of the ``KeyError``/``RuntimeError`` of the
    code that read it. ``load_checkpoint`` checks the envelope; this checks the letter::

        payload = load_checkpoint(path, format=FORMAT, game=game, required=("policy",))
        with checkpoint_content(path, method="ppo", game=game):
            policy.load_state_dict(payload["policy"])
    """
    try:
        yield
    except BoardgymError as error:
        if path is None or str(path) in str(error):
            raise
        raise BoardgymError(f"{what} {str(path)!r}: {error}") from None
    except CONTENT_ERRORS as error:
        reason = (str(error).strip().splitlines() or [""])[0].strip()
        reason = reason if len(reason) <= 100 else reason[:97] + "..."
        detail = f"{type(error).__name__}: {reason}" if reason else type(error).__name__
        raise BoardgymError(
            f"{what} {str(path)!r} is damaged: its content does not fit ({detail}); pass another file or "
            f"retrain with `{retrain_command(method or 'METHOD', game)}`"
        ) from None


def check_finite(values: Any, name: str) -> None:
    """A ``ValueError`` (for ``checkpoint_content``) when ``values`` (a tensor, an array, a
    number or a dict of tensors) holds a NaN or an infinity: weights that would play nonsense."""
    import math

    import torch

    items = values.values() if isinstance(values, dict) else [values]
    for item in items:
        if torch.is_tensor(item):
            if item.is_floating_point() and not bool(torch.isfinite(item).all()):
                raise ValueError(f"{name} holds NaN or infinite numbers")
        elif isinstance(item, float) and not math.isfinite(item):
            raise ValueError(f"{name} holds NaN or infinite numbers")


def _upgrade(payload: dict[str, Any]) -> dict[str, Any]:
    """Read checkpoints of older versions as the current ones: renamed format tags, and the
    separate ``game`` / ``game_params`` keys that AlphaZero checkpoints used to carry."""
    found = payload.get("format")
    if isinstance(found, str) and found in LEGACY_FORMATS:
        payload["format"] = LEGACY_FORMATS[found]
    if "game_signature" not in payload and isinstance(payload.get("game"), str):
        try:
            params = json.loads(payload.get("game_params") or "{}")
        except (TypeError, ValueError):
            params = None
        if isinstance(params, dict):
            payload["game_signature"] = json.dumps({"game": payload["game"], "params": params}, sort_keys=True)
    return payload


def _describe(signature: Any) -> str:
    """``nim heaps=2,3`` for a game signature (the raw text if it is not one)."""
    try:
        parsed = json.loads(signature)
        params = " ".join(
            f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}" for k, v in parsed["params"].items()
        )
        return f"{parsed['game']} {params}".strip()
    except (TypeError, ValueError, KeyError, AttributeError):
        return repr(signature)
