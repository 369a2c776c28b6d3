"""Nim: each heap a row of matches, numbered from 1 as typed (``heap:take``). Clicking a match
takes it and every match to its right (within the max-take ``k``); the matches the last move
took stay as dashed outlines after their heap."""

from __future__ import annotations

from collections.abc import Sequence

from boardgym.draw.canvas import INK, LAST_MOVE, MUTED, Canvas
from boardgym.games.nim import Nim, NimState
from boardgym.types import Action

ROW = 58
LABEL = 86
MARGIN = 18
STICK = "#d9b26f"
HEAD = "#c0392b"
HINT = "Click a match to take it and every match to its right in that heap (the row's number counts what is left)."
"""How a click makes a move (``boardgym.draw.click_hint``)."""


def draw(game: Nim, state: NimState, history: Sequence[Action] = ()) -> Canvas:
    widest = max(game.heaps)
    step = max(5.0, min(24.0, 640.0 / widest))  # room per match: the widest heap fits 640 units
    width = LABEL + MARGIN + widest * step + 50
    canvas = Canvas(width, 2 * MARGIN + len(game.heaps) * ROW)
    taken = _last_take(game, history)
    terminal = game.is_terminal(state)
    for heap, (count, size) in enumerate(zip(game.heaps_of(state), game.heaps, strict=True)):
        y = MARGIN + heap * ROW
        canvas.text(MARGIN, y + ROW / 2, f"heap {heap + 1}", size=15, text_anchor="start")
        canvas.text(width - 20, y + ROW / 2, str(count), size=15, fill=MUTED)
        canvas.line(LABEL, y + ROW - 6, LABEL + size * step, y + ROW - 6, stroke="#ddd5c4", stroke_width=2)
        for i in range(count):
            _match(canvas, LABEL + (i + 0.5) * step, y, step)
        if taken and taken[0] == heap:
            for i in range(count, count + taken[1]):
                x = LABEL + (i + 0.5) * step
                canvas.rect(
                    x - step * 0.18,
                    y + 10,
                    step * 0.36,
                    ROW - 18,
                    fill="none",
                    stroke=LAST_MOVE,
                    stroke_width=1.5,
                    stroke_dasharray="3 2",
                    rx=2,
                    class_="last-move",
                )
        # Take t: the rectangle from the t-th match from the right to the end; later ones lie on
        # top, so the one under the pointer spans exactly the matches a click takes.
        for take in range(count, 0, -1):
            left = LABEL + (count - take) * step
            rect = {"x": left, "y": y + 4, "width": take * step, "height": ROW - 8, "rx": 4}
            if take > game.max_take:  # beyond the max-take k: the rules say why not
                canvas.spot(f"{heap + 1}:{take}", "rect", **rect)
                continue
            action = heap * game.max_take + take - 1
            canvas.target_or_spot(
                not terminal,
                action,
                game.action_to_str(state, action),
                "rect",
                (left + 0.5 * step, y + ROW / 2),
                overlap=True,
                **rect,
            )
    rule = "misère" if game.misere else "normal play"
    limit = f", take at most {game.k}" if game.k else ""
    if game.is_terminal(state):
        winner = 0 if game.returns(state)[0] > 0 else 1
        canvas.caption = f"player {winner} wins ({rule}{limit})"
    else:
        canvas.caption = f"player {game.current_player(state)} to move ({rule}{limit})"
    return canvas


def _match(canvas: Canvas, x: float, y: float, step: float) -> None:
    width = max(2.0, 0.22 * step)
    canvas.rect(x - width / 2, y + 16, width, ROW - 26, fill=STICK, stroke="#9c7a3c", stroke_width=0.8, rx=1)
    canvas.ellipse(x, y + 15, width * 0.85, max(3.0, width * 1.1), fill=HEAD, stroke=INK, stroke_width=0.6)


def _last_take(game: Nim, history: Sequence[Action]) -> tuple[int, int] | None:
    """(heap, how many) of the last move, if there is one."""
    if not history or not 0 <= history[-1] < game.num_actions:
        return None
    heap, take = divmod(history[-1], game.max_take)
    return heap, take + 1
