"""Puzzle solvers run by ``boardgym solve PUZZLE [options]``: set cover (greedy, A*, UCS,
exact optimum) and the lab 9 black-box problem (evolutionary and linkage-learning search).

SOLVERS maps a puzzle name to the module whose ``main(argv, prog)`` runs it and a summary.
"""

from __future__ import annotations

SOLVERS: dict[str, tuple[str, str]] = {
    "setcover": ("boardgym.solve.setcover", "greedy and A* (optionally UCS) vs the exact optimum (brute force / milp)"),
    "blackbox": ("boardgym.solve.blackbox_run", "lab 9 black-box problem: linkage search and the seed reports' EAs"),
}

__all__ = ["SOLVERS"]
