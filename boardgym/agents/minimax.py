"""Negamax alpha-beta with iterative deepening and a transposition table, over the rules API.

``minimax:depth=4``, ``minimax:time=0.5``, ``minimax:depth=3,eval=dijkstra``,
``minimax:exact=true`` (search to the end of the game: small games only).

The search follows OpenSpiel's ``minimax.py`` split: a private recursive core
(``AlphaBeta._negamax``) under a public entry point (``AlphaBeta.search``); the evaluation at
the horizon is a ``Heuristic`` from ``boardgym.agents.heuristics``, chosen by name per game.

- Values are from the point of view of the player on move. A win ``n`` plies from the root
  scores ``WIN - n`` and a loss ``-(WIN - n)``, so the search wins fast and loses slowly;
  heuristic values are clipped well inside ``(-WIN, WIN)``. Games whose turns do not
  alternate (Quarto) are handled by negating only when the player on move changes.
- Iterative deepening from depth 1: each iteration orders the root moves by the previous
  one's scores; it stops at the depth limit, when time runs out (the last finished
  iteration's move is played), when the root value is a proven win or loss, or when an
  iteration never reached its horizon (the whole game was searched: the value is exact).
- Transposition table keyed by the state (states are hashable): depth, bound type, value, best
  move and whether the value rested on the evaluation anywhere below (a horizon was reached).
  A hit on such an entry counts as reaching the horizon, so a value stored by a shallower
  search (or found again at another ply) is never reported as exact. Move ordering: the table's move first, then the heuristic's own order where it
  has one (``order_moves``), else the history heuristic (moves that caused cut-offs).
- A state repeated on the current path scores 0 (a draw), so games that can cycle (Quixo)
  terminate. Ties at the root are broken by the agent's seeded generator.
"""

from __future__ import annotations

import math
import sys
import time as _time
from dataclasses import dataclass
from typing import Any

from boardgym.agents.base import BaseAgent
from boardgym.agents.heuristics import Heuristic, OrdersMoves, make_heuristic
from boardgym.game import Game
from boardgym.types import Action, BoardgymError

WIN = 1_000_000.0
PROVEN = WIN - 10_000  # values beyond this are wins or losses found by search
HEURISTIC_LIMIT = 100_000.0
EXACT_DEPTH = 10_000

_EXACT, _LOWER, _UPPER = 0, 1, 2


class _OutOfTime(Exception):
    pass


@dataclass
class SearchResult:
    """What one ``AlphaBeta.search`` found: the move, its value for the player on move, the
    deepest finished iteration, whether that value is exact, and the nodes visited."""

    action: Action
    value: float
    depth: int
    exact: bool
    nodes: int
    seconds: float
    scores: dict[Action, float]


