"""Greedy set covering: take the set that covers the most elements not yet covered.

The classic approximation (within a factor H(largest set) ~ ln n of the optimum, Chvátal
1979); fast and usually close, never proven optimal. Ties go to the lowest set number, or to a
random one of the tied sets with ``random_ties=true``.
"""

from __future__ import annotations

from boardgym.agents.base import BaseAgent
from boardgym.game import Game
from boardgym.games.setcover import SetCover, SetCoverState
from boardgym.types import Action, BoardgymError


class GreedyCoverAgent(BaseAgent):
    """Most new elements first (see the module doc)."""

    def __init__(self, game: Game, *, seed: int | None = None, random_ties: bool = False) -> None:
        super().__init__(game, seed=seed)
        if not isinstance(game, SetCover):
            raise BoardgymError(f"the greedy agent solves set cover puzzles, not {game.name}; use it with setcover")
        self.puzzle = game
        self.random_ties = random_ties

    def act(self, game: Game, state: SetCoverState) -> Action:
        best = self.puzzle.greediest_sets(state)
        return best[int(self.rng.integers(len(best)))] if self.random_ties else best[0]
