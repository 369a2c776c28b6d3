"""Connect Four: the classic window count over the 69 lines of four cells."""

from __future__ import annotations

import numpy as np

from boardgym.games.connect_four import COLUMNS, HEIGHT, ROWS, ConnectFour, ConnectFourState, stones
from boardgym.types import Action, Player


def _windows() -> tuple[int, ...]:
    windows = []
    for column in range(COLUMNS):
        for row in range(ROWS):
            for dc, dr in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(column + i * dc, row + i * dr) for i in range(4)]
                if all(0 <= c < COLUMNS and 0 <= r < ROWS for c, r in cells):
                    windows.append(sum(1 << (HEIGHT * c + r) for c, r in cells))
    return tuple(windows)


WINDOWS = _windows()  # 69 masks
_WEIGHT = (0.0, 1.0, 5.0, 40.0, 0.0)
_CENTRE_FIRST = (3, 2, 4, 1, 5, 0, 6)
_CENTRE = sum(1 << (HEIGHT * 3 + r) for r in range(ROWS))


class OpenWindows:
    """Sum over windows of four: ``_WEIGHT[own discs]`` where the opponent has none, minus the
    opponent's, plus one per own disc in the centre column. Centre columns are tried first."""

    def __init__(self, game: ConnectFour, rng: np.random.Generator) -> None:
        self.rng = rng

    def evaluate(self, state: ConnectFourState, player: Player) -> float:
        both = stones(state)
        own, opp = both[player], both[1 - player]
        score = float((own & _CENTRE).bit_count() - (opp & _CENTRE).bit_count())
        for window in WINDOWS:
            mine, theirs = own & window, opp & window
            if not theirs:
                if mine:
                    score += _WEIGHT[mine.bit_count()]
            elif not mine:
                score -= _WEIGHT[theirs.bit_count()]
        return score

    def order_moves(self, state: ConnectFourState, moves: list[Action]) -> list[Action]:
        legal = set(moves)
        return [column for column in _CENTRE_FIRST if column in legal]