class AlphaBeta:
    """The search engine; ``MinimaxAgent`` wraps it for the agent registry."""

    def __init__(
        self,
        game: Game,
        heuristic: Heuristic,
        *,
        depth: int | None = None,
        time: float | None = None,
        table_size: int = 2_000_000,
    ) -> None:
        self.game = game
        self.heuristic = heuristic
        self.depth = depth
        self.time = time
        self.table_size = table_size
        # state -> (depth, bound, value, best move, rested on the evaluation)
        self.table: dict[Any, tuple[int, int, float, Action | None, bool]] = {}
        self.history: dict[Action, int] = {}
        self.nodes = 0
        self._deadline: float | None = None
        self._path: set[Any] = set()
        self._reached_horizon = False
        self._order_moves = heuristic.order_moves if isinstance(heuristic, OrdersMoves) else None

    def search(self, state: Any, root_order: list[Action] | None = None) -> SearchResult:
        """Iterative deepening from ``state``; ``root_order`` (e.g. shuffled legal moves) sets
        which of equally valued root moves is played."""
        game = self.game
        if game.is_terminal(state):
            raise BoardgymError("minimax cannot search from a finished game")
        if sys.getrecursionlimit() < 20_000:
            sys.setrecursionlimit(20_000)
        if len(self.table) > self.table_size:
            self.table.clear()
        start = _time.perf_counter()
        self._deadline = None if self.time is None else start + self.time
        self.nodes = 0
        moves = list(root_order) if root_order is not None else game.legal_actions(state)
        max_depth = self.depth if self.depth is not None else EXACT_DEPTH
        best = SearchResult(moves[0], 0.0, 0, False, 0, 0.0, {})
        for depth in range(1, max_depth + 1):
            self._reached_horizon = False
            try:
                value, action, scores = self._root(state, depth, moves, check_time=depth > 1)
            except _OutOfTime:
                break
            # Exact: the whole tree was searched, or a win/loss was proven within it.
            exact = not self._reached_horizon or abs(value) >= PROVEN
            best = SearchResult(action, value, depth, exact, self.nodes, 0.0, scores)
            if exact:
                break
            # Best first, then by score; sorted() is stable, so the given order breaks ties.
            moves = sorted(moves, key=lambda a: (a != action, -scores[a]))
            if self._deadline is not None and _time.perf_counter() >= self._deadline:
                break
        best.nodes = self.nodes
        best.seconds = _time.perf_counter() - start
        return best

    def value(self, state: Any, depth: int = EXACT_DEPTH) -> float:
        """Negamax value of ``state`` for the player on move, searched to ``depth``."""
        self._deadline = None
        if sys.getrecursionlimit() < 20_000:
            sys.setrecursionlimit(20_000)
        return self._negamax(state, depth, -WIN - 1, WIN + 1, 0)

    # -- the recursive core -----------------------------------------------------------------
    def _root(
        self, state: Any, depth: int, moves: list[Action], *, check_time: bool
    ) -> tuple[float, Action, dict[Action, float]]:
        game = self.game
        player = game.current_player(state)
        alpha, beta = -WIN - 1, WIN + 1
        deadline = self._deadline
        if not check_time:
            self._deadline = None
        try:
            best_value, best_action = -WIN - 2, moves[0]
            scores: dict[Action, float] = {}
            self._path.add(state)
            for action in moves:
                child = game.apply(state, action)
                if game.current_player(child) == player:
                    value = self._negamax(child, depth - 1, alpha, beta, 1)
                else:
                    value = -self._negamax(child, depth - 1, -beta, -alpha, 1)
                scores[action] = value
                if value > best_value:
                    best_value, best_action = value, action
                    alpha = max(alpha, value)
        finally:
            self._path.discard(state)
            self._deadline = deadline
        self.table[state] = (depth, _EXACT, best_value, best_action, self._reached_horizon)
        return best_value, best_action, scores

    def _negamax(self, state: Any, depth: int, alpha: float, beta: float, ply: int) -> float:
        self.nodes += 1
        if self._deadline is not None and not self.nodes & 255 and _time.perf_counter() >= self._deadline:
            raise _OutOfTime
        game = self.game
        player = game.current_player(state)
        if game.is_terminal(state):
            result = game.returns(state)[player]
            return WIN - ply if result > 0 else ply - WIN if result < 0 else 0.0
        if state in self._path:
            return 0.0  # a repetition: neither side can force progress through it
        if depth <= 0:
            self._reached_horizon = True
            value = self.heuristic.evaluate(state, player)
            return (
                HEURISTIC_LIMIT if value > HEURISTIC_LIMIT else -HEURISTIC_LIMIT if value < -HEURISTIC_LIMIT else value
            )
        table = self.table
        entry = table.get(state)
        table_move = None
        if entry is not None:
            entry_depth, bound, stored, table_move, approximate = entry
            if entry_depth >= depth:
                value = stored - ply if stored > PROVEN else stored + ply if stored < -PROVEN else stored
                if bound == _EXACT or (bound == _LOWER and value >= beta) or (bound == _UPPER and value <= alpha):
                    if approximate:
                        self._reached_horizon = True
                    return value
        original_alpha = alpha
        # Whether this node's value rests on the evaluation: its own subtree's flag, kept
        # apart from the siblings' so that the table can store it.
        outer_reached = self._reached_horizon
        self._reached_horizon = False
        moves = self._ordered(state, table_move)
        best_value, best_action = -WIN - 2, moves[0]
        apply, current_player = game.apply, game.current_player
        self._path.add(state)
        try:
            for action in moves:
                child = apply(state, action)
                if current_player(child) == player:
                    value = self._negamax(child, depth - 1, alpha, beta, ply + 1)
                else:
                    value = -self._negamax(child, depth - 1, -beta, -alpha, ply + 1)
                if value > best_value:
                    best_value, best_action = value, action
                    if value > alpha:
                        alpha = value
                        if alpha >= beta:
                            self.history[action] = self.history.get(action, 0) + depth * depth
                            break
        finally:
            self._path.discard(state)
        approximate = self._reached_horizon
        self._reached_horizon = outer_reached or approximate
        bound = _UPPER if best_value <= original_alpha else _LOWER if best_value >= beta else _EXACT
        stored = best_value + ply if best_value > PROVEN else best_value - ply if best_value < -PROVEN else best_value
        table[state] = (depth, bound, stored, best_action, approximate)
        return best_value

    def _ordered(self, state: Any, first: Action | None) -> list[Action]:
        moves = self.game.legal_actions(state)
        if self._order_moves is not None:
            moves = self._order_moves(state, moves)
        elif self.history:
            history = self.history
            moves = sorted(moves, key=lambda a: -history.get(a, 0))
        if first is not None and moves[0] != first and first in moves:
            moves.remove(first)
            moves.insert(0, first)
        return moves


