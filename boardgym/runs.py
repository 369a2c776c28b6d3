"""Run folders and the files in them: ``runs/<game>/<method>/<run-name>/``, written
atomically (a temporary file renamed over the real name, so a crash never leaves half a file),
and checkpoints saved with ``torch.save`` and loaded with ``weights_only=True`` (no pickle).
"""

from __future__ import annotations

import io
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from boardgym.types import BoardgymError

RUNS_ROOT = Path("runs")


def run_dir(
    game: str, method: str, run_name: str | None = None, seed: int | None = None, root: Path | str = RUNS_ROOT
) -> Path:
    """``runs/<game>/<method>/<run-name>/``; the default name is ``<seed>-<date>-<time>``."""
    if not run_name:
        run_name = f"s{seed if seed is not None else 0}-{time.strftime('%Y%m%d-%H%M%S')}"
    path = Path(root) / game / method / run_name
    path.mkdir(parents=True, exist_ok=True)
    return path


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it over ``path``, so a
    crash never leaves a half-written file under the real name."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path | str, text: str) -> None:
    atomic_write_bytes(path, text.encode())


def save_checkpoint(path: Path | str, payload: dict[str, Any]) -> Path:
    """``torch.save`` atomically. Keep the payload to tensors, numbers, strings, lists and
    dicts so that ``load_checkpoint`` can read it with ``weights_only=True``."""
    import torch

    buffer = io.BytesIO()
    torch.save(payload, buffer)
    atomic_write_bytes(path, buffer.getvalue())
    return Path(path)


def load_checkpoint(path: Path | str, map_location: str = "cpu") -> dict[str, Any]:
    """Load a checkpoint without unpickling arbitrary objects; one clear error if it is
    missing or unreadable."""
    import torch

    path = Path(path)
    if not path.is_file():
        raise BoardgymError(
            f"checkpoint {str(path)!r} does not exist; pass the path of a file written by `boardgym train`"
        )
    try:
        payload = torch.load(path, map_location=map_location, weights_only=True)
    except Exception as error:  # torch raises many kinds for a corrupt or foreign file
        raise BoardgymError(
            f"checkpoint {str(path)!r} cannot be read ({type(error).__name__}); it is corrupt or not a boardgym checkpoint: "
            "retrain or pass another file"
        ) from None
    if not isinstance(payload, dict):
        raise BoardgymError(f"checkpoint {str(path)!r} is not a boardgym checkpoint (expected a dict)")
    return payload
