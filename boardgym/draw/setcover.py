"""Set cover: one row per set and one column per element. A filled square is an element of the
set: green in the sets taken, dark where it would cover something new, pale where it is
already covered. The row below shows which elements are covered, the number right of each
set how many new elements it would cover. Each set not taken is a target (its whole row)."""

from __future__ import annotations

from collections.abc import Sequence

from boardgym.draw.canvas import MUTED, Canvas
from boardgym.games.setcover import SetCover, SetCoverState
from boardgym.types import Action

LABEL = 70
MIN_WIDTH = 360  # room for the caption under a small instance
MARGIN = 16
TAKEN_ROW = "#d3f0dc"
TAKEN = "#2b8a3e"
NEW = "#343a40"
OLD = "#ced4da"
HINT = "Click a set's row to take it; the number at its right is how many uncovered elements it would cover."
"""How a click makes a move (``boardgym.draw.click_hint``)."""


def draw(game: SetCover, state: SetCoverState, history: Sequence[Action] = ()) -> Canvas:
    elements, sets = game.problem_size, game.num_sets
    cell = max(6.0, min(26.0, 760.0 / elements, 860.0 / (sets + 1)))
    header = 26.0
    width = max(LABEL + elements * cell + 54 + MARGIN, MIN_WIDTH)
    top = MARGIN + header
    height = top + (sets + 1) * cell + 14 + MARGIN
    canvas = Canvas(width, height)
    every = 1 if cell >= 16 else 5 if cell >= 8 else 10
    font = min(13.0, max(8.0, 0.62 * cell))
    for e in range(0, elements, every):
        canvas.text(
            LABEL + (e + 0.5) * cell, MARGIN + header / 2, str(e), size=min(12.0, max(8.0, 0.55 * cell)), fill=MUTED
        )
    covered = state.covered
    for index in range(sets):
        y = top + index * cell
        taken = state.taken >> index & 1
        if taken:
            canvas.rect(MARGIN, y, width - 2 * MARGIN, cell, fill=TAKEN_ROW)
        if index % every == 0 or taken:
            canvas.text(
                LABEL - 8,
                y + cell / 2,
                f"set {index}",
                size=font,
                text_anchor="end",
                fill=TAKEN if taken else "#495057",
            )
        mask = game.masks[index]
        for e in range(elements):
            if mask >> e & 1:
                fill = TAKEN if taken else NEW if not covered >> e & 1 else OLD
                canvas.rect(LABEL + e * cell + 1, y + 1, cell - 2, cell - 2, fill=fill, rx=min(3.0, cell / 5))
        if not taken:
            gain = game.new_elements(state, index)
            canvas.text(
                LABEL + elements * cell + 10,
                y + cell / 2,
                f"+{gain}",
                size=font,
                text_anchor="start",
                fill=NEW if gain else OLD,
            )
    bottom = top + sets * cell + 14
    canvas.text(LABEL - 8, bottom + cell / 2, "covered", size=font, text_anchor="end", fill=TAKEN)
    for e in range(elements):
        fill = TAKEN if covered >> e & 1 else "#ffffff"
        canvas.rect(
            LABEL + e * cell + 1,
            bottom + 1,
            cell - 2,
            cell - 2,
            fill=fill,
            stroke=TAKEN,
            stroke_width=1,
            rx=min(3.0, cell / 5),
        )
    if history and 0 <= history[-1] < sets:
        canvas.last_move_box(MARGIN - 2, top + history[-1] * cell - 1, width - 2 * MARGIN + 4, cell + 2)
    legal = set(game.legal_actions(state))
    for action in range(sets):
        y = top + action * cell
        canvas.target_or_spot(
            action in legal,
            action,
            game.action_to_str(state, action),
            "rect",
            (LABEL + elements * cell / 2, y + cell / 2),
            x=MARGIN,
            y=y,
            width=width - 2 * MARGIN,
            height=cell,
        )
    taken_count = state.taken.bit_count()
    uncovered = (game.universe & ~covered).bit_count()
    plural = "" if taken_count == 1 else "s"
    if game.is_terminal(state):
        canvas.caption = f"all {elements} elements covered with {taken_count} set{plural}"
    else:
        canvas.caption = f"{taken_count} set{plural} taken, {uncovered} of {elements} elements uncovered"
    return canvas


def result(game: SetCover, state: SetCoverState) -> str:
    """The finished puzzle in a sentence (``boardgym.draw.result_text``)."""
    taken = state.taken.bit_count()
    plural = "" if taken == 1 else "s"
    (value,) = game.returns(state)
    if state.covered != game.universe:
        uncovered = (game.universe & ~state.covered).bit_count()
        return f"not covered: {uncovered} of {game.problem_size} elements left with {taken} set{plural} taken"
    return (
        f"all {game.problem_size} elements covered with {taken} set{plural}: return {value:g} "
        "(minus one per set taken; the fewer sets, the better)"
    )
