"""Connect Four played by the exact solver (``boardgym.solve.connect_four``) within a time budget.

``solver:time=1.0``: each move gets ``time`` seconds. The agent keeps, for every legal move,
an interval that holds the move's exact score (Pons's convention, from the mover's side) and
narrows it with null-window searches (each one a single ``Solver`` probe): always on the move
whose interval reaches highest, until the best interval's low end is at least every other
move's high end. Then the move is proved best (``last_info["exact"]`` is true); ties between
moves proved equally good are broken by the seeded generator. When time runs out first, the
agent plays the move with the best proved lower bound (then upper bound, then the most central
column), and ``last_info["exact"]`` is false: the deepest completed bounds, not a proof.

``last_info``: ``exact``, ``score`` (the move's score when known exactly, else ``None``),
``bounds`` ({column letter: [low, high]}), ``nodes``, ``seconds``. The solver's table is kept
from move to move, so later moves of a game are proved faster.
"""

from __future__ import annotations

import time as _time
from typing import Any

from boardgym.agents.base import BaseAgent
from boardgym.game import Game
from boardgym.games.connect_four import ConnectFourState
from boardgym.solve.connect_four import CELLS, Solver, SolveTimeout, winning_cells
from boardgym.types import Action, BoardgymError

_CENTRE_RANK = {column: rank for rank, column in enumerate((3, 2, 4, 1, 5, 0, 6))}
_STRIDE = 7
_BOTTOM = sum(1 << (_STRIDE * c) for c in range(7))
_BOARD = _BOTTOM * ((1 << 6) - 1)


class SolverAgent(BaseAgent):
    """Exact Connect Four play when the search proves it within ``time`` seconds a move."""

    def __init__(self, game: Game, *, seed: int | None = None, time: float = 1.0, table: int = 2_000_000) -> None:
        super().__init__(game, seed=seed)
        if game.name != "connect_four":
            raise BoardgymError(
                f"the solver agent plays connect_four only, not {game.name}; "
                "use perfect (small games) or minimax/mcts for other games"
            )
        if not time > 0:
            raise BoardgymError(f"solver time must be a positive number of seconds, not {time}")
        if table < 1000:
            raise BoardgymError(f"solver table must hold at least 1000 entries, not {table}")
        self.time = time
        self.solver = Solver(table_limit=table)

    def act(self, game: Game, state: Any) -> Action:
        start = _time.perf_counter()
        deadline = start + self.time
        nodes_before = self.solver.nodes
        bounds, exact = self.move_bounds(state, deadline)
        choice = self._choose(bounds, exact)
        low, high = bounds[choice]
        self.last_info = {
            "exact": exact,
            "score": low if low == high else None,
            "bounds": {"abcdefg"[c]: [lo, hi] for c, (lo, hi) in sorted(bounds.items())},
            "nodes": self.solver.nodes - nodes_before,
            "seconds": round(_time.perf_counter() - start, 4),
        }
        return choice

    def move_bounds(self, state: Any, deadline: float) -> tuple[dict[Action, tuple[int, int]], bool]:
        """Bounds on every legal move's exact score, narrowed until the best move is proved
        (returns ``True``) or ``deadline`` passes (``False``)."""
        current, mask, _ = state
        moves = mask.bit_count()
        threats = winning_cells(current, mask)
        bounds: dict[Action, list[int]] = {}
        children: dict[Action, ConnectFourState] = {}
        for column in self.game.legal_actions(state):
            move = (mask + (1 << (_STRIDE * column))) & (((1 << 6) - 1) << (_STRIDE * column))
            if move & threats:  # wins at once
                value = (CELLS + 1 - moves) // 2
                bounds[column] = [value, value]
                continue
            child_mask = mask | move
            opponent = current ^ mask
            child_possible = (child_mask + _BOTTOM) & _BOARD
            if child_mask == _BOARD:
                bounds[column] = [0, 0]
            elif winning_cells(opponent, child_mask) & child_possible:
                value = -((CELLS - moves) // 2)  # the opponent wins with the next stone
                bounds[column] = [value, value]
            else:
                children[column] = self.game.apply(state, column)
                # The child's score lies in [-(42 - n') // 2, (41 - n') // 2] with n' = moves + 1
                # stones, since nobody wins at once there; the move's score is its negation.
                bounds[column] = [-((CELLS - 1 - (moves + 1)) // 2), (CELLS - (moves + 1)) // 2]
        while True:
            best = max(bounds, key=lambda c: (bounds[c][1], bounds[c][0], -_CENTRE_RANK[c]))
            best_low = bounds[best][0]
            others = [c for c in bounds if c != best and bounds[c][1] > best_low]
            if not others:  # no other move can score more: ``best`` is proved best
                return {c: (lo, hi) for c, (lo, hi) in bounds.items()}, True
            if bounds[best][0] < bounds[best][1]:
                target = best
            else:
                target = max(others, key=lambda c: (bounds[c][1], -_CENTRE_RANK[c]))
            low, high = bounds[target]
            middle = low + (high - low) // 2
            if middle <= 0 and -(-low // 2) < middle:  # near 0 first, as the solver does
                middle = -(-low // 2)
            elif middle >= 0 and high // 2 > middle:
                middle = high // 2
            # Is the move's score above ``middle``? That is: is the child's score below -middle?
            threshold = -middle - 1
            try:
                result = self.solver.bound(children[target], threshold, deadline=deadline)
            except SolveTimeout:
                return {c: (lo, hi) for c, (lo, hi) in bounds.items()}, False
            if result <= threshold:  # the child scores at most ``result``: the move at least -result
                bounds[target][0] = max(low, -result)
            else:  # the child scores at least ``result``: the move at most -result
                bounds[target][1] = min(high, -result)

    def _choose(self, bounds: dict[Action, tuple[int, int]], exact: bool) -> Action:
        top = max(bounds, key=lambda c: (bounds[c][0], bounds[c][1], -_CENTRE_RANK[c]))
        low, high = bounds[top]
        if exact and low == high:  # every move proved to score as much is as good
            ties = sorted(c for c, (lo, hi) in bounds.items() if lo == hi == low)
            return ties[int(self.rng.integers(len(ties)))]
        return top
