"""Run as a child by ``test_fuzz_loader_memory.py``: feed every network loader random
architectures, tensor shapes, strides, storage sizes and damaged bytes, and print one JSON
line: the cases tried, how many loaded, the largest file, the peak resident memory before and
after (``ru_maxrss``), and anything other than a ``BoardgymError`` that escaped.

Usage: ``python loader_memory_probe.py FOLDER SEED CASES``."""

from __future__ import annotations

import io
import itertools
import json
import os
import resource
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from boardgym import BoardgymError, make_agent, make_game
from boardgym.agents.alphazero.agent import FORMAT as ALPHAZERO
from boardgym.agents.alphazero.network import build_network
from boardgym.agents.torch_policy import FORMAT as TORCH_POLICY
from boardgym.checkpoints import save_checkpoint

GAME = make_game("tictactoe")


class RunsCode:
    """Unpickling this would create the marker folder: what a malicious file does."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (os.mkdir, (self.marker,))


def peak_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


CLEAN = [False]
"""Whether this case's tensors are all stored as themselves (about a third of the cases)."""


def tensor(rng: np.random.Generator, shape: tuple[int, ...]) -> torch.Tensor:
    """A tensor of ``shape``: its own storage when small, else (or at random) a view of a few
    elements: expanded (stride 0), as_strided over a small storage, transposed or sliced."""
    numel = int(np.prod(shape)) if shape else 1
    how = 4 if CLEAN[0] and numel <= 50_000 else rng.integers(5) if numel <= 50_000 else rng.choice([0, 1])
    dtype = [torch.float32, torch.float16, torch.int64][rng.integers(3)] if rng.random() < 0.1 else torch.float32
    if how == 0:
        return torch.zeros((), dtype=dtype).expand(shape)
    if how == 1:
        storage = torch.randn(int(rng.integers(1, 64))).to(dtype)
        strides = tuple(int(s) for s in rng.integers(0, 3, size=len(shape)))
        span = 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True)) if numel else 0
        if span > len(storage):
            return torch.zeros((), dtype=dtype).expand(shape)
        return storage.as_strided(shape, strides)
    if how == 2 and len(shape) == 2:
        return torch.randn(shape[::-1]).to(dtype).t()
    if how == 3 and shape:
        return torch.randn(shape[0] * 2, *shape[1:]).to(dtype)[::2]
    return torch.randn(shape).to(dtype)


def width(rng: np.random.Generator) -> int:
    if CLEAN[0]:
        return int(rng.choice([1, 3, 9, 18, 64]))
    return int(rng.choice([1, 3, 9, 18, 64, 1000, 70_000, 10**6, 10**8, -4, 0]))


def torch_policy(rng: np.random.Generator, folder: Path, index: int) -> tuple[Path, str]:
    sizes = [18, *(width(rng) for _ in range(rng.integers(0, 3))), 9]
    shapes = [(max(b, 1), max(a, 1)) for a, b in itertools.pairwise(sizes)]
    weights: dict[str, Any] = {}
    for layer, shape in enumerate(shapes):
        weights[f"{layer}.weight"] = tensor(rng, shape)
        weights[f"{layer}.bias"] = tensor(rng, shape[:1])
    declared: Any = (
        sizes if CLEAN[0] or rng.random() < 0.8 else [int(rng.integers(1, 10**9)) for _ in range(rng.integers(0, 200))]
    )
    payload = {"architecture": {"kind": "mlp", "sizes": declared, "activation": "ReLU"}, "weights": weights}
    path = save_checkpoint(folder / f"torch-{index}.pt", payload, format=TORCH_POLICY, game=GAME)
    return path, f"torch:checkpoint={path}"


def tianshou(rng: np.random.Generator, folder: Path, index: int) -> tuple[Path, str]:
    sizes = [18, *(width(rng) for _ in range(rng.integers(0, 3))), 9]
    state: dict[str, Any] = {}
    for layer, (a, b) in enumerate(itertools.pairwise(sizes)):
        state[f"model.model.model.{2 * layer}.weight"] = tensor(rng, (max(b, 1), max(a, 1)))
        state[f"model.model.model.{2 * layer}.bias"] = tensor(rng, (max(b, 1),))
    path = folder / f"tianshou-{index}.pth"
    torch.save(state, path)
    return path, f"tianshou:checkpoint={path}"


