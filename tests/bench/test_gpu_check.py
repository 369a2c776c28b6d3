"""benchmarks/gpu_check.sh runs where there is no GPU (``--device cpu --tiny``): every stage ends,
each writes its figures, and the table holds every row, so the script cannot rot before a GPU
machine runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "gpu_check.sh"


def run(folder: Path, *extra: str) -> str:
    command = ["bash", str(SCRIPT), str(folder), "--device", "cpu", "--tiny", *extra]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=False,
        env={"PYTHON": sys.executable, "PATH": "/usr/bin:/bin"},
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_network_and_search_stages_and_the_table(tmp_path: Path) -> None:
    out = run(tmp_path, "--stages", "network search")
    assert "stage network: done" in out and "stage search: done" in out
    search = json.loads((tmp_path / "search.json").read_text())
    assert search["same visits eager and captured"] is True
    table = (tmp_path / "table.md").read_text()
    assert table in out
    assert "| network, positions/s at 64 | folded" in table
    assert "| one search, positions/s | 8 games, 8 sims, capture asked: eager here" in table
    assert "| rules | not measured (see rules.log) |" in table  # a stage not run says so


@pytest.mark.slow
def test_every_stage_ends_and_fills_the_table(tmp_path: Path) -> None:
    out = run(tmp_path)
    for stage in ("env", "rules", "network", "search", "selfplay"):
        assert f"stage {stage}: done" in out, (tmp_path / f"{stage}.log").read_text()[-2000:]
    table = (tmp_path / "table.md").read_text()
    for row in (
        "| rules, steps/s | connect_four B=256 |",
        "| self-play, positions/s | batched --device cpu (8 sims) |",
    ):
        assert row in table
    assert "not measured" not in table


def test_a_bad_argument_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run(["bash", str(SCRIPT), str(tmp_path), "--fast"], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "unknown argument --fast" in done.stderr
