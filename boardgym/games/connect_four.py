"""Connect Four rules over int bitboards (7 columns x 6 rows).

Action = column, 0..6 (typed as a letter a..g). Bit ``7 * column + row`` is the cell at
``row`` (0 = bottom) of ``column``; the seventh bit of each column stays empty so that the
shift tests for four in a row never wrap across columns::

    6  .  .  .  .  .  .  .      bit numbers:   5 12 19 26 33 40 47
    5  .  .  .  .  .  .  .                     4 11 18 25 32 39 46
    ...                                        ...
    1  .  .  .  .  .  .  .                     0  7 14 21 28 35 42
       a  b  c  d  e  f  g

Player 0 moves first. Four in a line horizontally, vertically or diagonally wins; a full board
is a draw.

The state is a plain tuple ``(mover, occupied, info)``: the discs of the player to move, all
discs, and a small int ``info`` that says the rest: bit 0 the player to move (0/1), bit 1 set
when the last move won, bit 2 when it filled the board without a win, bits 3-9 the full
columns. ``info`` indexes precomputed tables (the legal moves, whether the game is over), so
``legal_actions`` and ``is_terminal`` are one list look-up each, and ``apply`` tests a move's
legality in one set of small ints. A plain tuple rather than a NamedTuple because playouts
build one per move: a tuple subclass costs about a third of a random playout's time.
``stones(state)`` gives the two players' boards, ``outcome(state)`` the result (-1 while the
game goes on, else the winner 0/1 or 2 for a draw), ``state_from_stones`` builds a state.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from boardgym.game import Game, HasRandomPlayout, HasSymmetricStates, HasSymmetries, win_loss_returns
from boardgym.games.bitboard import bits_to_cells
from boardgym.games.symmetry import augment, permute_bits
from boardgym.types import Action, BoardgymError, IllegalActionError, Planes, Player, as_action

COLUMNS, ROWS, HEIGHT = 7, 6, 7  # HEIGHT counts the sentinel bit
_BOTTOM = tuple(1 << (HEIGHT * c) for c in range(COLUMNS))
_TOP = tuple(1 << (HEIGHT * c + ROWS - 1) for c in range(COLUMNS))
COLUMN_MASKS = tuple(((1 << ROWS) - 1) << (HEIGHT * c) for c in range(COLUMNS))
"""The cells of each column (without its sentinel bit)."""
BOARD_MASK = sum(COLUMN_MASKS)
"""Every cell of the board."""
_TOPS = sum(_TOP)
BOTTOM_MASK = sum(_BOTTOM)
"""The bottom cell of every column."""
# ``info`` (see the module docstring): bit 0 player to move, bit 1 won, bit 2 drawn, bits 3-9
# the full columns.
_WON, _DRAWN, _OVER, _FULL_SHIFT = 2, 4, 6, 3
FULL_COLUMN_SHIFT = _FULL_SHIFT
"""Where a state's info word holds its full columns: bit ``FULL_COLUMN_SHIFT + c`` is set when
column ``c`` is full (the low bit is the player to move; the batched rules write the word)."""
_ALL_FULL = ((1 << COLUMNS) - 1) << _FULL_SHIFT
_INFOS = range(1 << (COLUMNS + _FULL_SHIFT))
# Per info: the legal columns (a list, copied for the caller), the same as a set (apply's
# legality test: a full column, a finished game and a non-column all miss it), game over.
_LEGAL = [[] if info & _OVER else [c for c in range(COLUMNS) if not info >> (c + _FULL_SHIFT) & 1] for info in _INFOS]
_LEGAL_SET = [frozenset(columns) for columns in _LEGAL]
_OVER_OF = [bool(info & _OVER) for info in _INFOS]
# (row from the top, column) -> bit index, for building observation planes.
_PLANE_BITS = np.array([[HEIGHT * c + (ROWS - 1 - r) for c in range(COLUMNS)] for r in range(ROWS)])
_BOARD_BITS = HEIGHT * COLUMNS
_TWO_PLANE_BITS = np.stack((_PLANE_BITS, _PLANE_BITS + _BOARD_BITS))  # own board, then opponent's
# The left-right mirror, the game's one symmetry: bit of (column, row) -> (6 - column, row).
_MIRROR_BITS = [HEIGHT * (COLUMNS - 1 - bit // HEIGHT) + bit % HEIGHT for bit in range(_BOARD_BITS)]
_MIRROR_ACTIONS = np.arange(COLUMNS)[::-1].copy()
_MIRROR_INFO = [
    (info & 7) | sum(1 << (COLUMNS - 1 - c + _FULL_SHIFT) for c in range(COLUMNS) if info >> (c + _FULL_SHIFT) & 1)
    for info in _INFOS
]


def _lines_of_four() -> tuple[int, ...]:
    lines = []
    for column in range(COLUMNS):
        for row in range(ROWS):
            for dc, dr in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(column + i * dc, row + i * dr) for i in range(4)]
                if all(0 <= c < COLUMNS and 0 <= r < ROWS for c, r in cells):
                    lines.append(sum(1 << (HEIGHT * c + r) for c, r in cells))
    return tuple(lines)


LINES = _lines_of_four()
"""The 69 lines of four cells (bitboards) in which a player can win."""


def _win_checks() -> dict[int, tuple[Any, ...]]:
    """For each cell (its bit), two tests for four in a row through it: one over the cells of
    its row and the three below it (the cells above are empty when a disc lands on it), one
    over its two diagonals. Each test is the mask of those cells (the new disc's own cell
    excluded) and every pattern of a player's discs on that mask that completes four with the
    new disc. A disc just dropped wins when the mover's discs on one of the two masks are a
    winning pattern; no line away from the new disc can hold four, or the game would be over
    already. Two look-ups in small sets (1,760 and 2,296 patterns over the whole board) cost
    less than one per direction. Flat: mask, patterns, mask, patterns."""
    checks = {}
    for column in range(COLUMNS):
        for row in range(ROWS):
            cell = 1 << (HEIGHT * column + row)
            tests: list[Any] = []
            for directions in (((0, 1), (1, 0)), ((1, 1), (1, -1))):
                fours = []  # each four through the cell, without the cell
                others = 0
                for dc, dr in directions:
                    steps = range(-3, 1) if (dc, dr) == (0, 1) else range(-3, 4)  # vertical: only below
                    run = [
                        1 << (HEIGHT * (column + i * dc) + row + i * dr)
                        for i in steps
                        if 0 <= column + i * dc < COLUMNS and 0 <= row + i * dr < ROWS
                    ]
                    for i in range(len(run) - 3):
                        four = sum(run[i : i + 4])
                        if four & cell:
                            fours.append(four ^ cell)
                    others |= sum(run) & ~cell
                bits = [1 << b for b in range(others.bit_length()) if others >> b & 1]
                winning = set()
                for subset in range(1 << len(bits)):
                    pattern = sum(bit for i, bit in enumerate(bits) if subset >> i & 1)
                    if any(pattern & four == four for four in fours):
                        winning.add(pattern)
                tests += [others, frozenset(winning)]
            checks[cell] = tuple(tests)
    return checks


_WIN_CHECKS = _win_checks()
# For apply: a cell's two checks followed by its column's full bit in ``info`` if the cell is
# the top of its column (else 0).
_APPLY_CELLS = {
    cell: (*checks, 1 << (cell.bit_length() - 1) // HEIGHT + _FULL_SHIFT if cell & _TOPS else 0)
    for cell, checks in _WIN_CHECKS.items()
}


def _playout_entries() -> dict[int, tuple[Any, ...]]:
    """For playouts, per cell: the cell, its two checks and the entry of the cell above it
    (``None`` at the top row), so that a playout holds the open columns' entries and never
    looks a cell up."""
    entries: dict[int, tuple[Any, ...]] = {}
    for column in range(COLUMNS):
        above = None
        for row in reversed(range(ROWS)):
            cell = 1 << (HEIGHT * column + row)
            above = entries[cell] = (cell, *_WIN_CHECKS[cell], above)
    return entries


_PLAYOUT_ENTRIES = _playout_entries()
# Playouts draw 29 random bits per move and take them modulo the number of open columns; draws
# at or above this multiple of 420 = lcm(1..7) are drawn again, so every column is exactly as
# likely (a draw is redone about once in 17 million).
_DRAW_BITS = 29
_DRAW_CAP = (1 << _DRAW_BITS) // 420 * 420

ONGOING, DRAW = -1, 2

ConnectFourState = tuple[int, int, int]
"""``(mover, occupied, info)``; see the module docstring."""


def stones(state: ConnectFourState) -> tuple[int, int]:
    """The bitboards of player 0 and player 1."""
    mover, occupied, info = state
    other = mover ^ occupied
    return (other, mover) if info & 1 else (mover, other)


def outcome(state: ConnectFourState) -> int:
    """-1 while the game goes on, else the winner (0 or 1) or 2 (``DRAW``) for a draw."""
    info = state[2]
    if info & _WON:
        return 1 - (info & 1)  # the last mover won; the other player is "to move"
    return DRAW if info & _DRAWN else ONGOING


def state_from_stones(black: int, white: int, player: int, outcome: int = ONGOING) -> ConnectFourState:
    """The state with these boards, ``player`` to move and ``outcome`` (-1: still going,
    0/1: that player won, 2: a draw; a finished game's ``player`` is the winner's opponent)."""
    if outcome not in (ONGOING, 0, 1, DRAW) or player not in (0, 1):
        raise ValueError(f"player must be 0 or 1 and outcome -1, 0, 1 or 2, not {player!r} and {outcome!r}")
    if outcome in (0, 1) and player == outcome:
        raise ValueError(f"player {outcome} won, so the player to move is {1 - outcome} (the winner moved last)")
    occupied = black | white
    info = player | sum(1 << (c + _FULL_SHIFT) for c in range(COLUMNS) if occupied & _TOP[c])
    if outcome == DRAW:
        info |= _DRAWN
    elif outcome != ONGOING:
        info |= _WON
    return (white if player else black, occupied, info)


def state_from_planes(planes: np.ndarray) -> ConnectFourState:
    """The position whose observation from the side to move is ``planes``
    (``ConnectFour.observation``: the mover's discs, then the opponent's; row 0 the top)."""
    cells = np.asarray(planes) > 0.5
    if cells.shape != (2, ROWS, COLUMNS) or (cells[0] & cells[1]).any():
        raise BoardgymError(f"planes of shape {tuple(np.shape(planes))} are not a Connect Four observation")
    own, opponent = (sum(1 << int(bit) for bit in _PLANE_BITS[plane]) for plane in cells)
    player = int(cells.sum()) % 2
    black, white = (own, opponent) if player == 0 else (opponent, own)
    return state_from_stones(black, white, player)


class ConnectFour(
    Game[ConnectFourState],
    HasSymmetries[ConnectFourState],
    HasSymmetricStates[ConnectFourState],
    HasRandomPlayout[ConnectFourState],
):
    name = "connect_four"
    num_players = 2
    num_actions = COLUMNS
    observation_shape = (2, ROWS, COLUMNS)

    def initial_state(self) -> ConnectFourState:
        return (0, 0, 0)

    def current_player(self, state: ConnectFourState) -> Player:
        return state[2] & 1

    def legal_actions(self, state: ConnectFourState) -> list[Action]:
        return [*_LEGAL[state[2]]]

    def apply(self, state: ConnectFourState, action: Action) -> ConnectFourState:
        if type(action) is not int:
            action = as_action(action)
        mover, occupied, info = state
        if action not in _LEGAL_SET[info]:  # not a column, a full one, or the game is over
            self.raise_illegal(state, action)
        # Adding the column's bottom bit carries up to its lowest empty cell (Pons's trick).
        after = occupied | (occupied + _BOTTOM[action])
        cell = after ^ occupied
        # Four in a line through the new disc (``_win_checks``): the mover's discs on the cells
        # around it, looked up among the winning patterns (two look-ups; cheaper than counting
        # the discs to skip them in the opening, where no pattern can match). The masks leave
        # out the new disc's own cell, so the mover's discs before the move are the pattern.
        m1, w1, m2, w2, full = _APPLY_CELLS[cell]
        if (mover & m1) in w1 or (mover & m2) in w2:
            return (mover ^ occupied, after, (info | full | _WON) ^ 1)
        if full:  # the disc filled its column
            info |= full
            if info >= _ALL_FULL:
                return (mover ^ occupied, after, info ^ (_DRAWN | 1))
        return (mover ^ occupied, after, info ^ 1)

    def is_terminal(self, state: ConnectFourState) -> bool:
        return _OVER_OF[state[2]]

    def returns(self, state: ConnectFourState) -> tuple[float, float]:
        return win_loss_returns(outcome(state))

    def random_playout(self, state: ConnectFourState, player: Player, rng: random.Random) -> float:
        """A uniformly random game from ``state`` to the end; the result for ``player``.

        The same bitboards as ``apply``, without a state per move: the open columns and the
        next free cell of each column are kept as they change, and each new disc is tested
        for four in a row as ``apply`` tests it (the patterns on its lines)."""
        # ``mine`` is always the board of the player about to move, ``sign`` their result.
        mine, occupied, info = state
        if info & _OVER:
            return self.returns(state)[player]
        to_move = info & 1
        theirs = mine ^ occupied
        sign = 1.0 if to_move == player else -1.0
        # The entries (``_playout_entries``) of the next free cell of each open column, in
        # column order (adding every column's bottom bit carries up to it; a full column
        # carries into its sentinel bit), kept as discs land: entry i is replaced by the one
        # above it, or by the last entry when the column fills.
        tops = (occupied + BOTTOM_MASK) & BOARD_MASK
        entries = _PLAYOUT_ENTRIES
        open_cells = [entries[tops & column] for column in COLUMN_MASKS if tops & column]
        n = len(open_cells)
        bits = rng.getrandbits
        width, cap = _DRAW_BITS, _DRAW_CAP
        # Nobody has four before the seventh disc on the board: no tests until then.
        quiet = max(0, 6 - occupied.bit_count())
        while quiet and n:
            x = bits(width)
            while x >= cap:
                x = bits(width)
            i = x % n
            cell, _, _, _, _, above = open_cells[i]
            mine |= cell
            if above:
                open_cells[i] = above
            else:
                n -= 1
                open_cells[i] = open_cells[n]
            mine, theirs = theirs, mine
            sign = -sign
            quiet -= 1
        while n:  # two plies per pass, so that neither board nor sign is swapped
            x = bits(width)
            while x >= cap:
                x = bits(width)
            i = x % n
            cell, m1, w1, m2, w2, above = open_cells[i]
            mine |= cell
            if (mine & m1) in w1 or (mine & m2) in w2:
                return sign
            if above:
                open_cells[i] = above
            else:
                n -= 1
                if not n:
                    break
                open_cells[i] = open_cells[n]
            x = bits(width)
            while x >= cap:
                x = bits(width)
            i = x % n
            cell, m1, w1, m2, w2, above = open_cells[i]
            theirs |= cell
            if (theirs & m1) in w1 or (theirs & m2) in w2:
                return -sign
            if above:
                open_cells[i] = above
            else:
                n -= 1
                open_cells[i] = open_cells[n]
        return 0.0

    def observation(self, state: ConnectFourState, player: Player) -> Planes:
        """Plane 0: ``player``'s discs, plane 1: the opponent's; row 0 is the top row."""
        mover, occupied, info = state
        to_move = info & 1
        own, opp = (mover, mover ^ occupied) if player == to_move else (mover ^ occupied, mover)
        return bits_to_cells(own | opp << _BOARD_BITS, 2 * _BOARD_BITS)[_TWO_PLANE_BITS]

    def symmetric_states(self, state: ConnectFourState) -> list[tuple[ConnectFourState, np.ndarray]]:
        """The position and its mirror image, with the action maps (``boardgym.games.symmetry``)."""
        mover, occupied, info = state
        mirror = (permute_bits(mover, _MIRROR_BITS), permute_bits(occupied, _MIRROR_BITS), _MIRROR_INFO[info])
        return [(state, np.arange(COLUMNS)), (mirror, _MIRROR_ACTIONS)]

    def symmetries(self, state: ConnectFourState, policy: np.ndarray) -> list[tuple[Planes, np.ndarray]]:
        """Observation planes and ``policy`` for the position and its mirror (AlphaZero augmentation)."""
        return augment(self, state, policy)

    def board_grid(self, state: ConnectFourState) -> np.ndarray:
        black, white = stones(state)
        cells = bits_to_cells(black, 49) + 2 * bits_to_cells(white, 49)
        return cells[_PLANE_BITS].astype(np.int8)

    def render(self, state: ConnectFourState) -> str:
        grid = self.board_grid(state)
        lines = [f"{ROWS - r}  " + "  ".join(".XO"[v] for v in grid[r]) for r in range(ROWS)]
        lines.append("   " + "  ".join("abcdefg"))
        result = outcome(state)
        if result == DRAW:
            lines.append("draw")
        elif result != ONGOING:
            lines.append(f"{'XO'[result]} wins")
        else:
            lines.append(f"{'XO'[state[2] & 1]} to move")
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
