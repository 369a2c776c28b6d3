"""Connect Four rules over int bitboards (7 columns x 6 rows).

Action = column, 0..6 (typed as a letter a..g). Bit ``7 * column + row`` is the cell at
``row`` (0 = bottom) of ``column``; the seventh bit of each column stays empty so that the
shift tests for four in a row never wrap across columns::

    6  .  .  .  .  .  .  .      bit numbers:   5 12 19 26 33 40 47
    5  .  .  .  .  .  .  .                     4 11 18 25 32 39 46
    ...                                        ...
    1  .  .  .  .  .  .  .                     0  7 14 21 28 35 42
       a  b  c  d  e  f  g

Player 0 moves first. Four in a row horizontally, vertically or diagonally wins; a full board
is a draw.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from boardgym.envs.bitboard import bits_to_cells
from boardgym.envs.symmetry import augment, permute_bits
from boardgym.game import GameBase
from boardgym.types import Action, IllegalActionError, Planes, Player

COLUMNS, ROWS, HEIGHT = 7, 6, 7  # HEIGHT counts the sentinel bit
_BOTTOM = tuple(1 << (HEIGHT * c) for c in range(COLUMNS))
_TOP = tuple(1 << (HEIGHT * c + ROWS - 1) for c in range(COLUMNS))
_COLUMN_MASK = tuple(((1 << ROWS) - 1) << (HEIGHT * c) for c in range(COLUMNS))
_FULL = sum(_COLUMN_MASK)
_TOPS = sum(_TOP)
# Legal columns for every pattern of full columns (keyed by the occupied top-row bits).
_OPEN_COLUMNS = {
    sum(_TOP[c] for c in range(COLUMNS) if full >> c & 1): tuple(c for c in range(COLUMNS) if not full >> c & 1)
    for full in range(1 << COLUMNS)
}
# (row from the top, column) -> bit index, for building observation planes.
_PLANE_BITS = np.array([[HEIGHT * c + (ROWS - 1 - r) for c in range(COLUMNS)] for r in range(ROWS)])
_BOARD_BITS = HEIGHT * COLUMNS
_TWO_PLANE_BITS = np.stack((_PLANE_BITS, _PLANE_BITS + _BOARD_BITS))  # own board, then opponent's
# The left-right mirror, the game's one symmetry: bit of (column, row) -> (6 - column, row).
_MIRROR_BITS = [HEIGHT * (COLUMNS - 1 - bit // HEIGHT) + bit % HEIGHT for bit in range(_BOARD_BITS)]
_MIRROR_ACTIONS = np.arange(COLUMNS)[::-1].copy()

ONGOING, DRAW = -1, 2
_new_state = tuple.__new__  # builds a NamedTuple without its keyword-argument __new__


def _has_four(bits: int) -> bool:
    """Four in a line: pair up neighbours by one shift, then pairs of pairs by two."""
    pairs = bits & bits >> 1  # vertical
    if pairs & pairs >> 2:
        return True
    pairs = bits & bits >> HEIGHT  # horizontal
    if pairs & pairs >> 2 * HEIGHT:
        return True
    pairs = bits & bits >> (HEIGHT - 1)  # diagonal \\
    if pairs & pairs >> 2 * (HEIGHT - 1):
        return True
    pairs = bits & bits >> (HEIGHT + 1)  # diagonal /
    return bool(pairs & pairs >> 2 * (HEIGHT + 1))


class ConnectFourState(NamedTuple):
    """``black``/``white``: the bitboards of player 0 / player 1; ``outcome`` is -1 ongoing,
    0/1 winner, 2 draw. Flat fields rather than a pair: one tuple per move in playouts."""

    black: int
    white: int
    player: int
    outcome: int

    @property
    def stones(self) -> tuple[int, int]:
        """Both bitboards, indexed by player (the convention every game's state follows)."""
        return (self.black, self.white)


class ConnectFour(GameBase[ConnectFourState]):
    name = "connect_four"
    num_players = 2
    num_actions = COLUMNS
    observation_shape = (2, ROWS, COLUMNS)

    def initial_state(self) -> ConnectFourState:
        return ConnectFourState(0, 0, 0, ONGOING)

    def current_player(self, state: ConnectFourState) -> Player:
        return state.player

    def legal_actions(self, state: ConnectFourState) -> list[Action]:
        if state.outcome != ONGOING:
            return []
        return list(_OPEN_COLUMNS[(state.black | state.white) & _TOPS])

    def apply(self, state: ConnectFourState, action: Action) -> ConnectFourState:
        black, white, player, outcome = state
        occupied = black | white
        if outcome != ONGOING or not 0 <= action < COLUMNS or occupied & _TOP[action]:
            self.check_legal(state, action)
        cell = (occupied + _BOTTOM[action]) & _COLUMN_MASK[action]
        if player == 0:
            black |= cell
            mine = black
        else:
            white |= cell
            mine = white
        # Four in a line (inlined _has_four: this is the hottest line of every playout); no
        # line is possible before the mover has four discs, i.e. seven on the board.
        if occupied.bit_count() >= 6 and (
            (pairs := mine & mine >> 1) & pairs >> 2
            or (pairs := mine & mine >> HEIGHT) & pairs >> 2 * HEIGHT
            or (pairs := mine & mine >> (HEIGHT - 1)) & pairs >> 2 * (HEIGHT - 1)
            or (pairs := mine & mine >> (HEIGHT + 1)) & pairs >> 2 * (HEIGHT + 1)
        ):
            outcome = player
        elif occupied | cell == _FULL:
            outcome = DRAW
        return _new_state(ConnectFourState, (black, white, 1 - player, outcome))

    def is_terminal(self, state: ConnectFourState) -> bool:
        return state.outcome != ONGOING

    def returns(self, state: ConnectFourState) -> tuple[float, float]:
        if state.outcome == 0:
            return (1.0, -1.0)
        if state.outcome == 1:
            return (-1.0, 1.0)
        return (0.0, 0.0)

    def observation(self, state: ConnectFourState, player: Player) -> Planes:
        """Plane 0: ``player``'s discs, plane 1: the opponent's; row 0 is the top row."""
        both = state.stones[player] | state.stones[1 - player] << _BOARD_BITS
        return bits_to_cells(both, 2 * _BOARD_BITS)[_TWO_PLANE_BITS]

    def symmetric_states(self, state: ConnectFourState) -> list[tuple[ConnectFourState, np.ndarray]]:
        """The position and its mirror image, with the action maps (``boardgym.envs.symmetry``)."""
        mirror = state._replace(
            black=permute_bits(state.black, _MIRROR_BITS), white=permute_bits(state.white, _MIRROR_BITS)
        )
        return [(state, np.arange(COLUMNS)), (mirror, _MIRROR_ACTIONS)]

    def symmetries(self, state: ConnectFourState, policy: np.ndarray) -> list[tuple[Planes, np.ndarray]]:
        """Observation planes and ``policy`` for the position and its mirror (AlphaZero augmentation)."""
        return augment(self, state, policy)

    def board_grid(self, state: ConnectFourState) -> np.ndarray:
        cells = bits_to_cells(state.stones[0], 49) + 2 * bits_to_cells(state.stones[1], 49)
        return cells[_PLANE_BITS].astype(np.int8)

    def render(self, state: ConnectFourState) -> str:
        grid = self.board_grid(state)
        lines = [f"{ROWS - r}  " + "  ".join(".XO"[v] for v in grid[r]) for r in range(ROWS)]
        lines.append("   " + "  ".join("abcdefg"))
        if state.outcome == DRAW:
            lines.append("draw")
        elif state.outcome != ONGOING:
            lines.append(f"{'XO'[state.outcome]} wins")
        else:
            lines.append(f"{'XO'[state.player]} to move")
        return "\n".join(lines)

    def action_to_str(self, state: ConnectFourState, action: Action) -> str:
        return "abcdefg"[action]

    def parse_action(self, state: ConnectFourState, text: str) -> Action:
        text = text.strip().lower()
        if len(text) == 1 and text in "abcdefg":
            action = "abcdefg".index(text)
        elif text.isdigit() and 1 <= int(text) <= COLUMNS:
            action = int(text) - 1
        else:
            raise IllegalActionError(
                f"cannot read move {text!r}: type a column letter a-g (or 1-7); "
                f"legal moves: {self.legal_moves_text(state)}"
            )
        self.check_legal(state, action)
        return action
