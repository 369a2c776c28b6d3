"""Quarto: the seed report's (004) safe and threat pieces, made an exact one-move lookahead.

A piece is *deadly* when some line holds three pieces sharing an attribute value with it and
an empty fourth cell: whoever places it there wins. The deadly pieces of a position are one
16-bit mask, built from the lines with three pieces (at most ten), so the evaluation is:

- the player placing a deadly piece wins now: +1000 for them;
- the player choosing, with pieces left but none safe, must hand over a win: -1000 for them;
- otherwise a small positional term in place of the report's "frontier" score board: the
  player choosing prefers an odd number of safe pieces (so that, as the safe pieces run out,
  the last safe choice falls to them), and a player about to place a harmless piece scores
  0.1 per safe piece they will then have to choose from.

Move order: when choosing, safe pieces first; when placing, winning cells first.
"""

from __future__ import annotations

import numpy as np

from boardgym.games.quarto import ATTRIBUTES, CHOOSE, LINES, NO_PIECE, PIECES, Quarto, QuartoState
from boardgym.types import Action, Player

DECISIVE = 1000.0
# _WITH[k][v]: pieces whose attribute k has value v (bit p for piece p).
_WITH = tuple(
    (sum(1 << p for p in range(PIECES) if not p >> k & 1), sum(1 << p for p in range(PIECES) if p >> k & 1))
    for k in range(ATTRIBUTES)
)
_LINES_THROUGH = tuple(tuple(line for line in LINES if line >> cell & 1) for cell in range(16))


def deadly_pieces(state: QuartoState) -> int:
    """Mask of the pieces that complete a Quarto somewhere on this board."""
    occupied = state.occupied
    deadly = 0
    for line in LINES:
        filled = occupied & line
        if filled.bit_count() != 3:
            continue
        for k, attribute in enumerate(state.attributes):
            ones = attribute & line
            if ones == filled:
                deadly |= _WITH[k][1]
            elif not ones:
                deadly |= _WITH[k][0]
    return deadly


def winning_cells(state: QuartoState, piece: int) -> list[int]:
    """Empty cells where placing ``piece`` makes a Quarto."""
    occupied = state.occupied
    cells = []
    for cell in range(16):
        if occupied >> cell & 1:
            continue
        for line in _LINES_THROUGH[cell]:
            filled = occupied & line
            if filled.bit_count() != 3:
                continue
            if any((a & line == filled) if piece >> k & 1 else not a & line for k, a in enumerate(state.attributes)):
                cells.append(cell)
                break
    return cells


class SafePieces:
    """The evaluation above, from ``player``'s point of view."""

    def __init__(self, game: Quarto, rng: np.random.Generator) -> None:
        self.rng = rng

    def evaluate(self, state: QuartoState, player: Player) -> float:
        deadly = deadly_pieces(state)
        mover = state.player
        if state.piece != NO_PIECE:
            if deadly >> state.piece & 1:
                value = DECISIVE
            else:
                # After placing, the mover chooses from what is left; more safe choices help.
                value = 0.1 * (state.available & ~deadly).bit_count()
        else:
            available = state.available
            safe = available & ~deadly
            if available and not safe:
                value = -DECISIVE
            else:
                # The opponent will choose from the pieces after mine: an odd count of safe
                # pieces now leaves the last safe choice to me.
                count = safe.bit_count()
                value = 1.0 if count % 2 else -1.0
        return value if player == mover else -value

    def order_moves(self, state: QuartoState, moves: list[Action]) -> list[Action]:
        if state.piece == NO_PIECE:
            deadly = deadly_pieces(state)
            return sorted(moves, key=lambda a: deadly >> (a - CHOOSE) & 1)
        wins = set(winning_cells(state, state.piece))
        if not wins:
            return moves
        return sorted(moves, key=lambda a: a not in wins)
