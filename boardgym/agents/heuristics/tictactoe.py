"""Tic-Tac-Toe: lines still open to one player, weighted by how full they are."""

from __future__ import annotations

import numpy as np

from boardgym.agents.heuristics.lines import OpenLineCount
from boardgym.games.tictactoe import LINES, TicTacToe, TicTacToeState, stones
from boardgym.types import Action

_WEIGHT = (0.0, 1.0, 4.0, 16.0)
_CENTRE_FIRST = (4, 0, 2, 6, 8, 1, 3, 5, 7)


class OpenLines(OpenLineCount):
    """Sum over the eight lines: ``_WEIGHT[own marks]`` if the opponent has none there, minus
    the same for the opponent. Moves are tried centre, corners, then edges."""

    def __init__(self, game: TicTacToe, rng: np.random.Generator) -> None:
        super().__init__(rng, LINES, _WEIGHT, stones)

    def order_moves(self, state: TicTacToeState, moves: list[Action]) -> list[Action]:
        legal = set(moves)
        return [cell for cell in _CENTRE_FIRST if cell in legal]
