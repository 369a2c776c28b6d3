"""Hex rules over int bitboards, any size from 3x3 to 19x19, with an optional swap (pie) rule.

Coordinates follow the standard notation (HexGui / Benzene): a cell is a column letter and a
row number, ``a1`` is the top-left (acute) corner. Each row is drawn half a cell to the right
of the one above, so the neighbours of ``(x, y)`` are ``(x+-1, y)``, ``(x, y+-1)``,
``(x+1, y-1)`` and ``(x-1, y+1)``::

         a b c d
      1  . . . .  1        Black (X, player 0) moves first and joins row 1 to row n.
       2  . . . .  2       White (O, player 1) joins column a to the last column.
        3  . . . .  3
         4  . . . .  4
                 a b c d

Action ``y * size + x`` places a stone on column ``x``, row ``y`` (0-based): ``a1`` is 0,
``b1`` is 1, ``a2`` is ``size``. With ``swap=True`` there is one more action, ``size * size``
(typed ``swap``), legal only for White's first move: Black's stone on ``(x, y)`` is replaced by
a White stone on the mirrored cell ``(y, x)`` and Black moves again (the "swap pieces" form of
the pie rule, so each colour keeps its own pair of edges). Hex has no draws: a full board
always holds exactly one winning chain.

Bitboards use a row stride of ``size + 1``: the extra, always-empty column stops the six
neighbour shifts from wrapping from one row into the next, so a flood fill is a handful of
shifts per step, fast on 19x19.

A state also carries what the rules would otherwise recompute at every move, all of it a
function of the stones (so equal positions are equal states, whatever the move order):
``groups``, each player's stones joined to each of its two edges, and ``free``, the empty
cells' actions in ascending order. A move then tests the new stone's neighbours against the
edge groups (a win is a stone that touches both), floods only the stones it newly joins to an
edge, and takes its cell out of ``free``; the legal moves are a copy of ``free``.
"""

from __future__ import annotations

import random
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable

import numpy as np

from boardgym.game import Game, HasFeatures, HasRandomPlayout, HasSymmetricStates, HasSymmetries
from boardgym.games.bitboard import column_letters
from boardgym.games.symmetry import augment, cell_targets, permute_bits, square_symmetries
from boardgym.types import Action, BoardgymError, IllegalActionError, Planes, Player, as_action

MIN_SIZE, MAX_SIZE = 3, 19
ONGOING = -1
BLACK, WHITE = 0, 1
SWAP_TEXT = "swap"


HexState = tuple[int, int, int, int, int, int, int, int, bytes | tuple[int, ...]]
"""One flat tuple ``(black, white, player, outcome, black_near, black_far, white_near,
white_far, free)``: a move builds one tuple and nothing else (a plain tuple rather than a
NamedTuple: reading and building a tuple subclass costs more). ``black``, ``white``: the
players' bitboards (bit ``y * (size + 1) + x``); ``player``: to move; ``outcome``: -1 ongoing,
else the winner (0 Black, 1 White); ``black_near``, ``black_far``: Black's stones joined to
its near and far edges, then White's the same; ``free``: the empty cells' actions, ascending
(``bytes`` up to 16x16, whose actions fit in a byte: a move's copy is then one block copy, and
the legal list is made of cached small ints; a tuple above). ``Hex.state(black, white,
player)`` builds one from the stones; ``stones(state)``, ``outcome(state)`` and
``Hex.current_player`` read them back."""


def stones(state: HexState) -> tuple[int, int]:
    """Black's and White's bitboards."""
    return state[0], state[1]


def outcome(state: HexState) -> int:
    """-1 while the game goes on, else the winner (0 Black, 1 White)."""
    return state[3]


_BYTES = [bytes((action,)) for action in range(256)]  # an action's byte in a ``free`` of bytes


