"""benchmarks/network_vs_solver.py: one row per network, and agreement with ``boardgym grade``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from boardgym import make_game
from boardgym.evaluate.grade import grade
from boardgym.evaluate.grade_sets import CONNECT_FOUR_FILE, read_connect_four_set
from boardgym.runs import atomic_write_text


def small_set(tmp_path: Path) -> Path:
    """Every tenth position of the shipped set, in the set's own format."""
    lines = [line for line in CONNECT_FOUR_FILE.read_text().splitlines() if line[:1] != "#"]
    path = tmp_path / "small.txt"
    atomic_write_text(path, "\n".join(lines[::10]) + "\n")
    return path


def test_policy_picks_agree_with_grading_the_policy_alone(
    benchmark_script: Callable[[str], ModuleType], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    positions = small_set(tmp_path)
    assert benchmark_script("network_vs_solver").main(["pretrained", "--positions", str(positions)]) == 0
    row = capsys.readouterr().out.splitlines()[2].split("|")
    count = len(read_connect_four_set(positions))
    policy, value, error = (int(row[2].split()[0]), int(row[3].split()[0]), float(row[4]))
    assert row[2].strip().endswith(f"of {count}") and 0 <= value <= count and 0 <= error <= 4
    game = make_game("connect_four")
    report = grade(game, "alphazero:pretrained=true,simulations=0", positions=read_connect_four_set(positions))
    assert policy == count - report.mistakes


def test_a_missing_network_is_one_line(
    benchmark_script: Callable[[str], ModuleType], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        benchmark_script("network_vs_solver").main([str(tmp_path / "none.pt")])
    assert "none.pt" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        benchmark_script("network_vs_solver").main([""])
    assert "a network name is empty" in capsys.readouterr().err
