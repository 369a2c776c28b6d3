"""Hex: the rhombus of hexagons, column letters above and below, row numbers on both sides
(``a1`` top-left), Black's edges (rows 1 and n) in black and White's (columns a and the last)
in white; the last stone is ringed, a winning chain dotted, and with the swap rule a "swap"
button appears while it is legal."""

from __future__ import annotations

import math
from collections.abc import Sequence

from boardgym.draw.canvas import MUTED, Canvas
from boardgym.games.hex import BLACK, ONGOING, WHITE, Hex, HexState, outcome, stones
from boardgym.types import Action

MARGIN = 46
CELL_FILL = "#ead9b3"
BACKGROUND = "#d9d3c5"  # darker than the other boards, so that White's edges show
STONES = ("#1d1d1d", "#fafafa")
NAMES = ("Black", "White")
SIDES = NAMES
"""The players as the picture names them (``boardgym.draw.side_names``)."""


def draw(game: Hex, state: HexState, history: Sequence[Action] = ()) -> Canvas:
    n = game.size
    r = min(34.0, 600.0 / (math.sqrt(3) * (1.5 * n - 0.5)))
    w = math.sqrt(3) * r
    # Centres: column x, row y at (left + x * w + y * w / 2, top + 1.5 * r * y); labels sit 1.25 w outside.
    x0, y0 = MARGIN + 1.25 * w, MARGIN + r + 6
    width = x0 + (n - 1) * 1.5 * w + 1.25 * w + MARGIN
    height = y0 + 1.5 * r * (n - 1) + 1.55 * r + MARGIN
    canvas = Canvas(width, height, background=BACKGROUND)

    def centre(x: int, y: int) -> tuple[float, float]:
        return x0 + x * w + y * w / 2, y0 + 1.5 * r * y

    def vertex(x: int, y: int, angle: int) -> tuple[float, float]:
        cx, cy = centre(x, y)
        return cx + r * math.cos(math.radians(angle)), cy + r * math.sin(math.radians(angle))

    last = n - 1
    top = [p for x in range(n) for p in (vertex(x, 0, -150), vertex(x, 0, -90))] + [vertex(last, 0, -30)]
    bottom = [p for x in range(n) for p in (vertex(x, last, 150), vertex(x, last, 90))] + [vertex(last, last, 30)]
    left = [p for y in range(n) for p in (vertex(0, y, -150), vertex(0, y, 150))]
    right = [p for y in range(n) for p in (vertex(last, y, -30), vertex(last, y, 30))]
    for edge in (left, right):
        canvas.polyline(edge, stroke="#6d6d6d", stroke_width=13, stroke_linejoin="round", stroke_linecap="round")
        canvas.polyline(edge, stroke=STONES[WHITE], stroke_width=9, stroke_linejoin="round", stroke_linecap="round")
    for edge in (top, bottom):
        canvas.polyline(edge, stroke=STONES[BLACK], stroke_width=10, stroke_linejoin="round", stroke_linecap="round")
    black, white = stones(state)
    stride = n + 1  # the documented bit layout of HexState: bit y * (size + 1) + x
    chain = game.winning_chain(state)
    font = max(10.0, min(16.0, 0.55 * r))
    for y in range(n):
        for x in range(n):
            cx, cy = centre(x, y)
            canvas.polygon(
                [vertex(x, y, a) for a in range(-90, 270, 60)], fill=CELL_FILL, stroke="#8c7a55", stroke_width=1.2
            )
            bit = 1 << (y * stride + x)
            owner = BLACK if black & bit else WHITE if white & bit else None
            if owner is not None:
                canvas.circle(cx, cy, 0.68 * r, fill=STONES[owner], stroke="#111", stroke_width=1.3)
                if chain & bit:
                    canvas.circle(cx, cy, 0.18 * r, fill="#e03131", class_="winning-chain")
    for x in range(n):
        letter = game.action_to_str(state, x)[0]
        tx, ty = centre(x, 0)
        canvas.text(tx, ty - 1.55 * r, letter, size=font, fill=MUTED)
        bx, by = centre(x, last)
        canvas.text(bx, by + 1.55 * r, letter, size=font, fill=MUTED)
    for y in range(n):
        lx, ly = centre(0, y)
        canvas.text(lx - 1.25 * w, ly, str(y + 1), size=font, fill=MUTED)
        rx, ry = centre(last, y)
        canvas.text(rx + 1.25 * w, ry, str(y + 1), size=font, fill=MUTED)
    if history:
        cell = _last_cell(game, state, history[-1])
        if cell is not None:
            canvas.last_move_ring(*centre(cell % n, cell // n), 0.8 * r)
    legal = set(game.legal_actions(state))
    if game.swap_action in legal:
        bx, by = 14, height - 50
        canvas.rect(bx, by, 84, 32, fill="#ffffff", stroke="#555", rx=6)
        canvas.text(bx + 42, by + 16, "swap", size=15)
        move = game.action_to_str(state, game.swap_action)
        canvas.target(game.swap_action, move, "rect", (bx + 42, by + 16), x=bx, y=by, width=84, height=32, rx=6)
    for action in range(n * n):
        y, x = divmod(action, n)
        points = " ".join(f"{px:.1f},{py:.1f}" for px, py in (vertex(x, y, a) for a in range(-90, 270, 60)))
        move = game.action_to_str(state, action)
        canvas.target_or_spot(action in legal, action, move, "polygon", centre(x, y), points=points)
    goals = (f"joins rows 1 and {n}", f"joins columns a and {game.action_to_str(state, last)[0]}")
    if outcome(state) != ONGOING:
        canvas.caption = f"{NAMES[outcome(state)]} wins"
    else:
        canvas.caption = f"{NAMES[game.current_player(state)]} ({goals[game.current_player(state)]}) to move"
    return canvas


def _last_cell(game: Hex, state: HexState, action: Action) -> int | None:
    """The cell (y * size + x) of the stone the last move placed; after a swap, White's stone."""
    n = game.size
    if action == game.swap_action:
        white = stones(state)[WHITE]
        for cell in range(n * n):
            if white >> ((cell // n) * (n + 1) + cell % n) & 1:
                return cell
        return None
    return action if 0 <= action < n * n else None
