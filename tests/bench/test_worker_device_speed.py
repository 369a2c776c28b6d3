"""benchmarks/worker_device_speed.py runs end to end on a tiny budget and prints its table."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest
import torch


def test_prints_a_row_per_setting(
    benchmark_script: Callable[[str], ModuleType], capsys: pytest.CaptureFixture[str]
) -> None:
    assert benchmark_script("worker_device_speed").main(["--workers", "2", "--games", "2", "--simulations", "4"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| c")]
    assert rows[0].startswith("| cpu | 1 |") and float(rows[0].split("|")[5]) > 0
    assert len(rows) == (3 if torch.cuda.is_available() else 1)
    assert torch.cuda.is_available() or "CUDA is not available here" in out


def test_a_game_without_a_shipped_network_is_one_line(
    benchmark_script: Callable[[str], ModuleType], capsys: pytest.CaptureFixture[str]
) -> None:
    assert benchmark_script("worker_device_speed").main(["--game", "nim"]) == 2
    assert "no pretrained alphazero network ships for nim" in capsys.readouterr().err
    assert benchmark_script("worker_device_speed").main(["--workers", "0"]) == 2
    assert "--workers 0 must be at least 1" in capsys.readouterr().err
