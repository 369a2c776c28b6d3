"""benchmarks/gpu_check.sh runs where there is no GPU (``--device cpu --tiny``): every stage ends,
each writes its figures, and the table holds every row, so the script cannot rot before a GPU
machine runs it; the train stage leaves its network, grade, match and events in the folder."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

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
def test_every_speed_stage_ends_and_fills_the_table(tmp_path: Path) -> None:
    out = run(tmp_path, "--stages", "env rules network search selfplay")
    for stage in ("env", "rules", "network", "search", "selfplay"):
        assert f"stage {stage}: done" in out, (tmp_path / f"{stage}.log").read_text()[-2000:]
    table = (tmp_path / "table.md").read_text()
    for row in (
        "| rules, steps/s | connect_four B=256 |",
        "| self-play, positions/s | batched --device cpu (8 sims) |",
    ):
        assert row in table
    assert [line for line in table.splitlines() if "not measured" in line] == [
        "| train | not measured (see train.log) | | | | |"
    ]


def test_the_train_stage_leaves_its_network_grade_match_and_events(tmp_path: Path) -> None:
    out = run(tmp_path, "--stages", "train")
    assert "stage train: done" in out, (tmp_path / "train.log").read_text()[-2000:]
    found = json.loads((tmp_path / "train.json").read_text())
    assert found["trainer"]["ended"] == "done" and found["trainer"]["iterations"] == 2
    assert found["network"] == "final.pt" and (tmp_path / "final.pt").stat().st_size > 100_000
    assert list((tmp_path / "events").glob("train-shipped-*/events.out.tfevents.*"))
    assert found["grade"]["ended"] == "done" and found["grade"]["positions"] == 11
    assert "simulations=200,batch=8,symmetries=true" in found["grade command"]
    assert (tmp_path / "grade.md").is_file() and "mistakes" in (tmp_path / "grade.txt").read_text()
    match = found["match"]
    assert match["ended"] == "done" and match["games"] == match["wins"] + match["draws"] + match["losses"] == 4
    assert "alphazero:pretrained=true,simulations=8,search=batched" in found["match command"]
    assert (tmp_path / "match.md").is_file()
    table = (tmp_path / "table.md").read_text()
    assert table in out
    assert "| train | tiny sizes (a CPU: the goals are the GPU run's) from the shipped network: trainer done" in table
    assert (
        "| train, self-play positions/s | the trainer's own over the bench's positions/s (the selfplay stage did not run) |"
        in table
    )
    assert f"| train, graded mistakes at 200 sims | final.pt | {found['grade']['rate']:.1%} (" in table
    assert "goal <= 3.0%" in table and "goal >= 55%" in table
    assert "| train, points vs the shipped network | same simulations both sides |" in table


@pytest.mark.slow
def test_the_default_stages_measure_the_bench_as_the_trainer_plays(tmp_path: Path) -> None:
    out = run(tmp_path)  # env, selfplay (only the row that plays as the trainer does), train
    for stage in ("env", "selfplay", "train"):
        assert f"stage {stage}: done" in out, (tmp_path / f"{stage}.log").read_text()[-2000:]
    selfplay = json.loads((tmp_path / "selfplay.json").read_text())
    assert selfplay["settings"] == json.loads((tmp_path / "train.json").read_text())["settings"]
    table = (tmp_path / "table.md").read_text()
    assert (
        "| train, self-play positions/s | the trainer's own over the bench's positions/s (same search, simulations"
        in table
    )
    assert "| train, self-play positions/s | the trainer's own over the bench's searched moves/s" in table
    assert "| self-play | batched --gumbel: not run (the train stage's row only) |" in table


@pytest.mark.slow
def test_from_random_weights(tmp_path: Path) -> None:
    out = run(tmp_path, "--stages", "train", "--from", "random")
    assert "stage train: done" in out
    found = json.loads((tmp_path / "train.json").read_text())
    assert found["settings"] == {"source": "gumbel", "simulations": 4, "games in flight": 4, "network": "5x64 random"}
    assert "--init" not in found["command"]
    table = (tmp_path / "table.md").read_text()
    assert "from the random weights" in table and "goal <= 6.4%" in table
    assert "the selfplay stage did not run" in table


def test_the_table_says_when_the_bench_played_otherwise(benchmark_script: Callable[[str], ModuleType]) -> None:
    train = benchmark_script("gpu_check_train")
    settings = train.trained_settings(train.trainer_flags("shipped", 6, "cuda", tiny=False))
    assert settings == train.bench_settings("shipped", tiny=False)
    row = {"positions/s": 10.0, "network calls/s": 5.0, "mean batch": 202.0}
    bench = {"settings": {**settings, "simulations": 100}, "batched --device cuda (100 sims)": row}
    rate, moves, note = train._bench_rate(bench, settings)
    assert rate == 10.0 and moves == 10.0 and note.startswith("DIFFERENT: simulations 100 there, 200 here")


def test_the_iterations_follow_the_minutes(benchmark_script: Callable[[str], ModuleType]) -> None:
    train = benchmark_script("gpu_check_train")
    flags = train.trainer_flags("random", 3, "cuda", tiny=False)
    assert flags[flags.index("--iterations") + 1] == str(round(180 / train.ITERATION_SECONDS["random"]))
    stop = float(flags[flags.index("--max-minutes") + 1])  # the last iteration ends past it
    assert stop == pytest.approx(3 - train.ITERATION_SECONDS["random"] / 60, abs=0.01) and "--gumbel" in flags


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--fast"], "unknown argument --fast"),
        (["--minutes", "0"], "--minutes 0 must be a number of minutes above 0"),
        (["--minutes", "six"], "--minutes six must be a number"),
        (["--minutes"], "--minutes needs a value"),
        (["--from", "scratch"], "--from scratch must be shipped"),
        (["--stages", "env training"], "unknown stage training in --stages"),
    ],
)
def test_a_bad_argument_is_one_line(tmp_path: Path, arguments: list[str], said: str) -> None:
    done = subprocess.run(["bash", str(SCRIPT), str(tmp_path), *arguments], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and said in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "stages.txt").exists()  # refused before anything ran
