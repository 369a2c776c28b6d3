"""An exact Connect Four solver: negamax with alpha-beta over Pons's bitboards.

Pascal Pons's published method ("Solving Connect 4: how to build a perfect AI") in pure
Python over ints, with the board layout of ``boardgym.games.connect_four`` (bit
``7 * column + row``, one sentinel bit atop each column), which is his layout:

- **Scores** from the side to move: 0 a draw; a win scores 22 minus the number of stones the
  winner has placed when the game ends under best play (``(43 - plies at the end + 1) // 2``),
  a loss the mirror. So a win on the 7th stone of one's own scores 15.
- **Negamax with alpha-beta**; the score's bounds narrow the window before any search (no
  position can score more than the stones its mover has left to place).
- **Null-window search over score bounds**: ``solve`` asks "is the score above ``m``?" with
  the window ``(m, m + 1)`` and halves the interval of possible scores each time (with Pons's
  bias toward 0 first), a binary search made of very cheap, strongly cut searches.
- **Transposition table** keyed by the position key ``mover + occupied`` (unique per position),
  holding a lower or an upper bound in one int; kept between calls, capped in size.
- **Anticipating losing moves**: a node only considers moves that do not let the opponent win
  at once (a forced block if the opponent threatens, no move right under an opponent's
  threat); no such move means a loss in two plies, scored without search.
- **Move ordering** by the number of winning threats the move creates, centre columns first
  among equals.

The search is interruptible: ``Solver.solve(..., deadline=)`` raises ``SolveTimeout`` once
``time.perf_counter()`` passes the deadline, carrying the bounds proved so far; the table
keeps what it learned, so the next call resumes cheaply. ``weak=True`` answers only win, draw
or loss (the window ``(-1, 1)``), much faster in the opening.

``state_from_moves("4453")`` reads the published move strings (columns 1-7);
``score(state)``, ``move_scores(state)`` and ``best_moves(state)`` use a shared solver.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from boardgym.games.connect_four import (
    BOARD_MASK,
    BOTTOM_MASK,
    COLUMN_MASKS,
    COLUMNS,
    HEIGHT,
    ROWS,
    ConnectFour,
    ConnectFourState,
)
from boardgym.types import Action, BoardgymError, IllegalActionError

TEST_SETS = Path(__file__).parent / "data" / "connect_four"
"""Pascal Pons's test positions (``Test_L*_R*``, shipped in the package; the folder's
README.md says which lines), which ``boardgym bench solver`` times and the tests check."""
CELLS = COLUMNS * ROWS
MIN_SCORE = -(CELLS // 2) + 3  # -18: the earliest possible loss
MAX_SCORE = (CELLS + 1) // 2 - 3  # 18: the earliest possible win
_ORDER = (3, 2, 4, 1, 5, 0, 6)  # centre columns first
_ORDERED_MASKS = tuple(COLUMN_MASKS[c] for c in _ORDER)
# Transposition table values: a lower bound ``lb`` is stored as ``lb + _LOWER`` (> _SPLIT), an
# upper bound ``ub`` as ``ub - MIN_SCORE + 1`` (1.._SPLIT); never 0.
_SPLIT = MAX_SCORE - MIN_SCORE + 1
_LOWER = MAX_SCORE - 2 * MIN_SCORE + 2
_TABLE_LIMIT = 4_000_000  # entries before the table is cleared (about 500 MB at the cap)
_CHECK_EVERY = 4095  # nodes between two looks at the clock (a mask: check when count & it == 0)


class SolveTimeout(Exception):
    """The deadline passed mid-search; ``low``/``high`` bound the score proved so far."""

    def __init__(self, low: int, high: int) -> None:
        super().__init__(f"score in [{low}, {high}]")
        self.low = low
        self.high = high


def winning_cells(position: int, mask: int) -> int:
    """The empty cells where ``position``'s player would complete four in a line."""
    # vertical: three stones below
    r = (position << 1) & (position << 2) & (position << 3)
    # horizontal (7), and the two diagonals (6, 8): the cell with 3 stones on one side,
    # or 2 on one side and 1 on the other
    p = (position << 7) & (position << 14)
    r |= p & (position << 21)
    r |= p & (position >> 7)
    p = (position >> 7) & (position >> 14)
    r |= p & (position << 7)
    r |= p & (position >> 21)
    p = (position << 6) & (position << 12)
    r |= p & (position << 18)
    r |= p & (position >> 6)
    p = (position >> 6) & (position >> 12)
    r |= p & (position << 6)
    r |= p & (position >> 18)
    p = (position << 8) & (position << 16)
    r |= p & (position << 24)
    r |= p & (position >> 8)
    p = (position >> 8) & (position >> 16)
    r |= p & (position << 8)
    r |= p & (position >> 24)
    return r & (BOARD_MASK ^ mask)


