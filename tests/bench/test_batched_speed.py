"""``boardgym bench batched`` runs end to end at a tiny budget and prints every row; pgx's row
comes where pgx is installed (the ``bench`` extra), and the bench says how to get it where not."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from boardgym.bench import batched_speed
from boardgym.cli import main

TINY = ["--seconds", "0.02", "--rounds", "1", "--batches", "1", "64", "--ratio-batch", "64"]
TINY += ["--sync-envs", "2", "--native-envs", "16"]


def test_a_tiny_run_prints_every_row(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "batched", "--games", "tictactoe", "--no-pgx", *TINY]) == 0
    out = capsys.readouterr().out
    assert "## tictactoe" in out and "B=1" in out and "B=64" in out
    for row in ("ours (torch, cpu)", "scalar rules (one game)", "SyncVectorEnv, 2 envs", "native vector env, 16"):
        assert row in out
    assert "ours / scalar rules" in out and "native / sync vector env" in out
    assert "pgx" not in out.split("## tictactoe")[1]


def test_the_plot_is_drawn_from_the_bench_s_own_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from PIL import Image

    argv = ["bench", "batched", "--games", "tictactoe", "nim", "--no-pgx", *TINY, "--plot", str(tmp_path / "speed")]
    assert main(argv) == 0
    figures = json.loads((tmp_path / "speed.json").read_text())
    assert set(figures) == {"tictactoe", "nim"}
    table = figures["tictactoe"]
    assert set(table["batches"]["ours (cpu)"]) == {"1", "64"} and all(
        r[1] > 0 for r in table["batches"]["ours (cpu)"].values()
    )
    assert {"scalar rules (one game)", "SyncVectorEnv, 2 envs", "native vector env, 16 envs"} == set(table["single"])
    with Image.open(tmp_path / "speed.png") as picture:
        assert picture.format == "PNG" and picture.width > 400
    assert f"plot: {tmp_path / 'speed.png'}" in capsys.readouterr().out
    # the plot is made from the JSON alone, so a saved run can be drawn again
    assert batched_speed.plot_speeds(figures, tmp_path / "again.png").is_file()


@pytest.mark.skipif(
    importlib.util.find_spec("pgx") is None, reason="pgx is not installed: pip install -e '.[dev]' (or '.[bench]')"
)
def test_pgx_plays_beside_ours() -> None:
    # In a process of its own: JAX starts threads, and a test worker that forks afterwards
    # (the render and cluster tests do) could deadlock.
    command = [sys.executable, "-m", "boardgym.cli", "bench", "batched", "--games", "connect_four", *TINY]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "pgx (JAX, cpu)" in done.stdout and "ours / pgx" in done.stdout


def test_without_pgx_the_bench_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(batched_speed, "optional_import", lambda name: None)
    assert main(["bench", "batched", "--games", "tictactoe", *TINY]) == 0
    assert "pgx is not installed: pip install -e '.[bench]'" in capsys.readouterr().out


def test_each_rate_counts_steps() -> None:
    from boardgym.games import GAMES

    row = next(row for row in GAMES["connect_four"].bench if row.bench == "batched")
    wall, cpu = batched_speed.batched_rate("connect_four", row, 32, "cpu", 0.02)
    assert wall > 0 and cpu > 0
    wall, cpu = batched_speed.vector_rate("connect_four", row, "vector_entry_point", 8, 0.02)
    assert wall > 0 and cpu > 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--batches", "0"], "--batches 0 must be a whole number from 1 to 1048576"),
        (["--devices", "tpu"], "device 'tpu'"),
        (["--threads", "0"], "--threads 0 must be at least 1"),
    ],
)
def test_bad_arguments_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "batched", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
