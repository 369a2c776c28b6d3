"""The agent protocol: ``act(game, state) -> action``, plus ``reset`` and ``observe_outcome``."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from boardgym.game import Game
from boardgym.types import Action, Player


@runtime_checkable
class Agent(Protocol):
    """Anything that picks a legal action for the player on move in ``state``."""

    def act(self, game: Game, state: Any) -> Action: ...

    def reset(self, seed: int | None = None) -> None: ...


class BaseAgent:
    """Holds the game, a seeded generator and the spec the agent was made from.

    Subclasses take ``game`` and keyword-only parameters with simple types (int, float,
    bool, str, Path, or Optional of them); ``make_agent`` reads those from the spec string.
    """

    def __init__(self, game: Game, *, seed: int | None = None) -> None:
        self.game = game
        self.rng = np.random.default_rng(seed)
        self.spec = type(self).__name__

    def act(self, game: Game, state: Any) -> Action:
        raise NotImplementedError

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; a seed makes the agent's choices reproducible from here on."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def observe_outcome(self, game: Game, state: Any, player: Player) -> None:
        """Called once at the end of a game with the final state and this agent's seat."""

    def __repr__(self) -> str:
        return self.spec
