"""Nim: the exact value from the nim-sum rule (``boardgym.agents.nim_perfect``)."""

from __future__ import annotations

import numpy as np

from boardgym.agents.nim_perfect import mover_wins
from boardgym.games.nim import Nim, NimState
from boardgym.types import Player


class NimSum:
    """+1000 when ``player`` wins with perfect play, -1000 when it loses: exact at depth 1."""

    def __init__(self, game: Nim, rng: np.random.Generator) -> None:
        self.rng = rng
        self.game = game
        self.misere, self.k = game.misere, game.k

    def evaluate(self, state: NimState, player: Player) -> float:
        wins = mover_wins(self.game.heaps_of(state), self.misere, self.k)
        return 1000.0 if wins == (self.game.current_player(state) == player) else -1000.0
