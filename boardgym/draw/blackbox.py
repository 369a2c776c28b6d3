"""The black-box problem: the genome as a strip of bits (dark 1, light 0, hatched not yet set)
in rows of up to 50 loci, numbered at the left; under it, for instances of at most 20 slices,
each slice's count of ones (the fullest slices, which score, in green); the caption gives the
fitness. While loci remain, two buttons set the next one to 0 or 1."""

from __future__ import annotations

from collections.abc import Sequence

from boardgym.draw.canvas import INK, MUTED, Canvas
from boardgym.games.blackbox import BlackBox, BlackBoxState, fitness
from boardgym.types import Action

MARGIN = 18
LABEL = 46
ONE, ZERO, UNSET = "#343a40", "#f1f3f5", "#dee2e6"
BEST = "#2b8a3e"
HINT = "Click 0 or 1 to set the next locus; the return is the finished genome's fitness."
"""How a click makes a move (``boardgym.draw.click_hint``)."""


def draw(game: BlackBox, state: BlackBoxState, history: Sequence[Action] = ()) -> Canvas:
    length = game.genome_length
    columns = min(50, length)
    rows = -(-length // columns)
    cell = max(6.0, min(30.0, 700.0 / columns))
    strip_top = MARGIN + 4
    strip_height = rows * cell
    slices = game.instance if game.instance <= 20 else 0
    bars_top = strip_top + strip_height + 34
    bars_height = 70.0 if slices else 0.0
    buttons_top = bars_top + bars_height + (26 if slices else 0)
    width = max(LABEL + columns * cell + MARGIN, 360.0)
    canvas = Canvas(width, buttons_top + 44 + MARGIN)
    genome = state.bits
    for row in range(rows):
        canvas.text(
            LABEL - 8,
            strip_top + (row + 0.5) * cell,
            str(row * columns),
            size=min(12.0, 0.7 * cell + 2),
            text_anchor="end",
            fill=MUTED,
        )
    for locus in range(length):
        row, column = divmod(locus, columns)
        x, y = LABEL + column * cell, strip_top + row * cell
        if locus < state.length:
            fill = ONE if genome >> locus & 1 else ZERO
            canvas.rect(x + 0.5, y + 0.5, cell - 1, cell - 1, fill=fill, stroke="#adb5bd", stroke_width=0.6)
        else:
            canvas.rect(
                x + 0.5,
                y + 0.5,
                cell - 1,
                cell - 1,
                fill=UNSET,
                stroke="#ced4da",
                stroke_width=0.6,
                stroke_dasharray="2 2",
            )
    if history and state.length:
        locus = state.length - 1
        row, column = divmod(locus, columns)
        canvas.last_move_box(LABEL + column * cell - 1, strip_top + row * cell - 1, cell + 2, cell + 2)
    if slices:
        counts = [0] * slices
        sizes = [0] * slices
        for locus in range(length):
            sizes[locus % slices] += 1
            if locus < state.length and genome >> locus & 1:
                counts[locus % slices] += 1
        top = max(counts)
        bar = min(40.0, (width - LABEL - MARGIN) / slices)
        canvas.text(
            MARGIN, bars_top - 12, "ones per slice (locus mod instance)", size=12, fill=MUTED, text_anchor="start"
        )
        for s in range(slices):
            x = LABEL + s * bar
            full = bars_height - 16
            canvas.rect(x + 3, bars_top, bar - 6, full, fill="#f8f9fa", stroke="#ced4da")
            filled = full * counts[s] / max(sizes[s], 1)
            colour = BEST if counts[s] == top and top else "#868e96"
            canvas.rect(x + 3, bars_top + full - filled, bar - 6, filled, fill=colour)
            canvas.text(x + bar / 2, bars_top + full + 9, str(counts[s]), size=10, fill=INK)
    for action in game.legal_actions(state):
        x = LABEL + action * 130
        canvas.rect(x, buttons_top, 118, 36, fill="#ffffff", stroke="#495057", rx=6)
        canvas.text(x + 59, buttons_top + 18, f"locus {state.length} = {action}", size=14)
        canvas.target(
            action, str(action), "rect", (x + 59, buttons_top + 18), x=x, y=buttons_top, width=118, height=36, rx=6
        )
    score = fitness(game.genome(state), game.instance)
    if game.is_terminal(state):
        canvas.caption = f"fitness {score:.4f} (instance {game.instance}, {length} loci)"
    else:
        canvas.caption = f"locus {state.length} of {length} next; fitness so far {score:.4f} (instance {game.instance})"
    return canvas


def result(game: BlackBox, state: BlackBoxState) -> str:
    """The finished genome in a sentence (``boardgym.draw.result_text``)."""
    (value,) = game.returns(state)
    return (
        f"genome of {game.genome_length} loci set: return {value:.4f}, its fitness for instance {game.instance} "
        "(1 is the best possible when the instance divides the length)"
    )
