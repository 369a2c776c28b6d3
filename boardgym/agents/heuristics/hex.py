"""Hex: the seed report's (001) "remaining hexes" evaluation, made a bit-parallel 0-1 BFS.

A player's distance is the fewest empty cells they must still fill to join their two edges:
own stones cost 0, empty cells 1, the opponent's stones are walls. The evaluation is the
opponent's distance minus the player's own, as in the report (which ran Dijkstra per cell).
Here every BFS layer is a whole bitboard: layer ``k`` holds all cells reachable with ``k``
empty cells, grown from layer ``k-1`` by one neighbour shift into the empty cells, then
flooded through own stones, so a 7x7 evaluation is a few dozen integer operations.

The bitboard layout is the rules' (``boardgym.games.hex``): bit ``y * (size + 1) + x``.
"""

from __future__ import annotations

import numpy as np

from boardgym.games.hex import Hex, HexState
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


class TwoDistance:
    """Anshelevich's two-distance potentials (Hexy, 2002), bit-parallel.

    An empty cell's two-distance to an edge is 1 next to that edge, else one more than the
    *second* smallest two-distance among its neighbours: the opponent can always take the best
    neighbour, so only the second best counts. Own stones are contracted (the empty cells around
    one chain are all neighbours of each other); the opponent's are walls. A cell's potential is
    its two-distance to one edge plus to the other; a player's potential is the lowest over the
    board, and ties between cells add "mobility". The value is the opponent's potential minus
    the player's, plus a small mobility difference.
    """

    def __init__(self, game: Hex, rng: np.random.Generator) -> None:
        self.rng = rng
        self.geometry = geometry = HexGeometry(game.size)
        self.neighbours_of = {bit: geometry.neighbours(bit) for bit in geometry.cells}

    def evaluate(self, state: HexState, player: Player) -> float:
        own_potential, own_mobility = self.potential(state.stones[player], state.stones[1 - player], player)
        opp_potential, opp_mobility = self.potential(state.stones[1 - player], state.stones[player], 1 - player)
        return float(opp_potential - own_potential) + 0.01 * (own_mobility - opp_mobility)

    def potential(self, own: int, opp: int, player: Player) -> tuple[int, int]:
        """(lowest potential, number of cells that have it) for ``player``."""
        geometry = self.geometry
        empty = geometry.board & ~(own | opp)
        reach = self._contracted_neighbours(own, empty)
        start, goal = geometry.edges[player]
        from_start = self._layers(reach, empty, own, start)
        from_goal = self._layers(reach, empty, own, goal)
        for total in range(2, 2 * geometry.unreachable):
            cells = 0
            for i in range(1, min(total, len(from_start) + 1)):
                j = total - i
                if 1 <= j <= len(from_goal):
                    cells |= from_start[i - 1] & from_goal[j - 1]
            if cells:
                return total, cells.bit_count()
            if total > len(from_start) + len(from_goal):
                break
        return geometry.unreachable * 2, 0

    def _contracted_neighbours(self, own: int, empty: int) -> dict[int, int]:
        """Empty cell -> its neighbouring empty cells, own chains contracted."""
        geometry = self.geometry
        neighbours_of = self.neighbours_of
        through_chains: dict[int, int] = {}
        remaining = own
        while remaining:
            seed = remaining & -remaining
            chain = geometry.flood(seed, own)
            remaining &= ~chain
            around = geometry.neighbours(chain) & empty
            bits = around
            while bits:
                bit = bits & -bits
                bits ^= bit
                through_chains[bit] = through_chains.get(bit, 0) | around
        reach = {}
        bits = empty
        while bits:
            bit = bits & -bits
            bits ^= bit
            reach[bit] = ((neighbours_of[bit] & empty) | through_chains.get(bit, 0)) & ~bit
        return reach

    def _layers(self, reach: dict[int, int], empty: int, own: int, edge: int) -> list[int]:
        """Cumulative masks: ``layers[k - 1]`` holds the empty cells at two-distance <= k."""
        geometry = self.geometry
        first = edge & empty
        chains_on_edge = geometry.flood(edge & own, own)
        if chains_on_edge:
            first |= geometry.neighbours(chains_on_edge) & empty
        layers = [first]
        seen_once = seen_twice = 0
        added, total = first, first
        while added:
            bits = added
            while bits:
                bit = bits & -bits
                bits ^= bit
                around = reach[bit]
                seen_twice |= seen_once & around
                seen_once |= around
            added = seen_twice & ~total
            if added:
                total |= added
                layers.append(total)
        return layers