class Solver:
    """Pons's solver with a transposition table kept across calls.

    ``nodes`` counts the positions searched since the solver was made.
    """

    def __init__(self, table_limit: int = _TABLE_LIMIT, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock  # what deadlines are read against (``time.process_time``: CPU seconds)
        self.table: dict[int, int] = {}
        self.table_limit = table_limit
        self._deadline: float | None = None
        self._counter = [0]
        self._search = _make_search(self)

    def clear(self) -> None:
        self.table.clear()

    @property
    def nodes(self) -> int:
        return self._counter[0]

    def _negamax(self, current: int, mask: int, moves: int, alpha: int, beta: int) -> int:
        return self._search(current, mask, moves, alpha, beta)

    def solve(self, state: ConnectFourState, *, weak: bool = False, deadline: float | None = None) -> int:
        """The exact score of ``state`` for the player to move (Pons's convention).

        ``weak``: only the sign (1 win, 0 draw, -1 loss). ``deadline`` (a value of the
        solver's ``clock``, ``time.perf_counter`` unless given): raise ``SolveTimeout`` with the bounds proved so far
        once it passes."""
        current, mask, _ = state
        if _RULES.is_terminal(state):
            raise BoardgymError("the game is over: the solver scores positions with a move to play")
        moves = mask.bit_count()
        possible = (mask + BOTTOM_MASK) & BOARD_MASK
        if winning_cells(current, mask) & possible:
            score = (CELLS + 1 - moves) // 2
            return 1 if weak else score
        low = -((CELLS - moves) // 2)
        high = (CELLS + 1 - moves) // 2
        if weak:
            low, high = max(low, -1), min(high, 1)
        self._deadline = deadline
        try:
            while low < high:
                middle = low + (high - low) // 2
                # Try near 0 first (most positions are close games); halves round toward 0.
                if middle <= 0 and -(-low // 2) < middle:
                    middle = -(-low // 2)
                elif middle >= 0 and high // 2 > middle:
                    middle = high // 2
                result = self._negamax(current, mask, moves, middle, middle + 1)
                if result <= middle:
                    high = result
                else:
                    low = result
        except _Interrupt:
            raise SolveTimeout(low, high) from None
        finally:
            self._deadline = None
        if weak:  # a bound outside the window stands for its sign
            return (low > 0) - (low < 0)
        return low

    def bound(self, state: ConnectFourState, threshold: int, *, deadline: float | None = None) -> int:
        """One null-window search: is the score of ``state`` above ``threshold``? The result
        ``r`` is an upper bound on the score if ``r <= threshold``, a lower bound otherwise.
        ``state``'s mover must not have a winning move (``solve`` checks; this does not).
        Raises ``SolveTimeout`` (with ``low > high``: nothing proved) once ``deadline`` passes."""
        current, mask, _ = state
        self._deadline = deadline
        try:
            return self._negamax(current, mask, mask.bit_count(), threshold, threshold + 1)
        except _Interrupt:
            raise SolveTimeout(1, 0) from None
        finally:
            self._deadline = None

    def move_scores(
        self, state: ConnectFourState, *, weak: bool = False, deadline: float | None = None
    ) -> dict[Action, int]:
        """The exact score of each legal move for the player to move (the score of the
        position after it, negated; an immediate win scores as in ``solve``). ``deadline``
        (the solver's ``clock``) bounds all the moves together, as in ``solve``."""
        current, mask, _ = state
        if _RULES.is_terminal(state):
            raise BoardgymError("the game is over: the solver scores positions with a move to play")
        moves = mask.bit_count()
        scores: dict[Action, int] = {}
        for column in range(COLUMNS):
            move = (mask + (1 << (HEIGHT * column))) & COLUMN_MASKS[column]
            if not move:
                continue
            if winning_cells(current, mask) & move:
                scores[column] = 1 if weak else (CELLS + 1 - moves) // 2
                continue
            child_mask = mask | move
            if child_mask == BOARD_MASK:
                scores[column] = 0
                continue
            scores[column] = -self.solve(_RULES.apply(state, column), weak=weak, deadline=deadline)
        return scores


def _make_search(solver: Solver) -> Callable[[int, int, int, int, int], int]:
    """The negamax of ``solver`` as a closure over its table and node counter: every name the
    hot loop reads is a local or a default argument (the search is pure-Python bound, so
    this matters), and the threat computation is written out inline."""
    table = solver.table
    counter = solver._counter
    clock = solver.clock

    def negamax(
        current: int,
        mask: int,
        moves: int,
        alpha: int,
        beta: int,
        board: int = BOARD_MASK,
        bottom: int = BOTTOM_MASK,
        cells: int = CELLS,
        ordered_masks: tuple[int, ...] = _ORDERED_MASKS,
        split: int = _SPLIT,
        lower: int = _LOWER,
        upper: int = 1 - MIN_SCORE,
        check: int = _CHECK_EVERY,
    ) -> int:
        """Score of the position (``current``: mover's stones, ``mask``: all stones, ``moves``:
        their count) within ``(alpha, beta)``: exact inside it, else a bound on the side of the
        window it fell. The mover cannot win at once (the caller made sure)."""
        nodes = counter[0] = counter[0] + 1
        if not nodes & check and solver._deadline is not None and clock() > solver._deadline:
            raise _Interrupt
        p = current ^ mask  # the opponent's stones: where could they win next?
        free = board ^ mask
        t = (p << 1) & (p << 2) & (p << 3)
        q = (p << 7) & (p << 14)
        t |= q & ((p << 21) | (p >> 7))
        q = (p >> 7) & (p >> 14)
        t |= q & ((p << 7) | (p >> 21))
        q = (p << 6) & (p << 12)
        t |= q & ((p << 18) | (p >> 6))
        q = (p >> 6) & (p >> 12)
        t |= q & ((p << 6) | (p >> 18))
        q = (p << 8) & (p << 16)
        t |= q & ((p << 24) | (p >> 8))
        q = (p >> 8) & (p >> 16)
        t |= q & ((p << 8) | (p >> 24))
        t &= free
        possible = (mask + bottom) & board
        forced = possible & t
        if forced:
            if forced & (forced - 1):  # two threats to block: lost in two plies
                return -((cells - moves) // 2)
            possible = forced
        candidates = possible & ~(t >> 1)  # never play right under an opponent's threat
        if not candidates:
            return -((cells - moves) // 2)
        if moves >= cells - 2:
            return 0
        bound = -((cells - 2 - moves) // 2)  # the lowest score left: lose after the next two plies
        if alpha < bound:
            alpha = bound
            if alpha >= beta:
                return alpha
        bound = (cells - 1 - moves) // 2  # the highest: win with the stone after next
        if beta > bound:
            beta = bound
            if alpha >= beta:
                return beta
        key = current + mask
        value = table.get(key)
        if value is not None:
            if value > split:
                value -= lower
                if alpha < value:
                    alpha = value
                    if alpha >= beta:
                        return alpha
            else:
                value -= upper
                if beta > value:
                    beta = value
                    if alpha >= beta:
                        return beta
        moves += 1
        if candidates & (candidates - 1):
            # Order by the number of threats each move makes, centre first among equals.
            scored = []
            for column in ordered_masks:
                move = candidates & column
                if move:
                    c = current | move
                    w = (c << 1) & (c << 2) & (c << 3)
                    q = (c << 7) & (c << 14)
                    w |= q & ((c << 21) | (c >> 7))
                    q = (c >> 7) & (c >> 14)
                    w |= q & ((c << 7) | (c >> 21))
                    q = (c << 6) & (c << 12)
                    w |= q & ((c << 18) | (c >> 6))
                    q = (c >> 6) & (c >> 12)
                    w |= q & ((c << 6) | (c >> 18))
                    q = (c << 8) & (c << 16)
                    w |= q & ((c << 24) | (c >> 8))
                    q = (c >> 8) & (c >> 16)
                    w |= q & ((c << 8) | (c >> 24))
                    scored.append(((w & free).bit_count(), move))
            scored.sort(key=_first, reverse=True)
            for _, move in scored:
                score = -negamax(p, mask | move, moves, -beta, -alpha)
                if score >= beta:
                    if len(table) >= solver.table_limit:
                        table.clear()
                    table[key] = score + lower
                    return score
                if score > alpha:
                    alpha = score
        else:
            score = -negamax(p, mask | candidates, moves, -beta, -alpha)
            if score >= beta:
                if len(table) >= solver.table_limit:
                    table.clear()
                table[key] = score + lower
                return score
            if score > alpha:
                alpha = score
        if len(table) >= solver.table_limit:
            table.clear()
        table[key] = alpha + upper
        return alpha

    return negamax


class _Interrupt(Exception):
    """Raised inside the search when the deadline passes."""


def _first(pair: tuple[int, int]) -> int:
    return pair[0]


_RULES = ConnectFour()
_SHARED: Solver | None = None


def shared_solver() -> Solver:
    """One solver (and its table) for the module-level helpers."""
    global _SHARED
    if _SHARED is None:
        _SHARED = Solver()
    return _SHARED


def state_from_moves(moves: str) -> ConnectFourState:
    """The position after the moves in ``moves``, one digit per column, 1-7 (Pons's notation)."""
    state = _RULES.initial_state()
    for index, char in enumerate(moves.strip()):
        if char not in "1234567":
            raise BoardgymError(
                f"cannot read move {char!r} at position {index + 1} of {moves!r}: "
                "write one digit per move, columns 1 to 7"
            )
        if _RULES.is_terminal(state):
            raise BoardgymError(f"move {index + 1} of {moves!r} comes after the game ended; cut the string there")
        try:
            state = _RULES.apply(state, int(char) - 1)
        except IllegalActionError:
            raise BoardgymError(
                f"move {index + 1} of {moves!r} plays column {char}, which is full; check the string"
            ) from None
    return state


def score(state: ConnectFourState) -> int:
    """The exact score of ``state`` for the player to move (see the module doc)."""
    return shared_solver().solve(state)


def move_scores(state: ConnectFourState) -> dict[Action, int]:
    """The exact score of each legal move (see ``Solver.move_scores``)."""
    return shared_solver().move_scores(state)


def best_moves(state: ConnectFourState) -> list[Action]:
    """The columns (0-6) whose exact score is the best, in column order."""
    scores = move_scores(state)
    best = max(scores.values())
    return [column for column, value in scores.items() if value == best]


__all__ = [
    "CELLS",
    "MAX_SCORE",
    "MIN_SCORE",
    "SolveTimeout",
    "Solver",
    "best_moves",
    "move_scores",
    "score",
    "shared_solver",
    "state_from_moves",
    "winning_cells",
]