def alphazero(rng: np.random.Generator, folder: Path, index: int) -> tuple[Path, str]:
    blocks = int(rng.choice([0, 1, 2] if CLEAN[0] else [0, 1, 2, 64, 65, 10**7]))
    channels = int(rng.choice([1, 4, 32] if CLEAN[0] else [1, 4, 32, 1024, 4096]))
    with torch.device("meta"):
        shaped = build_network(GAME, blocks=min(blocks, 2), channels=min(channels, 1024))
    state = {key: tensor(rng, tuple(value.shape)) for key, value in shaped.state_dict().items()}
    architecture = {**shaped.architecture(), "blocks": blocks, "channels": channels}
    if rng.random() < 0.2 and not CLEAN[0]:
        architecture["observation_shape"] = [int(rng.integers(-2, 5000)) for _ in range(rng.integers(0, 5))]
    payload = {"architecture": architecture, "state_dict": state}
    path = save_checkpoint(folder / f"az-{index}.pt", payload, format=ALPHAZERO, game=GAME)
    return path, f"alphazero:checkpoint={path}"


def damage(rng: np.random.Generator, path: Path) -> None:
    """Cut the file short, flip some bytes, or raise a storage's declared element count."""
    data = path.read_bytes()
    how = rng.integers(3)
    if how == 0:
        path.write_bytes(data[: int(rng.integers(0, len(data)))])
    elif how == 1:
        flipped = bytearray(data)
        for at in rng.integers(0, len(data), size=8):
            flipped[at] ^= 0xFF
        path.write_bytes(bytes(flipped))
    else:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            entries = {name: archive.read(name) for name in archive.namelist()}
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
            for name, content in entries.items():
                if name.endswith("data.pkl"):  # BININT1/BININT2 counts become 10**9
                    content = content.replace(b"K\x01", b"J" + (10**9).to_bytes(4, "little"))
                archive.writestr(name, content)
        path.write_bytes(out.getvalue())


def main() -> None:
    folder, seed, cases = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    rng = np.random.default_rng(seed)
    marker = str(folder / "ran")
    # Warm up: load one good file of each kind, so that the baseline counts torch's own setup.
    net = build_network(GAME, blocks=1, channels=8)
    from boardgym.agents.alphazero.agent import save_network

    make_agent(f"alphazero:checkpoint={save_network(folder / 'warm.pt', net, GAME)}", GAME)
    baseline = peak_kib()
    loaded, largest, escaped = 0, 0, []
    makers = (torch_policy, tianshou, alphazero)
    for index in range(cases):
        if index % 10 == 9:
            path = folder / f"evil-{index}.pt"
            torch.save({"format": TORCH_POLICY, "weights": RunsCode(marker)}, path)
            spec = [f"torch:checkpoint={path}", f"alphazero:checkpoint={path}", f"tianshou:checkpoint={path}"][
                index % 3
            ]
        else:
            CLEAN[0] = bool(rng.random() < 0.35)
            path, spec = makers[index % 3](rng, folder, index)
            if rng.random() < 0.25:
                damage(rng, path)
        largest = max(largest, path.stat().st_size)
        try:
            make_agent(spec, GAME)
            loaded += 1
        except BoardgymError as error:
            if "\n" in str(error):
                escaped.append(f"{spec}: two lines: {str(error)[:200]}")
        except Exception as error:  # anything else is a loader that lets raw errors through
            escaped.append(f"{spec}: {type(error).__name__}: {str(error)[:200]}")
        path.unlink()
    result = {
        "cases": cases,
        "loaded": loaded,
        "largest_file": largest,
        "baseline_kib": baseline,
        "peak_kib": peak_kib(),
        "escaped": escaped,
        "code_ran": os.path.exists(marker),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
