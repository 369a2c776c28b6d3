"""Exact game-theoretic play by memoised negamax over the whole game tree.

Values are kept as "distance to the end": a win in n plies scores ``WIN - n``, a loss in n
plies ``-(WIN - n)``, a draw 0. Choosing the best value therefore wins as fast as possible
and loses as slowly as possible; ties between equally good moves are broken at random.
Only for games whose rules say ``solvable_by_search`` (Tic-Tac-Toe, small Nim, small Hex...).
"""

from __future__ import annotations

import sys
from typing import Any

from boardgym.agents.base import BaseAgent
from boardgym.game import Game
from boardgym.types import Action, BoardgymError

WIN = 10_000


class PerfectAgent(BaseAgent):
    """Plays an optimal move; refuses games too large for exhaustive search."""

    def __init__(self, game: Game, *, seed: int | None = None) -> None:
        super().__init__(game, seed=seed)
        if game.num_players != 2:
            raise BoardgymError(
                f"the perfect agent plays two-player games; {game.name} has {game.num_players} player(s)"
            )
        if not game.solvable_by_search:
            raise BoardgymError(
                f"{game!r} is too large for the perfect agent's exhaustive search; "
                "use a search agent with a budget instead (see `boardgym list agents`)"
            )
        self._values: dict[Any, int] = {}

    def act(self, game: Game, state: Any) -> Action:
        scored = self.action_values(state)
        best = max(scored.values())
        choices = [a for a, v in scored.items() if v == best]
        return choices[int(self.rng.integers(len(choices)))]

    def action_values(self, state: Any) -> dict[Action, int]:
        """The exact value of each legal action for the player on move (see module doc)."""
        game = self.game
        player = game.current_player(state)
        scored = {}
        for action in game.legal_actions(state):
            child = game.apply(state, action)
            child_value = self.value(child)
            scored[action] = _backed_up(child_value if game.current_player(child) == player else -child_value)
        return scored

    def value(self, state: Any) -> int:
        """Exact value of ``state`` for the player on move: > 0 win, < 0 loss, 0 draw."""
        cached = self._values.get(state)
        if cached is not None:
            return cached
        limit = sys.getrecursionlimit()
        if limit < 10_000:
            sys.setrecursionlimit(10_000)
        return self._solve(state)

    def _solve(self, state: Any) -> int:
        values = self._values
        cached = values.get(state)
        if cached is not None:
            return cached
        game = self.game
        if game.is_terminal(state):
            result = round(WIN * game.returns(state)[game.current_player(state)])
        else:
            player = game.current_player(state)
            result = -WIN - 1
            for action in game.legal_actions(state):
                child = game.apply(state, action)
                child_value = self._solve(child)
                if game.current_player(child) != player:  # most games alternate; Quarto may not
                    child_value = -child_value
                if child_value > result:
                    result = child_value
            result = _backed_up(result)
        values[state] = result
        return result


def _backed_up(value: int) -> int:
    """One ply further from the end: wins and losses shrink toward zero by one."""
    return value - 1 if value > 0 else value + 1 if value < 0 else 0
