"""Uniformly random legal moves."""

from __future__ import annotations

from typing import Any

from boardgym.agents.base import BaseAgent
from boardgym.game import Game
from boardgym.types import Action


class RandomAgent(BaseAgent):
    """Plays a uniformly random legal action, from its own seeded generator."""

    def act(self, game: Game, state: Any) -> Action:
        legal = game.legal_actions(state)
        return legal[int(self.rng.integers(len(legal)))]
