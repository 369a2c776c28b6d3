"""Rastros: distance to the goals along free cells (seed report 002's features, made sound).

The report scores the white stone's king-move distance to the base (4,5) and to the player's
goal. Straight-line distance ignores the black cells, which are what the game is about; here
each distance is a breadth-first search over free cells (one bitboard per step), so a walled-
off goal counts as far away. The value for a player is the opponent's goal distance minus
their own; ``features`` (the rules' four features with their ``feature_weights``) is
the report's linear form for evolved weights.
"""

from __future__ import annotations

import numpy as np

from boardgym.games.rastros import BOARD, GOALS, SIZE, Rastros, RastrosState, king_step
from boardgym.types import Player

UNREACHABLE = 2 * SIZE * SIZE


def path_distance(white: int, black: int, goal: int, avoid: int) -> int:
    """King moves from cell ``white`` to cell ``goal`` over cells that are not black and not
    ``avoid`` (the other goal, which would end the game); ``UNREACHABLE`` if walled off."""
    free = BOARD & ~black & ~(1 << avoid)
    target = 1 << goal
    reach = 1 << white
    steps = 0
    while not reach & target:
        grown = reach | (king_step(reach) & free)
        if grown == reach:
            return UNREACHABLE
        reach = grown
        steps += 1
    return steps


class GoalDistance:
    """Opponent's path distance to their goal minus the player's own."""

    def __init__(self, game: Rastros, rng: np.random.Generator) -> None:
        self.rng = rng

    def evaluate(self, state: RastrosState, player: Player) -> float:
        white, black = state.white, state.black
        own_goal, opp_goal = GOALS[player], GOALS[1 - player]
        own = path_distance(white, black, own_goal, opp_goal)
        opp = path_distance(white, black, opp_goal, own_goal)
        return float(opp - own)
