"""Quarto rules over int bitboards: 4x4 board, 16 pieces, each turn is "place, then choose".

Pieces are numbered 0..15 and written as their four binary digits: piece 11 is ``1011``.
Each digit is one attribute (tall/short, dark/light, square/round, hollow/solid); two pieces
share an attribute where they have the same digit in the same place. Cells are named by
column letter and row number, ``a1`` top-left; cell index ``4 * row + column``::

        a    b    c    d
    1  .... .... .... ....      cell indices   0  1  2  3
    2  .... .... .... ....                     4  5  6  7
    3  .... .... .... ....                     8  9 10 11
    4  .... .... .... ....                    12 13 14 15

A turn has two actions by the same player: place the piece the opponent chose (actions 0..15,
the cell index, typed as the cell, e.g. ``b3``), then choose one of the remaining pieces for
the opponent (actions 16..31, ``16 + piece``, typed ``p11`` or ``1011``). The very first turn
only chooses. So the player to move changes after each choice, not after each placement.

A row, column or either diagonal of four pieces sharing one attribute value (all with the
digit 1, or all with the digit 0, in the same place) wins for the player who placed the last
piece. Sixteen pieces placed without such a line is a draw.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from boardgym.game import Game, HasSymmetricStates, HasSymmetries, win_loss_returns
from boardgym.games.bitboard import bits_to_cells
from boardgym.games.symmetry import augment, cell_targets, permute_bits, square_symmetries
from boardgym.types import Action, IllegalActionError, Planes, Player, as_action

CELLS = PIECES = 16
ATTRIBUTES = 4
CHOOSE = 16  # action CHOOSE + p chooses piece p
ALL = (1 << 16) - 1
NO_PIECE = -1
ONGOING, DRAW = -1, 2
LETTERS = "abcd"
LINES = tuple(
    [sum(1 << (4 * r + c) for c in range(4)) for r in range(4)]
    + [sum(1 << (4 * r + c) for r in range(4)) for c in range(4)]
    + [sum(1 << (5 * i) for i in range(4)), sum(1 << (3 * i + 3) for i in range(4))]
)
_LINES_THROUGH = tuple(tuple(line for line in LINES if line >> cell & 1) for cell in range(CELLS))
# The 8 symmetries of the square map rows to rows or columns and diagonals to diagonals, so
# they keep the lines; choices of pieces (actions 16..31) are unchanged.
_SYMMETRIES = tuple(
    (targets, np.array([*targets, *range(CHOOSE, CHOOSE + PIECES)]))
    for targets in (cell_targets(4, symmetry) for symmetry in square_symmetries(4))
)
_BITS = tuple(tuple(i for i in range(16) if mask >> i & 1) for mask in range(1 << 8))


class QuartoState(NamedTuple):
    """``attributes[k]``: cells holding a piece whose bit k is 1 (a cell's piece is
    ``sum(bit k of cell in attributes[k] << k)``); ``occupied``: cells holding a piece;
    ``available``: pieces neither on the board nor in hand (bit p for piece p); ``piece``: the
    piece to place, or -1 when the player to move must choose one; ``player``: to move;
    ``outcome``: -1 ongoing, 0/1 the winner, 2 a draw."""

    attributes: tuple[int, ...]  # four bitboards, one per attribute bit
    occupied: int
    available: int
    piece: int
    player: int
    outcome: int


class Quarto(Game[QuartoState], HasSymmetries[QuartoState], HasSymmetricStates[QuartoState]):
    """Quarto (see module doc): 32 actions, 16 placements then 16 choices."""

    name = "quarto"
    num_players = 2
    num_actions = CELLS + PIECES
    observation_shape = (8, 4, 4)

    def initial_state(self) -> QuartoState:
        return QuartoState((0, 0, 0, 0), 0, ALL, NO_PIECE, 0, ONGOING)

    def current_player(self, state: QuartoState) -> Player:
        return state.player

    def is_placing(self, state: QuartoState) -> bool:
        """True when the player to move must place ``state.piece``; False when they choose."""
        return state.piece != NO_PIECE

    def legal_actions(self, state: QuartoState) -> list[Action]:
        if state.outcome != ONGOING:
            return []
        if state.piece != NO_PIECE:
            return _set_bits(ALL & ~state.occupied)
        return [CHOOSE + p for p in _set_bits(state.available)]

    def apply(self, state: QuartoState, action: Action) -> QuartoState:
        if type(action) is not int:
            action = as_action(action)
        attributes, occupied, available, piece, player, outcome = state
        if outcome != ONGOING:
            self.raise_illegal(state, action)
        if piece != NO_PIECE:
            if not 0 <= action < CELLS or occupied >> action & 1:
                self.raise_illegal(state, action)
            cell = 1 << action
            attributes = tuple(a | cell if piece >> k & 1 else a for k, a in enumerate(attributes))
            occupied |= cell
            if _makes_quarto(attributes, occupied, action):
                outcome = player
            elif occupied == ALL:
                outcome = DRAW
            return QuartoState(attributes, occupied, available, NO_PIECE, player, outcome)
        chosen = action - CHOOSE
        if not 0 <= chosen < PIECES or not available >> chosen & 1:
            self.raise_illegal(state, action)
        return QuartoState(attributes, occupied, available & ~(1 << chosen), chosen, 1 - player, ONGOING)

    def is_terminal(self, state: QuartoState) -> bool:
        return state.outcome != ONGOING

    def returns(self, state: QuartoState) -> tuple[float, float]:
        return win_loss_returns(state.outcome)

    def piece_at(self, state: QuartoState, cell: int) -> int:
        """The piece on ``cell`` (0..15), or -1 for an empty cell."""
        if not state.occupied >> cell & 1:
            return NO_PIECE
        return sum((a >> cell & 1) << k for k, a in enumerate(state.attributes))

    def symmetric_states(self, state: QuartoState) -> list[tuple[QuartoState, np.ndarray]]:
        """The 8 rotations and reflections of the board, with the action maps (see
        ``boardgym.games.symmetry``)."""
        images = []
        for targets, actions in _SYMMETRIES:
            attributes = tuple(permute_bits(a, targets) for a in state.attributes)
            occupied = permute_bits(state.occupied, targets)
            images.append((state._replace(attributes=attributes, occupied=occupied), actions))
        return images

    def symmetries(self, state: QuartoState, policy: np.ndarray) -> list[tuple[Planes, np.ndarray]]:
        """Observation planes and ``policy`` for each symmetric image (AlphaZero augmentation)."""
        return augment(self, state, policy)

    # -- views --------------------------------------------------------------------------------
    def observation(self, state: QuartoState, player: Player) -> Planes:
        """Planes 0-3: cells whose piece has attribute bit k = 1 (k = 0..3); plane 4: occupied
        cells; plane 5: the available pieces, piece p at (p // 4, p % 4); plane 6: the piece in
        hand at the same spot (all zeros while choosing); plane 7: all ones while placing.
        Both players share the pieces, so the planes do not depend on ``player``."""
        planes = np.zeros((8, 16), dtype=np.float32)
        for k, a in enumerate(state.attributes):
            planes[k] = bits_to_cells(a, CELLS)
        planes[4] = bits_to_cells(state.occupied, CELLS)
        planes[5] = bits_to_cells(state.available, PIECES)
        if state.piece != NO_PIECE:
            planes[6, state.piece] = 1.0
            planes[7] = 1.0
        return planes.reshape(8, 4, 4)

    def render(self, state: QuartoState) -> str:
        lines = ["     " + "    ".join(LETTERS)]
        for r in range(4):
            cells = []
            for c in range(4):
                p = self.piece_at(state, 4 * r + c)
                cells.append("...." if p == NO_PIECE else f"{p:04b}")
            lines.append(f"{r + 1:>2}  " + " ".join(cells))
        pieces = " ".join(f"p{p}={p:04b}" for p in _set_bits(state.available))
        lines.append(f"available: {pieces or '-'}")
        who = f"player {state.player}"
        if state.outcome == DRAW:
            lines.append("draw: the board is full")
        elif state.outcome != ONGOING:
            lines.append(f"player {state.outcome} wins (quarto)")
        elif state.piece != NO_PIECE:
            lines.append(f"{who} places p{state.piece}={state.piece:04b} (type a cell, e.g. b3)")
        else:
            lines.append(f"{who} chooses a piece for the opponent (type p<number> or its code, e.g. p11 or 1011)")
        return "\n".join(lines)

    def action_to_str(self, state: QuartoState, action: Action) -> str:
        if action < CELLS:
            return f"{LETTERS[action % 4]}{action // 4 + 1}"
        return f"p{action - CHOOSE}"

    def parse_action(self, state: QuartoState, text: str) -> Action:
        text = text.strip().lower()
        if match := re.fullmatch(r"([a-d])([1-4])", text):
            action = LETTERS.index(match[1]) + 4 * (int(match[2]) - 1)
        elif match := re.fullmatch(r"p\s*(\d{1,2})", text):
            action = CHOOSE + int(match[1]) if int(match[1]) < PIECES else -1
        elif re.fullmatch(r"[01]{4}", text):
            action = CHOOSE + int(text, 2)
        else:
            action = -1
        if action < 0:
            raise IllegalActionError(
                f"cannot read move {text!r}: type a cell a1-d4 to place, or a piece p0-p15 (or its 4-digit "
                f"code such as 1011) to choose; legal moves: {self.legal_moves_text(state)}"
            )
        self.check_legal(state, action)
        return action


def _makes_quarto(attributes: tuple[int, ...], occupied: int, cell: int) -> bool:
    for line in _LINES_THROUGH[cell]:
        if occupied & line != line:
            continue
        for a in attributes:
            shared = a & line
            if shared == line or not shared:
                return True
    return False


def _set_bits(mask: int) -> list[int]:
    """Indices of the set bits of a 16-bit mask, ascending (two table look-ups)."""
    return [*_BITS[mask & 0xFF], *(i + 8 for i in _BITS[mask >> 8])]
