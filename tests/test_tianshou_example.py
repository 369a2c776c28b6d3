"""examples/tianshou_pettingzoo.py prints its result and no flood of warnings: Tianshou's
collector summarises the multi-agent returns (one per seat) through the learner's seat instead
of warning "Sequence has shape (n, 2)..." at every collect."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # ~30 s, most of it importing Tianshou
def test_the_tianshou_example_says_no_sequence_shape_warnings(tmp_path: Path) -> None:
    if importlib.util.find_spec("tianshou") is None:
        pytest.skip("Tianshou is an optional extra: pip install -e '.[tianshou]'")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    argv = ["--epochs", "1", "--steps-per-epoch", "100", "--eval-games", "2", "--seed", "0"]
    done = subprocess.run(
        [sys.executable, "-W", "always", str(ROOT / "examples" / "tianshou_pettingzoo.py"), *argv],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    output = done.stdout + done.stderr
    assert "Sequence has shape" not in output
    assert '"win_rate_after"' in done.stdout.strip().splitlines()[-1]
