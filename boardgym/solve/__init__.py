"""Solvers: exact and heuristic search over the rules, below the agents that play with them
(A* and uniform-cost search for puzzles, set cover's exact optimum, the black-box
optimisers, the exact solvers of Connect Four, Hex and Quixo), and the ``boardgym solve NAME``
runners.

``SOLVERS`` maps a puzzle's or game's name to the ``main(argv, prog)`` that runs it.
"""

from __future__ import annotations

from boardgym.registry import CommandEntry

SOLVERS: dict[str, CommandEntry] = {
    "setcover": CommandEntry(
        "boardgym.solve.setcover:main",
        "greedy and A* (optionally UCS) vs the exact optimum (brute force / milp)",
        "boardgym.solve.setcover:Config",
    ),
    "hex": CommandEntry(
        "boardgym.solve.hex:main",
        "Hex's first moves solved (with and without swap) by a win/loss search with must-play proofs",
        "boardgym.solve.hex:Config",
    ),
    "quixo": CommandEntry(
        "boardgym.solve.quixo:main",
        "Quixo 3x3 or 4x4 solved by retrograde analysis (every position; cached under the runs root)",
        "boardgym.solve.quixo:Config",
    ),
    "blackbox": CommandEntry(
        "boardgym.solve.blackbox_run:main",
        "black-box bit-string problem: linkage search and the seed reports' EAs",
        "boardgym.solve.blackbox_run:Config",
    ),
}

__all__ = ["SOLVERS"]
