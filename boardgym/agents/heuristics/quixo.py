"""Quixo: line potential (seed reports 000 and 003).

Each row, column and long diagonal that holds no opponent cube is worth ``4 ** own cubes`` to
a player, and each line with none of the player's cubes counts the same against them. Lines
holding both symbols count for nobody: a push can still change them, but neither side can win
there without first turning a cube. The lines are the rules' (``Quixo.lines``).
"""

from __future__ import annotations

from operator import attrgetter

import numpy as np

from boardgym.agents.heuristics.lines import OpenLineCount
from boardgym.games.quixo import Quixo


class LinePotential(OpenLineCount):
    """Sum over lines of ``4 ** own`` where the opponent has no cube, minus the reverse."""

    def __init__(self, game: Quixo, rng: np.random.Generator) -> None:
        weight = tuple(0.0 if k == 0 else float(4**k) for k in range(game.size + 1))
        super().__init__(rng, game.lines, weight, attrgetter("stones"))
