"""Fast random playouts for particular games, used by ``RolloutEvaluator`` when it can.

A playout kernel plays uniformly random legal moves from a state to the end and returns the
result for one player, exactly as the generic loop over ``legal_actions``/``apply`` does,
only without building a state object per move:

- **Hex**: a random game fills the empty cells in a uniformly random order, alternating
  colours, and Hex has no draws; a stone placed after someone has connected never changes the
  winner. So a playout is one random split of the empty cells (the player to move gets the
  extra one when their number is odd) followed by one flood fill of the full board.
- **Connect Four**: the rules' bitboards with the open columns and the next free cell of each
  column kept incrementally, and the four-in-a-row test on the mover's board only.

``playout_kernel(game)`` returns the kernel for ``game`` or ``None`` (the generic loop is then
used). Kernels are checked against the generic loop's outcome frequencies in
``tests/agents/test_playouts.py``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from boardgym.game import Game

Playout = Callable[[Any, int, random.Random], float]
"""``kernel(state, player, generator) -> return for player`` from a non-terminal state."""


def playout_kernel(game: Game) -> Playout | None:
    maker = _KERNELS.get(game.name)
    return maker(game) if maker is not None else None


def _hex_kernel(game: Any) -> Playout | None:
    if getattr(game, "swap", False):
        return None  # the swap move is not a cell: use the generic loop
    from boardgym.agents.heuristics.hex import HexGeometry

    geometry = HexGeometry(game.size)
    cells = geometry.cells
    board = geometry.board
    top, bottom = geometry.edges[0]
    flood = geometry.flood

    def playout(state: Any, player: int, generator: random.Random) -> float:
        black, white = state.stones
        empty_bits = board & ~(black | white)
        empty = [bit for bit in cells if empty_bits & bit]
        mover_share = (len(empty) + 1) // 2
        mover_cells = sum(generator.sample(empty, mover_share))
        if state.player == 0:
            black |= mover_cells
        else:
            black |= empty_bits ^ mover_cells
        black_wins = bool(flood(black & top, black) & bottom)
        return 1.0 if black_wins == (player == 0) else -1.0

    return playout


def _connect_four_kernel(game: Any) -> Playout:
    from boardgym.games.connect_four import COLUMNS, HEIGHT, ROWS

    bottom = tuple(1 << (HEIGHT * c) for c in range(COLUMNS))
    top = tuple(1 << (HEIGHT * c + ROWS - 1) for c in range(COLUMNS))
    column_mask = tuple((t << 1) - b for t, b in zip(top, bottom, strict=True))
    all_tops = sum(top)
    columns = range(COLUMNS)
    h, h2, d1, d1x2, d2, d2x2 = HEIGHT, 2 * HEIGHT, HEIGHT - 1, 2 * (HEIGHT - 1), HEIGHT + 1, 2 * (HEIGHT + 1)

    def playout(state: Any, player: int, generator: random.Random) -> float:
        # ``mine`` is always the board of the player about to move; ``sign`` their result.
        mine, occupied, to_move, _ = state
        theirs = mine ^ occupied
        sign = 1.0 if to_move == player else -1.0
        open_columns = [c for c in columns if not occupied & top[c]]
        next_cell = [(occupied + bottom[c]) & column_mask[c] for c in columns]
        n = len(open_columns)
        draw = generator.random
        # Nobody has four before the seventh disc on the board: no tests until then.
        quiet = max(0, 6 - occupied.bit_count())
        while quiet and n:
            i = int(draw() * n)
            column = open_columns[i]
            cell = next_cell[column]
            mine |= cell
            if cell & all_tops:
                n -= 1
                open_columns[i] = open_columns[n]
            else:
                next_cell[column] = cell << 1
            mine, theirs = theirs, mine
            sign = -sign
            quiet -= 1
        while n:  # two plies per pass, so that neither board nor sign is swapped
            i = int(draw() * n)
            column = open_columns[i]
            cell = next_cell[column]
            mine |= cell
            if (
                (pairs := mine & mine >> 1) & pairs >> 2
                or (pairs := mine & mine >> h) & pairs >> h2
                or (pairs := mine & mine >> d1) & pairs >> d1x2
                or (pairs := mine & mine >> d2) & pairs >> d2x2
            ):
                return sign
            if cell & all_tops:
                n -= 1
                if not n:
                    break
                open_columns[i] = open_columns[n]
            else:
                next_cell[column] = cell << 1
            i = int(draw() * n)
            column = open_columns[i]
            cell = next_cell[column]
            theirs |= cell
            if (
                (pairs := theirs & theirs >> 1) & pairs >> 2
                or (pairs := theirs & theirs >> h) & pairs >> h2
                or (pairs := theirs & theirs >> d1) & pairs >> d1x2
                or (pairs := theirs & theirs >> d2) & pairs >> d2x2
            ):
                return -sign
            if cell & all_tops:
                n -= 1
                open_columns[i] = open_columns[n]
            else:
                next_cell[column] = cell << 1
        return 0.0

    return playout


_KERNELS: dict[str, Callable[[Any], Playout | None]] = {
    "hex": _hex_kernel,
    "connect_four": _connect_four_kernel,
}
