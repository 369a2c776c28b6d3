"""Quixo: the cubes with their X (first player) or O faces, columns a-e and rows 1-5 (``a1``
top-left), the border ring from which cubes are taken shaded, and the cubes the player on
move may take outlined with small chevrons toward the ends they may go to. Each move is the
quarter of its cube that points toward the end where the cube goes back in (``c1:B``: the
lower quarter of c1); the last inserted cube is boxed and its slide traced."""

from __future__ import annotations

from collections.abc import Sequence

from boardgym.draw.canvas import LAST_MOVE, MUTED, Canvas
from boardgym.games.quixo import DRAW, ONGOING, Quixo, QuixoState
from boardgym.types import Action

CELL = 68
MARGIN = 36
BORDER_BAND = "#e4dccb"
CUBE = "#f7f1e3"
TAKEABLE = "#1f9e89"
MARKS = ("#c0392b", "#1f5fa8")
SIDES = ("X", "O")
"""The players as the picture names them (``boardgym.draw.side_names``)."""
HINT = (
    "Click the quarter of an outlined border cube that points to the end of its row or column "
    "where it goes back in (a chevron marks each); the cubes between slide one place to fill the gap."
)
_DIRECTIONS = {"T": (0, -1), "B": (0, 1), "L": (-1, 0), "R": (1, 0)}


def draw(game: Quixo, state: QuixoState, history: Sequence[Action] = ()) -> Canvas:
    n = game.size
    side = 2 * MARGIN + n * CELL
    canvas = Canvas(side, side)
    letters = "abcdefghijklmnopqrstuvwxyz"[:n]
    canvas.rect(MARGIN - 5, MARGIN - 5, n * CELL + 10, n * CELL + 10, fill=BORDER_BAND, rx=8)
    canvas.rect(MARGIN + CELL - 3, MARGIN + CELL - 3, (n - 2) * CELL + 6, (n - 2) * CELL + 6, fill="#cfc4ac", rx=4)
    for i in range(n):
        canvas.text(MARGIN + (i + 0.5) * CELL, MARGIN / 2 - 2, letters[i], size=16, fill=MUTED)
        canvas.text(MARGIN / 2 - 2, MARGIN + (i + 0.5) * CELL, str(i + 1), size=16, fill=MUTED)
    legal = game.legal_actions(state)
    takeable = {game.pushes[a].source.bit_length() - 1 for a in legal}
    x_bits, o_bits = state.stones
    for cell in range(n * n):
        row, column = divmod(cell, n)
        x, y = MARGIN + column * CELL + 4, MARGIN + row * CELL + 4
        outline = TAKEABLE if cell in takeable else "#9d927c"
        canvas.rect(
            x, y, CELL - 8, CELL - 8, fill=CUBE, stroke=outline, stroke_width=2.5 if cell in takeable else 1.2, rx=7
        )
        cx, cy = _centre(n, cell)
        if x_bits >> cell & 1:
            canvas.cross(cx, cy, 0.22 * CELL, MARKS[0], 7)
        elif o_bits >> cell & 1:
            canvas.circle(cx, cy, 0.22 * CELL, fill="none", stroke=MARKS[1], stroke_width=6)
    for action in legal:  # chevrons toward the ends each takeable cube may go to
        source, end = _source_and_end(game, action)
        cx, cy = _centre(n, source)
        dx, dy = _DIRECTIONS[end]
        tip = (cx + dx * 0.42 * CELL, cy + dy * 0.42 * CELL)
        base = (cx + dx * 0.33 * CELL, cy + dy * 0.33 * CELL)
        half = 0.07 * CELL
        canvas.polyline(
            [(base[0] - dy * half, base[1] - dx * half), tip, (base[0] + dy * half, base[1] + dx * half)],
            stroke=TAKEABLE,
            stroke_width=2.2,
            stroke_linecap="round",
            class_="push-hint",
        )
    if history and 0 <= history[-1] < game.num_actions:
        source, end = _source_and_end(game, history[-1])
        insert = game.pushes[history[-1]].insert.bit_length() - 1
        (sx, sy), (ix, iy) = _centre(n, source), _centre(n, insert)
        canvas.line(
            sx,
            sy,
            ix,
            iy,
            stroke=LAST_MOVE,
            stroke_width=3,
            stroke_dasharray="6 4",
            stroke_opacity=0.8,
            class_="last-move",
        )
        canvas.last_move_box(ix - CELL / 2 + 2, iy - CELL / 2 + 2, CELL - 4, CELL - 4)
    allowed = set(legal)
    for action in range(game.num_actions):
        source, end = _source_and_end(game, action)
        cx, cy = _centre(n, source)
        dx, dy = _DIRECTIONS[end]
        h = (CELL - 8) / 2
        # The quarter of the cube between its centre and the edge facing the end.
        corners = [(cx + dx * h - dy * h, cy + dy * h - dx * h), (cx + dx * h + dy * h, cy + dy * h + dx * h)]
        canvas.target_or_spot(
            action in allowed,
            action,
            game.action_to_str(state, action),
            "polygon",
            (cx + dx * 0.25 * CELL, cy + dy * 0.25 * CELL),
            points=" ".join(f"{px:.1f},{py:.1f}" for px, py in [(cx, cy), *corners]),
        )
    limit = f" of {game.max_moves}" if game.max_moves is not None else ""
    if state.outcome == DRAW:
        canvas.caption = f"draw: the move limit of {game.max_moves} plies is reached"
    elif state.outcome != ONGOING:
        canvas.caption = f"{'XO'[state.outcome]} wins after {state.moves} plies"
    else:
        canvas.caption = f"{'XO'[state.player]} to move (ply {state.moves + 1}{limit})"
    return canvas


def _centre(n: int, cell: int) -> tuple[float, float]:
    row, column = divmod(cell, n)
    return MARGIN + (column + 0.5) * CELL, MARGIN + (row + 0.5) * CELL


def _source_and_end(game: Quixo, action: Action) -> tuple[int, str]:
    """The cell a move takes its cube from, and the end (T, B, L, R) it pushes it in at."""
    return game.pushes[action].source.bit_length() - 1, game.push_names[action].rpartition(":")[2]
