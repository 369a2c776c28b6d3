"""The Connect Four solver on Pascal Pons's test sets: time per position, set by set.

    boardgym bench solver [--sets End-Easy,Middle-Medium] [--budget 120] [--data DIR]

Each set's positions are solved in file order with a fresh transposition table each (as
Pons measures), until the set's lines or its ``--budget`` seconds run out; every score is
checked against the published one. Reported per set: positions solved, mean and max wall
time, mean CPU time (the process's own, which load from other programs inflates less), mean
nodes, beside the targets for this project and Pons's C++ figures where he gives them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from boardgym.config import Options as BaseOptions
from boardgym.config import option, options_from_argv
from boardgym.solve.connect_four import TEST_SETS, Solver, state_from_moves
from boardgym.types import BoardgymError

DEFAULT_DATA = TEST_SETS
SETS = {
    "End-Easy": "Test_L3_R1",
    "Middle-Easy": "Test_L2_R1",
    "Middle-Medium": "Test_L2_R2",
    "Begin-Easy": "Test_L1_R1",
    "Begin-Medium": "Test_L1_R2",
    "Begin-Hard": "Test_L1_R3",
}
TARGETS = {"End-Easy": 1e-3, "Middle-Medium": 0.5, "Begin-Medium": 20.0}
PONS_CPP = {"End-Easy": 4.6e-6, "Middle-Medium": 3.2e-3, "Begin-Medium": 97e-3}


def read_set(path: Path) -> list[tuple[str, int]]:
    if not path.is_file():
        raise BoardgymError(f"no test set at {path}; pass --data with the folder holding Pons's Test_L*_R* files")
    lines = [line.split() for line in path.read_text().split("\n") if line.strip() and not line.startswith("#")]
    return [(moves, int(value)) for moves, value in lines]


def _seconds(value: float | None) -> str:
    if value is None:
        return "-"
    if value < 1e-3:
        return f"{value * 1e6:.1f} us"
    if value < 1.0:
        return f"{value * 1e3:.1f} ms"
    return f"{value:.2f} s"


@dataclass(frozen=True)
class Options(BaseOptions):
    """The Connect Four solver on Pascal Pons's test sets: time per position, set by set."""

    sets: tuple[str, ...] = option(tuple(SETS), f"comma-separated, from: {', '.join(SETS)}", choices=tuple(SETS))
    budget: float = option(120.0, "seconds per set at most", above=0, hint="e.g. --budget 120")
    limit: int | None = option(None, "positions per set at most (default: all shipped)", minimum=1)
    data: Path = option(DEFAULT_DATA, "folder of the Test_L*_R* files", metavar="DIR")


def main(argv: list[str] | None = None, prog: str = "boardgym bench solver") -> int:
    args = options_from_argv(Options, argv, prog)
    names = list(args.sets)
    header = ("set", "solved", "mean wall", "max wall", "mean CPU", "mean nodes", "target", "Pons C++")
    print("| " + " | ".join(header) + " |")
    print("| " + " | ".join("---" for _ in header) + " |", flush=True)
    for name in names:
        positions = read_set(args.data / SETS[name])
        if args.limit is not None:
            positions = positions[: args.limit]
        walls, cpus, nodes = [], [], 0
        spent = time.perf_counter()
        for moves, expected in positions:
            if time.perf_counter() - spent > args.budget:
                break
            solver = Solver()
            state = state_from_moves(moves)
            wall, cpu = time.perf_counter(), time.process_time()
            result = solver.solve(state)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            nodes += solver.nodes
            if result != expected:
                raise BoardgymError(f"{name}: position {moves} scored {result}, published {expected}")
        count = len(walls)
        row = (
            name,
            f"{count}/{len(positions)}",
            _seconds(sum(walls) / count) if count else "-",
            _seconds(max(walls)) if count else "-",
            _seconds(sum(cpus) / count) if count else "-",
            f"{nodes / count:,.0f}" if count else "-",
            _seconds(TARGETS.get(name)),
            _seconds(PONS_CPP.get(name)),
        )
        print("| " + " | ".join(row) + " |", flush=True)
    print("Every score solved matched the published one.")
    return 0
