"""benchmarks/worker_device_speed.py runs end to end on a tiny budget and prints its table."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
import torch

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "worker_device_speed.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("worker_device_speed", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_prints_a_row_per_setting(capsys: pytest.CaptureFixture[str]) -> None:
    assert load_script().main(["--workers", "2", "--games", "2", "--simulations", "4"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| c")]
    assert rows[0].startswith("| cpu | 1 |") and float(rows[0].split("|")[5]) > 0
    assert len(rows) == (3 if torch.cuda.is_available() else 1)
    assert torch.cuda.is_available() or "CUDA is not available here" in out


def test_a_game_without_a_shipped_network_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        load_script().main(["--game", "nim"])
    assert "no pretrained alphazero network ships for nim" in capsys.readouterr().err
