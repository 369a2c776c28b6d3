"""Exact game-theoretic play by memoised negamax over the whole game tree.

Values are kept as "distance to the end": a win in n plies scores ``WIN - n``, a loss in n
plies ``-(WIN - n)``, a draw 0. Choosing the best value therefore wins as fast as possible
and loses as slowly as possible; ties between equally good moves are broken at random.
Only for games whose rules say ``solvable_by_search`` (Tic-Tac-Toe, small Nim, small Hex...),
and for two games an exact solver covers beyond that: Hex up to 5x5 (``boardgym.solve.hex``,
its win/loss search with its table kept from move to move) and Quixo 3x3 and 4x4 without a
short move limit (``boardgym.solve.quixo``'s retrograde table, read from the runs root
``root``; 4x4's is built once by ``boardgym solve quixo --size 4``). Their values keep the
same scale: a Quixo win in n plies scores ``WIN - n``; a Hex win or loss scores ``WIN - 1`` or
its negative (any winning move wins: Hex cannot go round in circles).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from boardgym.agents.base import BaseAgent
from boardgym.game import Game
from boardgym.games.hex import Hex
from boardgym.games.quixo import Quixo
from boardgym.runs import RUNS_ROOT
from boardgym.types import Action, BoardgymError

HEX_SOLVED = 5  # the largest Hex the solver answers fast enough to play (about a second a move)

WIN = 10_000


class PerfectAgent(BaseAgent):
    """Plays an optimal move; refuses games too large for exhaustive search."""

    def __init__(self, game: Game, *, seed: int | None = None, root: str = str(RUNS_ROOT)) -> None:
        super().__init__(game, seed=seed)
        if game.num_players != 2:
            raise BoardgymError(
                f"the perfect agent plays two-player games; {game.name} has {game.num_players} player(s)"
            )
        self._values: dict[Any, int] = {}
        self._oracle: Callable[[Any], dict[Action, int]] | None = None
        self._hex_solver: Any = None  # Hex beyond exhaustive search: its solver picks the moves
        if not game.solvable_by_search and isinstance(game, Hex) and game.size <= HEX_SOLVED:
            from boardgym.solve.hex import HexSolver

            solver = HexSolver(game.size, swap=game.swap)
            self._hex_solver = solver
            self._oracle = lambda state: {a: v * (WIN - 1) for a, v in solver.move_values(state).items()}
        elif not game.solvable_by_search and isinstance(game, Quixo) and game.size in (3, 4):
            from boardgym.solve.quixo import QuixoTable, solve

            if game.size == 3:
                table = QuixoTable(3, *solve(3, log=lambda text: None))
            else:
                table = QuixoTable.load(game.size, root)
            self._oracle = lambda state: {a: v * (WIN - plies) for a, (v, plies) in table.move_values(state).items()}
        elif not game.solvable_by_search:
            raise BoardgymError(
                f"{game!r} is too large for the perfect agent's exhaustive search; "
                "use a search agent with a budget instead (see `boardgym list agents`)"
            )

    def act(self, game: Game, state: Any) -> Action:
        solver = self._hex_solver
        if solver is not None and not (solver.rules.swap and solver.rules._swap_ahead(state)):
            # One search finds a winning move; when there is none, every move loses alike.
            move = solver.winning_move(state)
            if move is not None:
                return move
            legal = game.legal_actions(state)
            return legal[int(self.rng.integers(len(legal)))]
        scored = self.action_values(state)
        best = max(scored.values())
        choices = [a for a, v in scored.items() if v == best]
        return choices[int(self.rng.integers(len(choices)))]

    def action_values(self, state: Any) -> dict[Action, int]:
        """The exact value of each legal action for the player on move (see module doc)."""
        if self._oracle is not None:
            return self._oracle(state)
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
        if self._oracle is not None:
            game = self.game
            if game.is_terminal(state):
                return round(WIN * game.returns(state)[game.current_player(state)])
            return max(self._oracle(state).values())
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
