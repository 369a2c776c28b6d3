"""Quarto: the 4x4 board (columns a-d, rows 1-4, ``a1`` top-left), the piece to place, and
the pieces still available, each piece showing its four attributes.

A piece's code is its four binary digits (piece 11 is ``1011``); reading the digits left to
right, a 1 means tall, dark, square, hollow and a 0 short, light, round, solid. Drawn from the
side: tall pieces stand higher, dark ones are brown, square ones have square corners and
round ones rounded, hollow ones show a hole on top. While a piece waits to be placed the empty
cells are the targets; while the player chooses, the available pieces are."""

from __future__ import annotations

from collections.abc import Sequence

from boardgym.draw.canvas import MUTED, Canvas
from boardgym.games.quarto import CELLS, CHOOSE, DRAW, LETTERS, LINES, ONGOING, PIECES, Quarto, QuartoState
from boardgym.types import Action

CELL = 76
MARGIN = 34
SLOT = 60
PANEL = MARGIN + 4 * CELL + 40  # x of the right-hand panel
DARK, LIGHT = "#7a4a2a", "#f1ddb0"
HINT = "A turn is two clicks: place the piece in hand on an empty cell, then choose the piece your opponent places."
"""How a click makes a move (``boardgym.draw.click_hint``)."""
ATTRIBUTES = (("tall", "short"), ("dark", "light"), ("square", "round"), ("hollow", "solid"))


def describe(piece: int) -> str:
    """``"p11 = 1011: tall, light, square, hollow"``."""
    words = [pair[0] if piece >> (3 - k) & 1 else pair[1] for k, pair in enumerate(ATTRIBUTES)]
    return f"p{piece} = {piece:04b}: {', '.join(words)}"


def draw(game: Quarto, state: QuartoState, history: Sequence[Action] = ()) -> Canvas:
    width = PANEL + 4 * SLOT + MARGIN
    board_bottom = MARGIN + 4 * CELL
    panel_bottom = MARGIN + 22 + SLOT + 36 + 4 * SLOT
    canvas = Canvas(width, max(board_bottom, panel_bottom) + 40)
    canvas.rect(MARGIN - 8, MARGIN - 8, 4 * CELL + 16, 4 * CELL + 16, fill="#3d3a36", rx=14)
    for i in range(4):
        canvas.text(MARGIN + (i + 0.5) * CELL, MARGIN / 2 - 4, LETTERS[i], size=16, fill=MUTED)
        canvas.text(MARGIN / 2 - 4, MARGIN + (i + 0.5) * CELL, str(i + 1), size=16, fill=MUTED)
    for cell in range(CELLS):
        cx, cy = _cell_centre(cell)
        canvas.circle(cx, cy, 0.44 * CELL, fill="#57524b", stroke="#24221f", stroke_width=1.5)
        piece = game.piece_at(state, cell)
        if piece >= 0:
            draw_piece(canvas, cx, cy, piece, CELL * 0.95)
    last_place = next((a for a in reversed(history[-2:]) if 0 <= a < CELLS), None)
    if last_place is not None:
        canvas.last_move_ring(*_cell_centre(last_place), 0.46 * CELL)
    won_line = _winning_line(game, state)
    if won_line is not None:
        cells = [c for c in range(CELLS) if won_line >> c & 1]
        (x1, y1), (x2, y2) = _cell_centre(cells[0]), _cell_centre(cells[-1])
        canvas.line(
            x1,
            y1,
            x2,
            y2,
            stroke="#ffd43b",
            stroke_width=8,
            stroke_opacity=0.8,
            stroke_linecap="round",
            class_="winning-line",
        )
    # The piece to place, then the pieces still available (piece p at row p // 4, column p % 4).
    canvas.text(PANEL, MARGIN, "to place", size=14, fill=MUTED, text_anchor="start")
    hand_y = MARGIN + 22
    canvas.rect(PANEL, hand_y, SLOT, SLOT, fill="#ede6d6", stroke="#b9ae96", rx=6)
    if state.piece >= 0:
        draw_piece(canvas, PANEL + SLOT / 2, hand_y + SLOT / 2, state.piece, SLOT)
        code, _, words = describe(state.piece).partition(": ")
        canvas.text(PANEL + SLOT + 12, hand_y + SLOT / 2 - 10, code, size=14, text_anchor="start")
        canvas.text(PANEL + SLOT + 12, hand_y + SLOT / 2 + 10, words, size=13, text_anchor="start", fill=MUTED)
        if history and history[-1] >= CHOOSE:
            canvas.last_move_box(PANEL - 3, hand_y - 3, SLOT + 6, SLOT + 6)
    reserve_y = hand_y + SLOT + 36
    canvas.text(PANEL, reserve_y - 14, "available", size=14, fill=MUTED, text_anchor="start")
    for piece in range(PIECES):
        x, y = _slot(piece, reserve_y)
        canvas.rect(x, y, SLOT - 4, SLOT - 4, fill="#ede6d6", stroke="#d3c9b3", rx=5)
        if state.available >> piece & 1:
            draw_piece(canvas, x + (SLOT - 4) / 2, y + (SLOT - 4) / 2, piece, SLOT - 4)
        else:
            canvas.text(x + (SLOT - 4) / 2, y + (SLOT - 4) / 2, f"p{piece}", size=14, fill="#9a8f78")
    canvas.text(
        MARGIN - 8,
        canvas.height - 18,
        "code digits: tall/short · dark/light · square/round · hollow/solid (1 = first word)",
        size=12,
        fill=MUTED,
        text_anchor="start",
    )
    legal = set(game.legal_actions(state))
    for action in range(CELLS + PIECES):
        move = game.action_to_str(state, action)
        if action < CELLS:
            cx, cy = _cell_centre(action)
            canvas.target_or_spot(action in legal, action, move, "circle", (cx, cy), cx=cx, cy=cy, r=0.44 * CELL)
        else:
            x, y = _slot(action - CHOOSE, reserve_y)
            centre = (x + (SLOT - 4) / 2, y + (SLOT - 4) / 2)
            canvas.target_or_spot(
                action in legal, action, move, "rect", centre, x=x, y=y, width=SLOT - 4, height=SLOT - 4, rx=5
            )
    who = f"player {state.player}"
    if state.outcome == DRAW:
        canvas.caption = "draw: the board is full"
    elif state.outcome != ONGOING:
        canvas.caption = f"player {state.outcome} wins (quarto)"
    elif state.piece >= 0:
        canvas.caption = f"{who} places p{state.piece}"
    else:
        canvas.caption = f"{who} chooses a piece for player {1 - state.player}"
    return canvas


