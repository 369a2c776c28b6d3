"""The ``astar`` and ``ucs`` agents: they search a one-player puzzle once with
``boardgym.solve.astar.search`` (A*, or uniform-cost search without the heuristic), play the
first action of the plan and replay the rest of it; ``max_nodes`` and ``time_limit`` bound
each search.
"""

from __future__ import annotations

import math
from typing import Any

from boardgym.agents.base import BaseAgent
from boardgym.game import Game
from boardgym.solve.astar import SearchResult, search
from boardgym.types import Action, BoardgymError


class AStarAgent(BaseAgent):
    """Plays an optimal solution found by A* (see the module doc for the budgets)."""

    use_heuristic = True

    def __init__(
        self, game: Game, *, seed: int | None = None, max_nodes: int = 1_000_000, time_limit: float = 60.0
    ) -> None:
        super().__init__(game, seed=seed)
        if game.num_players != 1:
            raise BoardgymError(
                f"the {type(self).__name__} plays one-player puzzles; {game.name} has {game.num_players} players"
            )
        if max_nodes < 1:
            raise BoardgymError(
                f"{type(self).__name__.removesuffix('Agent').lower()} max_nodes={max_nodes} must be at least 1"
            )
        if not 0 < time_limit < math.inf:
            raise BoardgymError(
                f"{type(self).__name__.removesuffix('Agent').lower()} time_limit={time_limit} must be a positive number of seconds"
            )
        self.max_nodes = max_nodes
        self.time_limit = time_limit
        self.last_result: SearchResult | None = None
        self._plan: dict[Any, Action] = {}

    def act(self, game: Game, state: Any) -> Action:
        action = self._plan.get(state)
        if action is None:
            result = self.solve(state)
            self._plan = {}
            node = state
            for step in result.actions:
                self._plan[node] = step
                node = game.apply(node, step)
            action = self._plan[state]
        return action

    def solve(self, state: Any) -> SearchResult:
        """Search from ``state`` within this agent's budgets; the result is kept in ``last_result``."""
        self.last_result = search(
            self.game, state, use_heuristic=self.use_heuristic, max_nodes=self.max_nodes, time_limit=self.time_limit
        )
        return self.last_result

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plan = {}


class UCSAgent(AStarAgent):
    """Uniform-cost search: A* without the heuristic (the baseline A* must beat)."""

    use_heuristic = False
