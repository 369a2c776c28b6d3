"""``boardgym solve setcover`` and ``boardgym solve blackbox`` end to end on tiny budgets."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from boardgym.cli import main
from boardgym.games.setcover import SetCover
from boardgym.solve.setcover import brute_force_cover_size, exact_cover_size, milp_cover_size


def test_brute_force_and_milp_agree() -> None:
    for seed in range(3):
        game = SetCover(10, 14, 0.4, seed)
        assert brute_force_cover_size(game) == milp_cover_size(game) == exact_cover_size(game)


def test_solve_setcover_prints_and_saves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["solve", "setcover", "--problem-size", "20", "--num-sets", "50", "--seeds", "2", "--ucs"]
    assert main(argv + ["--run-name", "t"]) == 0
    out = capsys.readouterr().out
    assert "UCS nodes" in out and "optimum" in out
    rows = json.loads((tmp_path / "runs/setcover/astar/t/results.json").read_text())["rows"]
    assert len(rows) == 2
    for row in rows:
        assert row["astar_cost"] == row["ucs_cost"] == row["optimum"] <= row["greedy"]
        assert row["astar_nodes"] < row["ucs_nodes"]


def test_solve_setcover_given_sets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["solve", "setcover", "--sets", "0 1 2;2 3;4;3 4", "--run-name", "t"]) == 0
    row = json.loads((tmp_path / "runs/setcover/astar/t/results.json").read_text())["rows"][0]
    assert row["astar_cost"] == row["optimum"] == 2 and row["sets"] == [0, 3]
    assert main(["solve", "setcover", "--sets", "0;2"]) == 2
    assert "no solution" in capsys.readouterr().err


def test_solve_blackbox_writes_plot_and_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["solve", "blackbox", "--instance", "1,10", "--seeds", "2", "--no-progress", "--run-name", "t"]
    assert main(argv) == 0
    folder = tmp_path / "runs/blackbox/linkage/t"
    assert (folder / "fitness.png").stat().st_size > 1000
    runs = json.loads((folder / "results.json").read_text())["runs"]
    assert [(r["instance"], r["seed"], r["solved"]) for r in runs] == [
        (1, 0, True),
        (1, 1, True),
        (10, 0, True),
        (10, 1, True),
    ]
    assert "sum of median calls" in capsys.readouterr().out


def test_solve_blackbox_baseline_with_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["solve", "blackbox", "--algorithm", "fitness_selection", "--max-calls", "300", "--no-progress"]
    assert main(argv + ["--no-plot", "--run-name", "t"]) == 0
    runs = json.loads((tmp_path / "runs/blackbox/fitness_selection/t/results.json").read_text())["runs"]
    assert runs[0]["calls"] == 300 and not runs[0]["solved"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["solve", "blackbox", "--instance", "0"], "--instance 0 must be at least 1"),
        (["solve", "blackbox", "--instance", "2000", "--genome-length", "100"], "instance=2000 must be an integer"),
        (["solve", "blackbox", "--instance", "x"], "--instance 'x' must be a comma-separated list of integers"),
        (["solve", "blackbox", "--algorithm", "nope"], "unknown --algorithm 'nope'; choose one of:"),
        (["solve", "sudoku"], "unknown puzzle"),
    ],
)
def test_solve_errors_are_one_clear_line(argv: list[str], message: str, capsys) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_play_a_puzzle_in_the_terminal(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("0\n3\n"))
    assert main(["play", "setcover", "-p", "sets=0 1 2;2 3;4;3 4", "--seat", "random", "--seed", "1"]) == 0
    assert "solved: return -2" in capsys.readouterr().out