def draw_piece(canvas: Canvas, cx: float, cy: float, piece: int, size: float) -> None:
    """Piece ``piece`` standing in a ``size`` box centred on ``(cx, cy)``."""
    tall, dark, square, hollow = (piece >> (3 - k) & 1 for k in range(4))
    width = 0.46 * size
    height = (0.74 if tall else 0.42) * size
    bottom = cy + 0.36 * size
    top = bottom - height
    fill = DARK if dark else LIGHT
    edge = "#3a2414" if dark else "#8c7346"
    radius = width / 2 if not square else 3
    canvas.begin("g", class_="piece", data_piece=piece)
    canvas.add("title", describe(piece))
    canvas.rect(
        cx - width / 2,
        top,
        width,
        height,
        fill=fill,
        stroke=edge,
        stroke_width=1.6,
        rx=radius,
        ry=min(radius, height / 2),
    )
    if hollow:
        canvas.ellipse(
            cx,
            top + 0.11 * size,
            0.13 * size,
            0.06 * size,
            fill="#1c1a17" if not dark else "#f4e6c6",
            stroke=edge,
            stroke_width=1,
        )
    canvas.end("g")


def _cell_centre(cell: int) -> tuple[float, float]:
    return MARGIN + (cell % 4 + 0.5) * CELL, MARGIN + (cell // 4 + 0.5) * CELL


def _slot(piece: int, top: float) -> tuple[float, float]:
    return PANEL + (piece % 4) * SLOT, top + (piece // 4) * SLOT


def _winning_line(game: Quarto, state: QuartoState) -> int | None:
    if state.outcome not in (0, 1):
        return None
    for line in LINES:
        if state.occupied & line != line:
            continue
        if any(a & line in (0, line) for a in state.attributes):
            return line
    return None
