"""Tic-Tac-Toe: a 3x3 grid with column letters a-c and row numbers 1-3, X and O marks, the
last mark ringed and a won line struck through."""

from __future__ import annotations

from collections.abc import Sequence

from boardgym.draw.canvas import INK, MUTED, Canvas
from boardgym.games.tictactoe import DRAW, LINES, ONGOING, TicTacToe, TicTacToeState, outcome, stones
from boardgym.types import Action

CELL = 90
MARGIN = 34
X_COLOUR = "#c0392b"
O_COLOUR = "#1f5fa8"
SIDES = ("X", "O")
"""The players as the picture names them (``boardgym.draw.side_names``)."""


def draw(game: TicTacToe, state: TicTacToeState, history: Sequence[Action] = ()) -> Canvas:
    size = 2 * MARGIN + 3 * CELL
    canvas = Canvas(size, size)
    x_board, o_board = stones(state)
    result = outcome(state)
    for i in range(3):
        canvas.text(MARGIN + (i + 0.5) * CELL, MARGIN / 2, "abc"[i], size=16, fill=MUTED)
        canvas.text(MARGIN / 2, MARGIN + (i + 0.5) * CELL, str(i + 1), size=16, fill=MUTED)
    for i in (1, 2):
        canvas.line(MARGIN + i * CELL, MARGIN + 8, MARGIN + i * CELL, MARGIN + 3 * CELL - 8, stroke=INK, stroke_width=4)
        canvas.line(MARGIN + 8, MARGIN + i * CELL, MARGIN + 3 * CELL - 8, MARGIN + i * CELL, stroke=INK, stroke_width=4)
    for cell in range(9):
        cx, cy = _centre(cell)
        if x_board >> cell & 1:
            canvas.cross(cx, cy, 0.28 * CELL, X_COLOUR, 9)
        elif o_board >> cell & 1:
            canvas.circle(cx, cy, 0.29 * CELL, fill="none", stroke=O_COLOUR, stroke_width=8)
    if history and 0 <= history[-1] < 9:
        canvas.last_move_box(*_corner(history[-1]), CELL - 12, CELL - 12)
    if result in (0, 1):
        won = (x_board, o_board)[result]
        for line in LINES:
            if won & line == line:
                cells = [c for c in range(9) if line >> c & 1]
                (x1, y1), (x2, y2) = _centre(cells[0]), _centre(cells[-1])
                canvas.winning_line(x1, y1, x2, y2, 6, 0.7)
                break
    legal = set(game.legal_actions(state))
    for action in range(9):
        x, y = _corner(action)
        canvas.target_or_spot(
            action in legal,
            action,
            game.action_to_str(state, action),
            "rect",
            _centre(action),
            x=x,
            y=y,
            width=CELL - 12,
            height=CELL - 12,
            rx=6,
        )
    if result == DRAW:
        canvas.caption = "draw"
    elif result != ONGOING:
        canvas.caption = f"{'XO'[result]} wins"
    else:
        canvas.caption = f"{'XO'[game.current_player(state)]} to move"
    return canvas


def _centre(cell: int) -> tuple[float, float]:
    return MARGIN + (cell % 3 + 0.5) * CELL, MARGIN + (cell // 3 + 0.5) * CELL


def _corner(cell: int) -> tuple[float, float]:
    return MARGIN + (cell % 3) * CELL + 6, MARGIN + (cell // 3) * CELL + 6
