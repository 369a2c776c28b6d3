"""Hex: the seed report's (001) "remaining hexes" evaluation, made a bit-parallel 0-1 BFS.

A player's distance is the fewest empty cells they must still fill to join their two edges:
own stones cost 0, empty cells 1, the opponent's stones are walls. The evaluation is the
opponent's distance minus the player's own, as in the report (which ran Dijkstra per cell).
Here every BFS layer is a whole bitboard: layer ``k`` holds all cells reachable with ``k``
empty cells, grown from layer ``k-1`` by one neighbour shift into the empty cells, then
flooded through own stones, so a 7x7 evaluation is a few dozen integer operations.

The board's geometry (bitboard layout, edges, neighbour shift, flood fill) is the rules'
(``boardgym.games.hex.Hex``): bit ``y * (size + 1) + x`` is cell (x, y).
"""

from __future__ import annotations

import numpy as np

from boardgym.games.hex import Hex, HexState, stones
from boardgym.types import Player


def distance(game: Hex, own: int, opp: int, player: Player) -> int:
    """Empty cells ``player`` still needs to join their edges (``unreachable(game)`` if blocked):
    the bit-parallel 0-1 BFS of the module doc, with own stones ``own`` and the opponent's ``opp``."""
    start, goal = game.edges[player]
    empty = game.board_bits & ~(own | opp)
    neighbours, flood = game.neighbours, game.flood
    reach = flood(start & own, own)
    frontier_start = start & empty
    k = 0
    while not reach & goal:
        grown = reach | ((neighbours(reach) | frontier_start) & empty)
        grown = flood(grown, own)
        if grown == reach:
            return unreachable(game)
        reach = grown
        k += 1
    return k


def unreachable(game: Hex) -> int:
    """More than any distance on ``game``'s board: a player whose edges are cut off."""
    return game.num_cells + 1


class ShortestPath:
    """Opponent's remaining-cells distance minus the player's (seed report 001)."""

    def __init__(self, game: Hex, rng: np.random.Generator) -> None:
        self.rng = rng
        self.game = game

    def evaluate(self, state: HexState, player: Player) -> float:
        own, opp = stones(state)[player], stones(state)[1 - player]
        return float(distance(self.game, opp, own, 1 - player) - distance(self.game, own, opp, player))


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
        self.game = game
        self.neighbours_of = {bit: game.neighbours(bit) for bit in game.cell_bits}

    def evaluate(self, state: HexState, player: Player) -> float:
        own_potential, own_mobility = self.potential(stones(state)[player], stones(state)[1 - player], player)
        opp_potential, opp_mobility = self.potential(stones(state)[1 - player], stones(state)[player], 1 - player)
        return float(opp_potential - own_potential) + 0.01 * (own_mobility - opp_mobility)

    def potential(self, own: int, opp: int, player: Player) -> tuple[int, int]:
        """(lowest potential, number of cells that have it) for ``player``."""
        game = self.game
        empty = game.board_bits & ~(own | opp)
        reach = self._contracted_neighbours(own, empty)
        start, goal = game.edges[player]
        from_start = self._layers(reach, empty, own, start)
        from_goal = self._layers(reach, empty, own, goal)
        far = unreachable(game)
        for total in range(2, 2 * far):
            cells = 0
            for i in range(1, min(total, len(from_start) + 1)):
                j = total - i
                if 1 <= j <= len(from_goal):
                    cells |= from_start[i - 1] & from_goal[j - 1]
            if cells:
                return total, cells.bit_count()
            if total > len(from_start) + len(from_goal):
                break
        return far * 2, 0

    def _contracted_neighbours(self, own: int, empty: int) -> dict[int, int]:
        """Empty cell -> its neighbouring empty cells, own chains contracted."""
        game = self.game
        neighbours_of = self.neighbours_of
        through_chains: dict[int, int] = {}
        remaining = own
        while remaining:
            seed = remaining & -remaining
            chain = game.flood(seed, own)
            remaining &= ~chain
            around = game.neighbours(chain) & empty
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
        game = self.game
        first = edge & empty
        chains_on_edge = game.flood(edge & own, own)
        if chains_on_edge:
            first |= game.neighbours(chains_on_edge) & empty
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
