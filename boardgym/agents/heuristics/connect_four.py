"""Connect Four: the classic window count over the rules' 69 lines of four cells (``LINES``)."""

from __future__ import annotations

import numpy as np

from boardgym.agents.heuristics.lines import OpenLineCount
from boardgym.games.connect_four import HEIGHT, LINES, ROWS, ConnectFour, ConnectFourState, stones
from boardgym.types import Action

_WEIGHT = (0.0, 1.0, 5.0, 40.0, 0.0)
_CENTRE_FIRST = (3, 2, 4, 1, 5, 0, 6)
_CENTRE = sum(1 << (HEIGHT * 3 + r) for r in range(ROWS))


class OpenWindows(OpenLineCount):
    """Sum over the lines of four: ``_WEIGHT[own discs]`` where the opponent has none, minus the
    opponent's, plus one per own disc in the centre column. Centre columns are tried first."""

    def __init__(self, game: ConnectFour, rng: np.random.Generator) -> None:
        super().__init__(rng, LINES, _WEIGHT, stones, _CENTRE)

    def order_moves(self, state: ConnectFourState, moves: list[Action]) -> list[Action]:
        legal = set(moves)
        return [column for column in _CENTRE_FIRST if column in legal]
