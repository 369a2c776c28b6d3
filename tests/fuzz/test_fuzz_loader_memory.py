"""The network loaders (``torch:``, ``tianshou:``, ``alphazero:``) fed random architectures,
tensor shapes, strides, storage sizes, damaged bytes and pickles that would run code: each
file is loaded or refused in one sentence, none runs code, and the child's peak memory never
grows by more than a few times the largest file it read (plus a fixed slack for torch's own
arenas). Before the loaders checked their files, one of these cases reached gigabytes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = Path(__file__).with_name("loader_memory_probe.py")
ROOT = Path(__file__).resolve().parents[2]
SLACK_KIB = 200 * 1024
"""Allocator arenas and the small networks that do load; a copied-out expanded tensor of the
cases is at least 3.6 GB."""


def probe(folder: Path, seed: int, cases: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(PROBE), str(folder), str(seed), str(cases)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("seed", [0, 1])
def test_random_files_never_allocate_more_than_their_bytes(tmp_path: Path, seed: int) -> None:
    """In a child under a timeout: a loader that builds ``blocks=10**7`` runs for hours."""
    result = probe(tmp_path, seed, cases=200)
    assert result["escaped"] == [], result["escaped"]
    assert not result["code_ran"]
    assert 0 < result["loaded"] < result["cases"], result  # some load, most are refused
    grown = result["peak_kib"] - result["baseline_kib"]
    assert grown <= 4 * result["largest_file"] // 1024 + SLACK_KIB, result
