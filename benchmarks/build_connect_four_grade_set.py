"""Rebuild Connect Four's grading set (boardgym/evaluate/data/connect_four_grade_v1.txt).

    python benchmarks/build_connect_four_grade_set.py [OUTPUT]

Deterministic apart from which positions hit the per-position time limit (a slower machine
drops more of the early ones); the shipped file says what it was built with and how long it took.
"""

from __future__ import annotations

import sys
from pathlib import Path

from boardgym.evaluate.grade_sets import CONNECT_FOUR_FILE, build_connect_four_set

if __name__ == "__main__":
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else CONNECT_FOUR_FILE
    build_connect_four_set(output, attempts=2, time_limit=12.0, log=lambda line: print(line, flush=True))
