"""Connect Four: the blue frame with its 7x6 holes, red (X, first) and yellow (O) discs,
columns a-g below and rows 1-6 (bottom up) at the side; a click anywhere in a column drops a
disc there, the last disc is ringed and a winning four struck through."""

from __future__ import annotations

from collections.abc import Sequence

from boardgym.draw.canvas import MUTED, Canvas
from boardgym.games.connect_four import (
    COLUMNS,
    DRAW,
    HEIGHT,
    ONGOING,
    ROWS,
    ConnectFour,
    ConnectFourState,
    outcome,
    stones,
)
from boardgym.types import Action

CELL = 64
MARGIN = 34
FRAME = "#2456a6"
HOLE = "#f3efe4"
DISCS = ("#d63a2f", "#f2c200")
NAMES = ("red", "yellow")
SIDES = ("X (red)", "O (yellow)")
"""The players as the picture names them (``boardgym.draw.side_names``)."""


def draw(game: ConnectFour, state: ConnectFourState, history: Sequence[Action] = ()) -> Canvas:
    width, height = 2 * MARGIN + COLUMNS * CELL, 2 * MARGIN + ROWS * CELL
    canvas = Canvas(width, height)
    canvas.rect(MARGIN - 6, MARGIN - 6, COLUMNS * CELL + 12, ROWS * CELL + 12, fill=FRAME, rx=10)
    boards = stones(state)
    grid = [[-1] * COLUMNS for _ in range(ROWS)]  # grid[row][column], row 0 at the bottom
    for column in range(COLUMNS):
        canvas.text(_x(column), height - MARGIN / 2, "abcdefg"[column], size=16, fill=MUTED)
        for row in range(ROWS):
            bit = 1 << (HEIGHT * column + row)
            owner = 0 if boards[0] & bit else 1 if boards[1] & bit else -1
            grid[row][column] = owner
            fill = DISCS[owner] if owner >= 0 else HOLE
            canvas.circle(_x(column), _y(row), 0.4 * CELL, fill=fill, stroke="#183c75", stroke_width=2)
    for row in range(ROWS):
        canvas.text(MARGIN / 2, _y(row), str(row + 1), size=16, fill=MUTED)
    if history and 0 <= history[-1] < COLUMNS:
        column = history[-1]
        top = max((r for r in range(ROWS) if grid[r][column] >= 0), default=None)
        if top is not None:
            canvas.last_move_ring(_x(column), _y(top), 0.4 * CELL + 1)
    result, player = outcome(state), game.current_player(state)
    if result in (0, 1):
        four = _winning_four(grid, result)
        if four:
            (c1, r1), (c2, r2) = four
            canvas.winning_line(_x(c1), _y(r1), _x(c2), _y(r2), 7, 0.75)
    legal = set(game.legal_actions(state))
    for column in range(COLUMNS):
        landing = min((r for r in range(ROWS) if grid[r][column] < 0), default=ROWS - 1)
        canvas.target_or_spot(
            column in legal,
            column,
            game.action_to_str(state, column),
            "rect",
            (_x(column), _y(landing)),
            x=MARGIN + column * CELL,
            y=MARGIN - 6,
            width=CELL,
            height=ROWS * CELL + 12,
            rx=8,
        )
    if result == DRAW:
        canvas.caption = "draw: the board is full"
    elif result != ONGOING:
        canvas.caption = f"{'XO'[result]} ({NAMES[result]}) wins"
    else:
        canvas.caption = f"{'XO'[player]} ({NAMES[player]}) to move"
    return canvas


def _x(column: int) -> float:
    return MARGIN + (column + 0.5) * CELL


def _y(row: int) -> float:
    return MARGIN + (ROWS - row - 0.5) * CELL


def _winning_four(grid: list[list[int]], player: int) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The ends ``(column, row)`` of a line of four of ``player``'s discs, if any."""
    for row in range(ROWS):
        for column in range(COLUMNS):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                end_c, end_r = column + 3 * dc, row + 3 * dr
                if not (0 <= end_c < COLUMNS and 0 <= end_r < ROWS):
                    continue
                if all(grid[row + k * dr][column + k * dc] == player for k in range(4)):
                    return (column, row), (end_c, end_r)
    return None
