"""Speed benchmarks against peer libraries, run side by side in one process (``boardgym bench``).

``BENCHES`` names each benchmark's ``main(argv, prog)`` and its options class; adding one is a
module here with both and one line in the table.
"""

from __future__ import annotations

import importlib
from typing import Any

from boardgym.registry import CommandEntry


def _bench(module: str, summary: str) -> CommandEntry:
    return CommandEntry(f"boardgym.bench.{module}:main", summary, f"boardgym.bench.{module}:Options")


BENCHES: dict[str, CommandEntry] = {
    "envs": _bench("env_speed", "random play: our AEC envs and rules vs PettingZoo and OpenSpiel"),
    "search": _bench("search_speed", "MCTS simulations/s and alpha-beta nodes/s vs OpenSpiel's MCTSBot"),
    "selfplay": _bench(
        "selfplay_speed", "AlphaZero self-play positions/s here and on Ray actors; the cluster cost model's figures"
    ),
    "solver": _bench("solver_speed", "the Connect Four solver on Pons's test sets: time per position vs targets"),
    "strength": _bench("search_strength", "search agents against a reference agent over many games, seats alternated"),
}


def optional_import(module: str) -> Any:
    """The module, or None where it (or something it needs) is not installed: benchmarks skip
    a peer library that is missing and say so."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None
