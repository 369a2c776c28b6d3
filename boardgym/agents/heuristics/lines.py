"""The evaluation shared by the games won with a full line (Tic-Tac-Toe, Connect Four,
Quixo): each line still open to one player is worth a weight by how many of its cells that
player holds. Each game's heuristic is an ``OpenLineCount`` with its lines and weights."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from boardgym.types import Player


class OpenLineCount:
    """Over the bitboards ``lines``: ``weight[own cells in the line]`` where the opponent has
    none, minus ``weight[opponent's cells]`` where the player has none (``weight[0]`` is 0);
    plus, for a nonzero bitboard ``centre``, one per own cell in it minus one per opponent's.
    ``boards(state)`` gives the two players' bitboards, player 0's first."""

    def __init__(
        self,
        rng: np.random.Generator,
        lines: Sequence[int],
        weight: Sequence[float],
        boards: Callable[[Any], Sequence[int]],
        centre: int = 0,
    ) -> None:
        self.rng = rng
        self.lines = tuple(lines)
        self.weight = tuple(weight)
        self.boards = boards
        self.centre = centre

    def evaluate(self, state: Any, player: Player) -> float:
        both = self.boards(state)
        own, opp = both[player], both[1 - player]
        centre = self.centre
        score = float((own & centre).bit_count() - (opp & centre).bit_count()) if centre else 0.0
        weight = self.weight
        for line in self.lines:
            mine, theirs = own & line, opp & line
            if not theirs:
                if mine:
                    score += weight[mine.bit_count()]
            elif not mine:
                score -= weight[theirs.bit_count()]
        return score
