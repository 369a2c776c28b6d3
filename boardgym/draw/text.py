"""The picture of a game that has no drawing of its own (``GameEntry.drawing`` empty): the
rules' text board (``Game.render``) in a monospace block, and below it one button per action
of the game's action space, labelled with the move's typed name where it is legal now, so that
the play page, ``rgb_array`` rendering and ``boardgym render`` work for every game.

The picture's size depends only on the game: the text block is as tall and wide as the
rendering of the start position (a later rendering that runs longer is cut), and every action
keeps its button's place whether it is legal or not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from boardgym.draw.canvas import INK, MUTED, Canvas
from boardgym.game import Game
from boardgym.types import Action

LINE = 18
CHAR = 8.4
MARGIN = 16
BUTTON_W, BUTTON_H, GAP = 72, 30, 6
COLUMNS = 8
MONOSPACE = "DejaVu Sans Mono, Menlo, Consolas, monospace"


def draw(game: Game, state: Any, history: Sequence[Action] = ()) -> Canvas:
    start = game.render(game.initial_state()).splitlines() or [""]
    columns = max(1, min(COLUMNS, game.num_actions))
    rows = -(-game.num_actions // columns)
    text_height = len(start) * LINE
    width = max(2 * MARGIN + max(len(line) for line in start) * CHAR, 2 * MARGIN + columns * (BUTTON_W + GAP))
    canvas = Canvas(width, 3 * MARGIN + text_height + rows * (BUTTON_H + GAP))
    for number, line in enumerate(game.render(state).splitlines()[: len(start)]):
        y = MARGIN + number * LINE + LINE / 2 + 5  # the text's baseline
        canvas.add("text", line, x=MARGIN, y=y, font_size=14, font_family=MONOSPACE, fill=INK, xml_space="preserve")
    terminal = game.is_terminal(state)
    legal = set() if terminal else set(game.legal_actions(state))
    top = 2 * MARGIN + text_height
    for action in range(game.num_actions):
        row, column = divmod(action, columns)
        x, y = MARGIN + column * (BUTTON_W + GAP), top + row * (BUTTON_H + GAP)
        if action in legal:
            move = game.action_to_str(state, action)
            centre = (x + BUTTON_W / 2, y + BUTTON_H / 2)
            canvas.rect(x, y, BUTTON_W, BUTTON_H, fill="#ffffff", stroke=MUTED, stroke_width=1, rx=4)
            canvas.text(*centre, move, size=13)
            canvas.target(action, move, "rect", centre, x=x, y=y, width=BUTTON_W, height=BUTTON_H, rx=4)
        else:
            canvas.rect(x, y, BUTTON_W, BUTTON_H, fill="none", stroke="#ddd5c4", stroke_width=1, rx=4)
            canvas.text(x + BUTTON_W / 2, y + BUTTON_H / 2, str(action), size=11, fill="#c9c1b1")
        if history and history[-1] == action:
            canvas.last_move_box(x - 2, y - 2, BUTTON_W + 4, BUTTON_H + 4)
    canvas.caption = _caption(game, state)
    return canvas


def _caption(game: Game, state: Any) -> str:
    if not game.is_terminal(state):
        return f"player {game.current_player(state)} to move" if game.num_players > 1 else "to move"
    returns = game.returns(state)
    if game.num_players == 1:
        return f"finished: return {returns[0]:g}"
    best = max(returns)
    winners = [player for player, value in enumerate(returns) if value == best]
    return f"player {winners[0]} wins" if len(winners) == 1 else "draw"
