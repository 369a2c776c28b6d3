"""Pictures of every game: one SVG drawing per game over the rules' states, and the same
picture as PNG bytes or an ``rgb_array``.

::

    from boardgym import draw
    game = boardgym.make_game("hex", size=7)
    draw.show(game, state)                  # shows itself in Jupyter (_repr_svg_)
    draw.svg(game, state, history=moves)    # the SVG text; the last move is marked
    draw.rgb_array(game, state)             # (height, width, 3) uint8: what render_mode="rgb_array" returns
    draw.show(game, state).save("board.png")

Every picture has its coordinates in the game's typed notation, marks the last move of
``history`` (the actions played so far, or their tail), and carries one transparent element
per legal move with ``class="target"`` and ``data-action="<int>"`` (see
``boardgym.draw.canvas``), so that a page can highlight and click them. ``overlay`` draws a
share per action (e.g. a search's visit distribution) over the targets.

Drawing is pure string building over the rules (no gymnasium, no torch), one module per game,
named by the game's ``drawing`` in ``boardgym.games.GAMES``; a game without one is drawn by
``boardgym.draw.text`` (its text board and a button per move).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from boardgym.draw.canvas import Canvas
from boardgym.draw.raster import png_to_rgb, svg_to_png
from boardgym.game import Game
from boardgym.games import entry_of
from boardgym.registry import load
from boardgym.runs import atomic_write_bytes, atomic_write_text
from boardgym.types import Action, BoardgymError

TEXT_DRAWING = "boardgym.draw.text:draw"
"""The drawing of a game that names none of its own."""


def drawing_of(game: Game) -> str:
    """The ``"module:function"`` that draws ``game``: its entry's, else the text picture."""
    entry = entry_of(game)
    return entry.drawing if entry is not None and entry.drawing else TEXT_DRAWING


def picture(game: Game, state: Any, history: Sequence[Action] = ()) -> Canvas:
    """The drawing description of ``state`` (see ``boardgym.draw.canvas.Canvas``)."""
    draw_function = load(drawing_of(game))
    canvas: Canvas = draw_function(game, state, tuple(int(a) for a in history))
    return canvas


def svg(
    game: Game,
    state: Any,
    history: Sequence[Action] = (),
    *,
    targets: bool = True,
    overlay: Mapping[Action, float] | None = None,
) -> str:
    """The picture as SVG text; ``targets=False`` leaves out the clickable move elements."""
    return picture(game, state, history).svg(targets=targets, overlay=overlay)


def png(
    game: Game,
    state: Any,
    history: Sequence[Action] = (),
    *,
    scale: float = 1.0,
    overlay: Mapping[Action, float] | None = None,
) -> bytes:
    """The picture as PNG bytes (``scale`` 2: twice the pixels)."""
    return svg_to_png(svg(game, state, history, targets=False, overlay=overlay), scale)


def rgb_array(game: Game, state: Any, history: Sequence[Action] = (), *, scale: float = 1.0) -> np.ndarray:
    """The picture as a ``(height, width, 3)`` uint8 array; its size depends only on the game
    and its parameters, never on the position, so the frames of a video line up."""
    return png_to_rgb(png(game, state, history, scale=scale))


def side_names(game: Game) -> tuple[str, ...]:
    """What the picture calls each player (``("X", "O")``, ``("Black", "White")``): the
    drawing module's ``SIDES``, else ``player 0``, ``player 1``, ..."""
    sides = getattr(_drawing_module(game), "SIDES", None)
    if isinstance(sides, tuple) and len(sides) == game.num_players:
        return tuple(str(side) for side in sides)
    return tuple(f"player {p}" for p in range(game.num_players))


def click_hint(game: Game) -> str:
    """How a move is made by clicking the picture, where that is not plain (Nim: a click takes
    that match and every one to its right); the drawing module's ``HINT``, else ``""``."""
    hint = getattr(_drawing_module(game), "HINT", "")
    return hint if isinstance(hint, str) else ""


def result_text(game: Game, state: Any) -> str:
    """One sentence about a finished puzzle: what was achieved and what its return means (the
    drawing module's ``result(game, state)``), else ``finished: return R``."""
    describe = getattr(_drawing_module(game), "result", None)
    if callable(describe):
        return str(describe(game, state))
    return "finished: return " + ", ".join(f"{r:g}" for r in game.returns(state))


def _drawing_module(game: Game) -> Any:
    return importlib.import_module(drawing_of(game).partition(":")[0])


class Board:
    """One position's picture that shows itself in Jupyter (states are plain tuples, so
    ``show`` wraps them): ``draw.show(game, state)``. ``save(path)`` writes ``.svg`` or ``.png``."""

    def __init__(
        self,
        game: Game,
        state: Any,
        history: Sequence[Action] = (),
        overlay: Mapping[Action, float] | None = None,
    ) -> None:
        self.game = game
        self.state = state
        self.history = tuple(history)
        self.overlay = dict(overlay) if overlay else None

    def svg(self, targets: bool = False) -> str:
        return svg(self.game, self.state, self.history, targets=targets, overlay=self.overlay)

    def png(self, scale: float = 1.0) -> bytes:
        return png(self.game, self.state, self.history, scale=scale, overlay=self.overlay)

    def save(self, path: str | Path, scale: float = 1.0) -> Path:
        """Write the picture to ``path``: SVG or PNG by its suffix."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".svg":
            atomic_write_text(path, self.svg())
        elif suffix == ".png":
            atomic_write_bytes(path, self.png(scale))
        else:
            raise BoardgymError(f"cannot write a picture to {str(path)!r}: name a .svg or a .png file")
        return path

    def _repr_svg_(self) -> str:
        return self.svg()

    def __repr__(self) -> str:
        return f"Board({self.game!r})\n{self.game.render(self.state)}"


def show(
    game: Game, state: Any, history: Sequence[Action] = (), overlay: Mapping[Action, float] | None = None
) -> Board:
    """A ``Board`` that Jupyter shows as the picture of ``state``."""
    return Board(game, state, history, overlay)


__all__ = [
    "TEXT_DRAWING",
    "Board",
    "Canvas",
    "click_hint",
    "drawing_of",
    "picture",
    "png",
    "result_text",
    "rgb_array",
    "show",
    "side_names",
    "svg",
]
