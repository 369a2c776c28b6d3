"""``kill -9`` a training run at a random moment (mid-write included), then resume it: the run
folder either resumes or is refused in one sentence, never a traceback; AlphaZero's
checkpoint always finds the replay file it names (the pair stays consistent)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from boardgym.checkpoints import load_checkpoint
from boardgym.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "train"))
from test_run_contract import TINY  # noqa: E402  (a tiny run of every method)

LONG = {"qlearning": 10**7, "montecarlo": 10**7, "ppo": 10**7, "es": 10**5, "coevolve": 10**5, "neat": 10**5}
LONG["alphazero"] = 10**5


def argv(method: str, root: Path, budget: int) -> list[str]:
    game, _, options, (flag, _, _) = TINY[method]
    return ["train", method, "--game", game, *options, flag, str(budget), "--root", str(root), "--no-progress"]


def kill_and_resume(method: str, root: Path, kills: int, seed: int, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(seed)
    game = TINY[method][0]
    folder = root / game / method / "killed"
    checkpoint = folder / "checkpoint.pt"
    for kill in range(kills):
        command = argv(method, root, LONG[method]) + ["--run-name", "killed"]
        if kill:
            command.append("--resume")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path.cwd()), os.environ.get("PYTHONPATH", "")])}
        process = subprocess.Popen(
            [sys.executable, "-m", "boardgym.cli", *command],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )
        try:
            deadline = time.time() + 240
            start = checkpoint.stat().st_mtime_ns if checkpoint.exists() else 0
            while not checkpoint.exists() or checkpoint.stat().st_mtime_ns == start:
                assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
                assert time.time() < deadline, "no checkpoint written in time"
                time.sleep(0.02)
            time.sleep(rng.uniform(0.0, 0.6))  # the next write may be under way
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
        step = load_checkpoint(checkpoint)["step"]  # the file under the real name is whole
        if method == "alphazero":
            named = load_checkpoint(checkpoint).get("replay_file")
            assert named is not None and (folder / named).is_file()
        code = main([*argv(method, root, step + 1), "--run-name", "killed", "--resume"])
        err = capsys.readouterr().err
        assert "Traceback" not in err, err
        assert code == 0 or len([line for line in err.splitlines() if "error:" in line]) == 1, err
        assert code == 0, err  # what a kill leaves is resumable
        assert load_checkpoint(checkpoint)["step"] >= step


def test_alphazero_killed_mid_run_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kill_and_resume("alphazero", tmp_path / "runs", kills=1, seed=0, capsys=capsys)


@pytest.mark.slow
@pytest.mark.parametrize("method", list(TINY))
def test_every_method_killed_mid_run_resumes(method: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kill_and_resume(method, tmp_path / "runs", kills=4, seed=1, capsys=capsys)
