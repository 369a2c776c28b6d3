"""Hex: the seed report's (001) "remaining hexes" evaluation, made a bit-parallel 0-1 BFS.

A player's distance is the fewest empty cells they must still fill to join their two edges:
own stones cost 0, empty cells 1, the opponent's stones are walls. The evaluation is the
opponent's distance minus the player's own, as in the report (which ran Dijkstra per cell).
Here every BFS layer is a whole bitboard: layer ``k`` holds all cells reachable with ``k``
empty cells, grown from layer ``k-1`` by one neighbour shift into the empty cells, then
flooded through own stones, so a 7x7 evaluation is a few dozen integer operations.

The bitboard layout is the rules' (``boardgym.envs.hex``): bit ``y * (size + 1) + x``.
"""

from __future__ import annotations

import numpy as np

from boardgym.envs.hex import Hex, HexState
from boardgym.types import Player


class HexGeometry:
    """Masks and the neighbour shift for one board size."""

    def __init__(self, size: int) -> None:
        self.size = n = size
        self.stride = s = n + 1
        self.cells = tuple(1 << (y * s + x) for y in range(n) for x in range(n))
        self.board = sum(self.cells)
        top = sum(1 << x for x in range(n))
        left = sum(1 << (y * s) for y in range(n))
        # Player 0 (Black) joins row 1 to row n; player 1 (White) column a to the last column.
        self.edges = ((top, top << (s * (n - 1))), (left, left << (n - 1)))
        self.unreachable = n * n + 1

    def neighbours(self, bits: int) -> int:
        s, d = self.stride, self.stride - 1
        return (bits << 1 | bits >> 1 | bits << s | bits >> s | bits << d | bits >> d) & self.board

    def flood(self, group: int, through: int) -> int:
        """``group`` grown through the cells of ``through`` until it stops."""
        while True:
            grown = (group | self.neighbours(group)) & (group | through)
            if grown == group:
                return group
            group = grown

    def distance(self, own: int, opp: int, player: Player) -> int:
        """Empty cells ``player`` still needs to join their edges (``unreachable`` if blocked)."""
        start, goal = self.edges[player]
        empty = self.board & ~(own | opp)
        reach = self.flood(start & own, own)
        frontier_start = start & empty
        k = 0
        while not reach & goal:
            grown = reach | ((self.neighbours(reach) | frontier_start) & empty)
            grown = self.flood(grown, own)
            if grown == reach:
                return self.unreachable
            reach = grown
            k += 1
        return k


class ShortestPath:
    """Opponent's remaining-cells distance minus the player's (seed report 001)."""

    def __init__(self, game: Hex, rng: np.random.Generator) -> None:
        self.rng = rng
        self.geometry = HexGeometry(game.size)

    def evaluate(self, state: HexState, player: Player) -> float:
        own, opp = state.stones[player], state.stones[1 - player]
        distance = self.geometry.distance
        return float(distance(opp, own, 1 - player) - distance(own, opp, player))
