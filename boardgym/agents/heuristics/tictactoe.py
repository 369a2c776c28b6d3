"""Tic-Tac-Toe: lines still open to one player, weighted by how full they are."""

from __future__ import annotations

import numpy as np

from boardgym.games.tictactoe import LINES, TicTacToe, TicTacToeState, stones
from boardgym.types import Action, Player

_WEIGHT = (0.0, 1.0, 4.0, 16.0)
_CENTRE_FIRST = (4, 0, 2, 6, 8, 1, 3, 5, 7)


class OpenLines:
    """Sum over the eight lines: ``_WEIGHT[own marks]`` if the opponent has none there, minus
    the same for the opponent. Moves are tried centre, corners, then edges."""

    def __init__(self, game: TicTacToe, rng: np.random.Generator) -> None:
        self.rng = rng

    def evaluate(self, state: TicTacToeState, player: Player) -> float:
        boards = stones(state)
        own, opp = boards[player], boards[1 - player]
        score = 0.0
        for line in LINES:
            mine, theirs = own & line, opp & line
            if not theirs:
                score += _WEIGHT[mine.bit_count()]
            elif not mine:
                score -= _WEIGHT[theirs.bit_count()]
        return score

    def order_moves(self, state: TicTacToeState, moves: list[Action]) -> list[Action]:
        legal = set(moves)
        return [cell for cell in _CENTRE_FIRST if cell in legal]
