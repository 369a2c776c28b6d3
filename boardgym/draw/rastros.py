"""Rastros: the 8x8 board with rows and columns numbered 1-8 as typed (``row,col``), the black
cells of the trail, the white stone, S's goal (8,1) and N's goal (1,8); the targets are the
free cells next to the stone, and the last step is drawn as an arrow into the stone."""

from __future__ import annotations

from collections.abc import Sequence

from boardgym.draw.canvas import LAST_MOVE, MUTED, Canvas
from boardgym.games.rastros import DIRECTIONS, GOALS, ONGOING, SIZE, Rastros, RastrosState, cell_of
from boardgym.types import Action

CELL = 58
MARGIN = 34
GOAL_COLOURS = ("#e8590c", "#1c7ed6")  # S, N
NAMES = ("S", "N")
SIDES = ("S (player 0)", "N (player 1)")
"""The players as the picture names them (``boardgym.draw.side_names``)."""


def draw(game: Rastros, state: RastrosState, history: Sequence[Action] = ()) -> Canvas:
    side = 2 * MARGIN + SIZE * CELL
    canvas = Canvas(side, side)
    for i in range(SIZE):
        canvas.text(MARGIN + (i + 0.5) * CELL, MARGIN / 2, str(i + 1), size=16, fill=MUTED)
        canvas.text(MARGIN / 2, MARGIN + (i + 0.5) * CELL, str(i + 1), size=16, fill=MUTED)
    for cell in range(SIZE * SIZE):
        x, y = _corner(cell)
        fill = "#f3ecdc" if (cell // SIZE + cell % SIZE) % 2 == 0 else "#e9dfc8"
        if state.black >> cell & 1:
            fill = "#26231f"
        canvas.rect(x, y, CELL, CELL, fill=fill, stroke="#c9bd9f", stroke_width=1)
    for player, goal in enumerate(GOALS):
        x, y = _corner(goal)
        canvas.rect(
            x + 3,
            y + 3,
            CELL - 6,
            CELL - 6,
            fill=GOAL_COLOURS[player],
            fill_opacity=0.25,
            stroke=GOAL_COLOURS[player],
            stroke_width=3,
            rx=4,
        )
        canvas.text(x + CELL / 2, y + CELL / 2, NAMES[player], size=22, fill=GOAL_COLOURS[player], font_weight="bold")
    wx, wy = _centre(state.white)
    if history and 0 <= history[-1] < len(DIRECTIONS):
        name = DIRECTIONS[history[-1]]
        dr, dc = ("s" in name) - ("n" in name), ("e" in name) - ("w" in name)
        px, py = wx - dc * CELL, wy - dr * CELL
        canvas.line(
            px,
            py,
            wx - dc * 0.36 * CELL,
            wy - dr * 0.36 * CELL,
            stroke=LAST_MOVE,
            stroke_width=5,
            stroke_linecap="round",
            class_="last-move",
        )
        canvas.circle(px, py, 5, fill=LAST_MOVE, class_="last-move")
    canvas.circle(wx, wy, 0.34 * CELL, fill="#ffffff", stroke="#111111", stroke_width=2.5)
    destinations = {}
    for action in game.legal_actions(state):
        move = game.action_to_str(state, action)
        row, column = (int(part) for part in move.split(","))
        destinations[(row - 1) * SIZE + column - 1] = (action, move)
    for cell in range(SIZE * SIZE):
        x, y = _corner(cell)
        rect = {"x": x + 2, "y": y + 2, "width": CELL - 4, "height": CELL - 4, "rx": 4}
        if cell in destinations:
            action, move = destinations[cell]
            canvas.target(action, move, "rect", _centre(cell), False, **rect)
        else:
            row, column = cell_of(cell)
            canvas.spot(f"{row},{column}", "rect", **rect)
    goal_text = [f"({r},{c})" for r, c in (cell_of(goal) for goal in GOALS)]
    if state.outcome != ONGOING:
        canvas.caption = f"{NAMES[state.outcome]} (player {state.outcome}) wins"
    else:
        p = state.player
        canvas.caption = f"{NAMES[p]} (player {p}) to move; {NAMES[p]} wins at {goal_text[p]}"
    return canvas


def _corner(cell: int) -> tuple[float, float]:
    return MARGIN + (cell % SIZE) * CELL, MARGIN + (cell // SIZE) * CELL


def _centre(cell: int) -> tuple[float, float]:
    x, y = _corner(cell)
    return x + CELL / 2, y + CELL / 2
