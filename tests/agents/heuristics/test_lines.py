"""OpenLineCount: lines open to one player count by their weight, shared lines for nobody."""

from __future__ import annotations

import numpy as np

from boardgym.agents.heuristics.lines import OpenLineCount


def _count(lines, weight, centre=0) -> OpenLineCount:
    return OpenLineCount(np.random.default_rng(0), lines, weight, lambda state: state, centre)


def test_a_line_counts_for_the_only_player_in_it() -> None:
    lines = (0b000111, 0b111000, 0b100100, 0b010010)
    heuristic = _count(lines, (0.0, 1.0, 5.0, 40.0))
    own, opp = 0b000011, 0b011000  # the first line: two own (+5); the second: two of theirs (-5)
    # the third holds neither; the fourth one of each: neither counts
    assert heuristic.evaluate((own, opp), 0) == 0.0
    own |= 0b000100  # the first line full (+40), and one own cell in the third (+1)
    assert heuristic.evaluate((own, opp), 0) == 36.0
    assert heuristic.evaluate((own, opp), 1) == -36.0


def test_the_centre_counts_one_per_cell() -> None:
    heuristic = _count((), (0.0,), centre=0b1110)
    assert heuristic.evaluate((0b0110, 0b1000), 0) == 1.0
    assert heuristic.evaluate((0b0110, 0b1000), 1) == -1.0
    assert _count((), (0.0,)).evaluate((0b0110, 0b1000), 0) == 0.0