class Hex(
    Game[HexState],
    HasFeatures[HexState],
    HasSymmetries[HexState],
    HasSymmetricStates[HexState],
    HasRandomPlayout[HexState],
):
    """Hex on a ``size`` x ``size`` rhombus; ``swap`` enables the pie rule (see module doc)."""

    name = "hex"
    num_players = 2
    feature_weights = (1.0, -1.0, 1.0, -1.0)  # own spans count for, the opponent's against

    def __init__(self, size: int = 11, swap: bool = False) -> None:
        if not isinstance(size, (int, np.integer)) or not MIN_SIZE <= size <= MAX_SIZE:
            raise BoardgymError(f"Hex size={size!r} must be an integer from {MIN_SIZE} to {MAX_SIZE}, e.g. size=11")
        self.size = n = int(size)
        self.swap = bool(swap)
        self.num_cells = n * n
        self.num_actions = n * n + (1 if self.swap else 0)
        self.swap_action: Action | None = n * n if self.swap else None
        self.observation_shape = (3, n, n)
        # The geometry (see "geometry" below), public for the heuristics to read.
        self.stride = stride = n + 1
        self.cell_bits = tuple(1 << (y * stride + x) for y in range(n) for x in range(n))
        self.board_bits = sum(self.cell_bits)
        row0 = sum(self.cell_bits[:n])
        column0 = sum(self.cell_bits[y * n] for y in range(n))
        self.edges = ((row0, row0 << (stride * (n - 1))), (column0, column0 << (n - 1)))
        # Per player and cell: the cell's bit, its neighbours, whether it lies on the player's
        # near and far edges, and its action's byte in a ``free`` of bytes (None when ``free``
        # is a tuple): what a move reads, in one look-up.
        free_bytes = n * n <= len(_BYTES)  # every action fits in a byte
        self._free_type: Callable[[Iterable[Action]], bytes | tuple[Action, ...]] = bytes if free_bytes else tuple
        self._moves = tuple(
            tuple(
                (bit, self.neighbours(bit), bool(bit & near), bool(bit & far), _BYTES[a] if free_bytes else None)
                for a, bit in enumerate(self.cell_bits)
            )
            for near, far in self.edges
        )
        bit = self.cell_bits
        self._mirror = {bit[y * n + x]: bit[x * n + y] for y in range(n) for x in range(n)}
        self._letters = column_letters(n)
        rows = tuple(sum(bit[y * n + x] for x in range(n)) for y in range(n))
        columns = tuple(sum(bit[y * n + x] for y in range(n)) for x in range(n))
        self._bands = (rows, columns)  # what each side must cross: Black the rows, White the columns
        # The half turn keeps each colour's pair of edges (and commutes with the swap mirror).
        self._half_turn = cell_targets(n, square_symmetries(n)[2], stride)
        self._half_turn_actions = np.array([*range(n * n - 1, -1, -1), *([n * n] if self.swap else [])])
        self._initial = self.state(0, 0, BLACK)

    def params(self) -> dict[str, object]:
        return {"size": self.size, "swap": self.swap}

    # -- rules --------------------------------------------------------------------------------
    def initial_state(self) -> HexState:
        return self._initial

    def state(self, black: int, white: int, player: Player) -> HexState:
        """The position with these bitboards and ``player`` to move, its winner (if any), edge
        groups and free cells computed from scratch."""
        if black & white or (black | white) & ~self.board_bits or player not in (BLACK, WHITE):
            raise BoardgymError(
                f"bitboards black={black:#x}, white={white:#x} with player {player!r} are not a {self.size}x"
                f"{self.size} Hex position (stones on distinct cells of the board, player 0 or 1)"
            )
        groups = []
        for stones, (near, far) in zip((black, white), self.edges, strict=True):
            groups += [self.flood(stones & near, stones), self.flood(stones & far, stones)]
        outcome = ONGOING
        for side in (BLACK, WHITE):
            if groups[2 * side] & groups[2 * side + 1]:
                outcome = side
        occupied = black | white
        free = self._free_type(a for a, bit in enumerate(self.cell_bits) if not occupied & bit)
        return (black, white, player, outcome, groups[0], groups[1], groups[2], groups[3], free)

    def current_player(self, state: HexState) -> Player:
        return state[2]

    def legal_actions(self, state: HexState) -> list[Action]:
        if state[3] != ONGOING:
            return []
        legal = [*state[8]]  # (faster than list(): no call through the type)
        if self.swap and self._swap_allowed(state):
            legal.append(self.num_cells)
        return legal

    def apply(self, state: HexState, action: Action) -> HexState:
        if type(action) is not int:
            action = as_action(action)
        black, white, player, outcome, black_near, black_far, white_near, white_far, free = state
        try:
            bit, around, on_near, on_far, byte = self._moves[player][action]
        except (IndexError, TypeError):  # the swap action, or not a cell
            if action != self.swap_action or not self._swap_allowed(state) or outcome != ONGOING:
                self.raise_illegal(state, action)
            return self.state(0, self._mirror[black], BLACK)
        if outcome != ONGOING or action < 0:
            self.raise_illegal(state, action)
        # Taking the cell out of ``free`` is also the test that it is empty.
        if byte is not None:  # ``free`` is bytes: one C call, each action is in free once
            left = free.replace(byte, b"", 1)  # type: ignore[union-attr]  # (free is bytes here)
            if left == free:  # nothing taken out: the cell is not empty
                self.raise_illegal(state, action)
            free = left
        else:
            i = bisect_left(free, action)
            if i == len(free) or free[i] != action:
                self.raise_illegal(state, action)
            free = free[:i] + free[i + 1 :]  # type: ignore[operator]  # tuple + tuple
        if player == BLACK:
            near, far = black_near, black_far
            mine = black | bit
        else:
            near, far = white_near, white_far
            mine = white | bit
        # The new stone joins an edge when it lies on it or touches a stone joined to it; then
        # its chain joins too: the stones not yet joined to that edge that a flood from it
        # reaches (none to flood when no such stone is next to it; else the flood starts from
        # the stone and those next to it). The groups are sets of the player's stones, so
        # ``mine ^ group`` is ``mine & ~group`` (one operation on positive ints, not two).
        if on_near or around & near:
            rest = mine ^ near
            touching = around & rest
            near |= self.flood(bit | touching, rest) if touching else bit
            if on_far or around & far:
                rest = mine ^ far
                touching = around & rest
                far |= self.flood(bit | touching, rest) if touching else bit  # joined to both edges: a win
                outcome = player
        elif on_far or around & far:
            rest = mine ^ far
            touching = around & rest
            far |= self.flood(bit | touching, rest) if touching else bit
        if player == BLACK:
            return (mine, white, 1, outcome, near, far, white_near, white_far, free)
        return (black, mine, 0, outcome, black_near, black_far, near, far, free)

    def is_terminal(self, state: HexState) -> bool:
        return state[3] != ONGOING  # outcome

    def returns(self, state: HexState) -> tuple[float, float]:
        if state[3] == BLACK:
            return (1.0, -1.0)
        if state[3] == WHITE:
            return (-1.0, 1.0)
        return (0.0, 0.0)

    def random_playout(self, state: HexState, player: Player, rng: random.Random) -> float:
        """A uniformly random game from ``state`` to the end; the result for ``player``.

        A random game fills the empty cells in a uniformly random order, colours alternating,
        and Hex has no draws: a stone placed after someone has connected never changes the
        winner. So the rest of the game is one random split of the empty cells (the player to
        move gets the extra one when their number is odd) and one flood fill of the full
        board. The swap move is not a cell: while it may still come, moves are played one by
        one as ``generic_playout`` plays them.

        The split draws one random bit per board position and keeps the draw when the empty
        cells hold exactly the mover's share of ones (conditioned on its size, a set of fair
        coin flips is a uniformly random subset): a few calls into the generator rather than
        one per cell."""
        while self.swap and self._swap_ahead(state):
            legal = self.legal_actions(state)
            state = self.apply(state, legal[int(rng.random() * len(legal))])
        if state[3] != ONGOING:
            return self.returns(state)[player]
        black, white = state[0], state[1]
        empty_bits = self.board_bits & ~(black | white)
        share = (empty_bits.bit_count() + 1) // 2
        positions = self.stride * self.size
        getrandbits = rng.getrandbits
        while True:
            mover_cells = getrandbits(positions) & empty_bits
            if mover_cells.bit_count() == share:
                break
        black |= mover_cells if state[2] == BLACK else empty_bits ^ mover_cells
        top, bottom = self.edges[BLACK]
        black_wins = bool(self.flood(black & top | state[4], black) & bottom)  # (state[4]: Black's near group)
        return 1.0 if black_wins == (player == BLACK) else -1.0

    @property
    def solvable_by_search(self) -> bool:
        # 3x3 takes thousands of states; 4x4 already takes millions (minutes, gigabytes).
        return self.size <= 3

    def features(self, state: HexState, player: Player) -> np.ndarray:
        """Evaluation features for ``player`` (weights over them are evolved by ``coevolve``):
        how many of the rows (Black) or columns (White) between the player's two edges hold one
        of its stones, the same for the opponent, and for each side the most of those rows or
        columns that one chain crosses."""
        sides = (player, 1 - player)
        boards = stones(state)
        values = [self._spanned(boards[side], side) for side in sides]
        values += [self._longest_chain_span(boards[side], side) for side in sides]
        return np.array(values, dtype=np.float32)

    def _spanned(self, stones: int, side: Player) -> int:
        """Rows (Black) or columns (White) that hold at least one of ``stones``."""
        return sum(1 for band in self._bands[side] if stones & band)

    def _longest_chain_span(self, stones: int, side: Player) -> int:
        best = 0
        while stones:
            chain = self.flood(stones & -stones, stones)
            best = max(best, self._spanned(chain, side))
            stones &= ~chain
        return best

    def winning_chain(self, state: HexState) -> int:
        """The winner's stones that are connected to both of the winner's edges (0 if none)."""
        winner = state[3]
        if winner == ONGOING:
            return 0
        chains = stones(state)[winner]
        near, far = self.edges[winner]
        from_near = self.flood(chains & near, chains)
        return from_near & self.flood(chains & far, chains)

    def symmetric_states(self, state: HexState) -> list[tuple[HexState, np.ndarray]]:
        """The identity and the half turn ``(x, y) -> (size-1-x, size-1-y)``, with the action
        maps (see ``boardgym.games.symmetry``)."""
        black, white = (permute_bits(bits, self._half_turn) for bits in (state[0], state[1]))
        identity = np.arange(self.num_actions)
        return [(state, identity), (self.state(black, white, state[2]), self._half_turn_actions)]

    def symmetries(self, state: HexState, policy: np.ndarray) -> list[tuple[Planes, np.ndarray]]:
        """Observation planes and ``policy`` for each symmetric image (AlphaZero augmentation)."""
        return augment(self, state, policy)

    # -- geometry -----------------------------------------------------------------------------
    # ``stride`` (size + 1): bit ``y * stride + x`` is cell (x, y); ``cell_bits[action]``: the
    # bit of the cell an action fills; ``board_bits``: every cell; ``edges[p]``: the two edges
    # player p joins, (near, far): Black rows 1 and n, White columns a and the last.

    def neighbours(self, bits: int) -> int:
        """Every cell next to a cell of ``bits`` (the six neighbour shifts)."""
        s, d = self.stride, self.stride - 1
        return (bits << 1 | bits >> 1 | bits << s | bits >> s | bits << d | bits >> d) & self.board_bits

    def flood(self, group: int, through: int) -> int:
        """``group`` grown through the cells of ``through`` until it stops: with ``through`` a
        player's stones, the chains that ``group`` touches. Both are bitboards of cells."""
        s = self.stride
        allowed = group | through  # the padding column is never in it: shifts cannot wrap
        while True:
            # The six neighbour shifts (1, s and s - 1 each way) in four: the shifts by s - 1
            # are those by s of the group shifted by 1 the other way.
            left, right = group | group >> 1, group | group << 1
            grown = (left | right | left << s | right >> s) & allowed
            if grown == group:
                return group
            group = grown

    # -- views --------------------------------------------------------------------------------
    def observation(self, state: HexState, player: Player) -> Planes:
        """Plane 0: ``player``'s stones; plane 1: the opponent's; plane 2: all ones when
        ``player`` is Black (joins top and bottom), all zeros when White (joins left and right)."""
        n = self.size
        planes = np.zeros((3, n, n), dtype=np.float32)
        boards = stones(state)
        planes[0] = self._cells_of(boards[player])
        planes[1] = self._cells_of(boards[1 - player])
        if player == BLACK:
            planes[2] = 1.0
        return planes

    def board_grid(self, state: HexState) -> np.ndarray:
        return (self._cells_of(state[0]) + 2 * self._cells_of(state[1])).astype(np.int8)

    def render(self, state: HexState) -> str:
        n, black, white = self.size, state[0], state[1]
        lines = ["     " + " ".join(self._letters)]
        for y in range(n):
            row = []
            for x in range(n):
                bit = self.cell_bits[y * n + x]
                row.append("X" if black & bit else "O" if white & bit else ".")
            lines.append(" " * y + f"{y + 1:>3}  " + " ".join(row) + f"  {y + 1}")
        lines.append(" " * (n + 4) + " ".join(self._letters))
        winner, player = state[3], state[2]
        if winner != ONGOING:
            lines.append(f"{'XO'[winner]} ({('Black', 'White')[winner]}) wins")
        else:
            goal = "joins rows 1 and {n}" if player == BLACK else "joins columns a and {last}"
            goal = goal.format(n=n, last=self._letters[-1])
            lines.append(f"{'XO'[player]} ({('Black', 'White')[player]}, {goal}) to move")
        return "\n".join(lines)

    def action_to_str(self, state: HexState, action: Action) -> str:
        if action == self.swap_action:
            return SWAP_TEXT
        y, x = divmod(action, self.size)
        return f"{self._letters[x]}{y + 1}"

    def parse_action(self, state: HexState, text: str) -> Action:
        text = text.strip().lower()
        if self.swap and text == SWAP_TEXT:
            action = self.num_cells
        else:
            match = re.fullmatch(r"([a-z])\s*(\d{1,2})", text)
            if not match or match[1] not in self._letters or not 1 <= int(match[2]) <= self.size:
                raise IllegalActionError(
                    f"cannot read move {text!r}: type a column a-{self._letters[-1]} and a row 1-{self.size}, "
                    f"e.g. {self._letters[self.size // 2]}{self.size // 2 + 1}" + (" (or swap)" if self.swap else "")
                )
            action = (int(match[2]) - 1) * self.size + self._letters.index(match[1])
        self.check_legal(state, action)
        return action

    # -- internals ----------------------------------------------------------------------------
    def _swap_ahead(self, state: HexState) -> bool:
        """Whether the game is on and a swap is legal now or after Black's next stone."""
        black, white = state[0], state[1]
        return state[3] == ONGOING and not white and black.bit_count() <= 1

    def _swap_allowed(self, state: HexState) -> bool:
        black, white = state[0], state[1]
        return state[2] == WHITE and not white and black.bit_count() == 1

    def _joins_edges(self, stones: int, start: int, player: Player) -> bool:
        """Whether the chain of ``stones`` through ``start`` joins ``player``'s two edges."""
        near, far = self.edges[player]
        if not (stones & near and stones & far):
            return False
        group = self.flood(start, stones)
        return bool(group & near and group & far)

    def _cells_of(self, bits: int) -> np.ndarray:
        n, stride = self.size, self.stride
        raw = np.frombuffer(bits.to_bytes((stride * n + 7) // 8, "little"), dtype=np.uint8)
        cells = np.unpackbits(raw, bitorder="little", count=stride * n).astype(np.float32)
        return cells.reshape(n, stride)[:, :n]