class MinimaxAgent(BaseAgent):
    """Alpha-beta player: ``minimax:depth=4``, ``minimax:time=0.5``,
    ``minimax:depth=3,eval=dijkstra``, ``minimax:exact=true``.

    Parameters: ``depth`` (plies; default 3 when no time is given), ``time`` (seconds per
    move, iterative deepening; with ``depth`` both limits apply), ``eval`` (the heuristic's
    name, default the game's own; its ``GAMES`` entry names them, ``heuristic_names`` lists them),
    ``exact`` (no depth limit: search to the end; games too large for that need ``time=``).
    """

    def __init__(
        self,
        game: Game,
        *,
        seed: int | None = None,
        depth: int | None = None,
        time: float | None = None,
        eval: str | None = None,
        exact: bool = False,
    ) -> None:
        super().__init__(game, seed=seed)
        if depth is not None and depth < 1:
            raise BoardgymError(f"minimax depth={depth} must be at least 1 (or leave it out and set time=SECONDS)")
        if time is not None and not 0 < time < math.inf:
            raise BoardgymError(f"minimax time={time} must be a positive number of seconds")
        if exact and depth is not None:
            raise BoardgymError("minimax exact=true searches to the end of the game: leave depth out")
        if exact and time is None and not game.solvable_by_search:
            raise BoardgymError(
                f"{game!r} is too large to search to the end: add time=SECONDS to exact=true "
                "(iterative deepening until then), or use depth=N"
            )
        if depth is None and time is None and not exact:
            depth = 3
        self.heuristic = make_heuristic(game, eval, rng=self.rng)
        self.search = AlphaBeta(game, self.heuristic, depth=None if exact else depth, time=time)
        self.last: SearchResult | None = None

    def act(self, game: Game, state: Any) -> Action:
        moves = game.legal_actions(state)
        if len(moves) == 1:
            self.last_info = {"forced": True}
            return moves[0]
        order = [moves[i] for i in self.rng.permutation(len(moves))]
        self.last = self.search.search(state, root_order=order)
        self.last_info = {
            "score": self.last.value,
            "depth": self.last.depth,
            "nodes": self.last.nodes,
            "exact": self.last.exact,
        }
        return self.last.action

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None:
            self.heuristic.rng = self.rng
        self.search.table.clear()
        self.search.history.clear()
