"""Rebuild Connect Four's grading set (boardgym/evaluate/data/connect_four_grade_v1.txt).

    python benchmarks/build_connect_four_grade_set.py [OUTPUT]
    python benchmarks/build_connect_four_grade_set.py --held-out [OUTPUT]

``--held-out`` builds a second set from other seeds instead (341 positions at plies 17-34, none
in the shipped set; about 1.5 minutes; no position there comes near the CPU limit, so it is the
same file on any machine), for choosing between networks or settings with
``boardgym grade connect_four --positions FILE`` without tuning them to the shipped set.
Default output: runs/connect_four/held_out_v1.txt.

Runs the six builds the shipped file was made from (its header lists them, with their times
on the development machine), one after the other, and merges them: duplicates dropped, sorted
by ply. Deterministic apart from which positions hit the per-position CPU limit, so a much
faster or slower machine keeps somewhat different early positions.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from boardgym.evaluate.grade_sets import CONNECT_FOUR_FILE, build_connect_four_set, read_connect_four_set
from boardgym.runs import atomic_write_text

RUNS: list[dict[str, Any]] = [
    dict(plies=range(8, 11), per_ply=4, attempts=3, time_limit=6.0, seed=2033),
    dict(plies=range(11, 12), per_ply=6, attempts=4, time_limit=2.5, seed=2041),
    dict(plies=range(12, 17), per_ply=4, attempts=4, time_limit=2.5, seed=2052),
    dict(plies=range(14, 17), per_ply=6, attempts=4, time_limit=2.5, seed=2042),
    dict(plies=range(17, 35), per_ply=10, attempts=5, time_limit=3.0, seed=2032),
    dict(plies=range(17, 35), per_ply=10, attempts=5, time_limit=3.0, seed=2051),
]

HELD_OUT: list[dict[str, Any]] = [
    dict(plies=range(17, 35), per_ply=10, attempts=5, time_limit=3.0, seed=3002),
    dict(plies=range(17, 35), per_ply=10, attempts=5, time_limit=3.0, seed=3003),
    dict(plies=range(17, 35), per_ply=10, attempts=5, time_limit=3.0, seed=3004),
]


def main(
    output: Path,
    runs: list[dict[str, Any]] = RUNS,
    title: str = "grading set, version 1",
    exclude: frozenset[str] = frozenset(),
) -> None:
    """Build ``runs`` and merge them into ``output``, leaving out the positions whose move
    strings are in ``exclude``."""
    header = [
        f"# boardgym Connect Four {title}: one position per line,",
        "# '<moves, columns 1-7> <value of each column a-g for the player to move: W win, D draw, L loss, - full>'.",
        "# Positions from careful-random play, every legal move valued by the solver's win/draw/loss search",
        f"# (boardgym.evaluate.grade_sets.build_connect_four_set), built in {len(runs)} runs"
        " (benchmarks/build_connect_four_grade_set.py);",
        "# times are wall clock, limits CPU seconds per position:",
    ]
    body: set[str] = set()
    with tempfile.TemporaryDirectory() as folder:
        for index, run in enumerate(runs):
            part = Path(folder) / f"part{index}.txt"
            build_connect_four_set(part, log=lambda line: print(line, flush=True), **run)
            lines = part.read_text().split("\n")
            header.append("#   " + " ".join(line[2:] for line in lines[2:] if line.startswith("#")))
            body |= {line for line in lines if line.strip() and not line.startswith("#")}
    body = {line for line in body if line.split()[0] not in exclude}
    ordered = sorted(body, key=lambda line: (len(line.split()[0]), line))
    header.append(f"# {len(ordered)} positions in all.")
    atomic_write_text(output, "\n".join(header + ordered) + "\n")
    print(f"{output}: {len(ordered)} positions")


if __name__ == "__main__":
    arguments = sys.argv[1:]
    if arguments[:1] == ["--held-out"]:
        target = Path(arguments[1]) if len(arguments) > 1 else Path("runs/connect_four/held_out_v1.txt")
        target.parent.mkdir(parents=True, exist_ok=True)
        shipped = frozenset(position.label for position in read_connect_four_set())
        main(target, HELD_OUT, "held-out set (not the graded one), version 1", shipped)
    else:
        main(Path(arguments[0]) if arguments else CONNECT_FOUR_FILE)
