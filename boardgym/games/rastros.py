"""Rastros (Bill Taylor's game, as played at the Lisbon IIA course) over a 64-bit board.

An 8x8 board, cells ``(row, column)`` from 1 to 8, row 1 at the top. One white stone starts on
(4,5); there are no black stones. Player S (player 0) moves first, player N (player 1)
second::

         1 2 3 4 5 6 7 8
      1  . . . . . . . N        N: N's goal (1,8)      @: the white stone
      2  . . . . . . . .        S: S's goal (8,1)      #: a black stone
      3  . . . . . . . .
      4  . . . . @ . . .
      5  . . . . . . . .
      6  . . . . . . . .
      7  . . . . . . . .
      8  S . . . . . . .

A move takes the white stone to one of its 8 neighbouring cells that is on the board and not
black; the cell it left becomes black. If the white stone reaches (8,1) S wins, if it reaches
(1,8) N wins, whoever moved it there. A player with no move loses. There are no draws, and a
game lasts at most 62 moves.

Action encoding: the direction of the step, 0..7 = N, NE, E, SE, S, SW, W, NW (N is up, toward
row 1). Moves are written as the destination ``row,col``, e.g. ``5,4``; a direction name
(``sw``) is accepted too. Bit ``8 * (row - 1) + (col - 1)`` is a cell.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from boardgym.game import Game, HasFeatures, HasSymmetricStates, HasSymmetries, win_loss_returns
from boardgym.games.bitboard import bits_to_cells, stone_grid
from boardgym.games.symmetry import augment, cell_targets, permute_bits, square_symmetries
from boardgym.types import Action, IllegalActionError, Planes, Player, as_action

SIZE = 8
S, N = 0, 1
ONGOING = -1
DIRECTIONS = ("n", "ne", "e", "se", "s", "sw", "w", "nw")
_STEPS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))


def cell_index(row: int, col: int) -> int:
    """The bit of cell ``(row, col)``, both counted from 1."""
    return SIZE * (row - 1) + (col - 1)


def cell_of(index: int) -> tuple[int, int]:
    """``(row, col)``, counted from 1, of bit ``index``."""
    return index // SIZE + 1, index % SIZE + 1


START = cell_index(4, 5)
GOALS = (cell_index(8, 1), cell_index(1, 8))  # GOALS[p]: the cell where player p wins
# _TARGETS[cell][d]: the cell one step in direction d, or -1 off the board.
_TARGETS = tuple(
    tuple(cell_index(r + dr, c + dc) if 1 <= r + dr <= SIZE and 1 <= c + dc <= SIZE else -1 for dr, dc in _STEPS)
    for r, c in (cell_of(i) for i in range(SIZE * SIZE))
)
# Reflecting in the anti-diagonal fixes (4,5) and both goals: the one symmetry of the game.
_MIRROR = cell_targets(SIZE, square_symmetries(SIZE)[7])
_MIRROR_STEPS = np.array([_STEPS.index((-dc, -dr)) for dr, dc in _STEPS])
_EXITS = tuple(tuple((d, t) for d, t in enumerate(targets) if t >= 0) for targets in _TARGETS)
BOARD = (1 << SIZE * SIZE) - 1  # every cell
_NOT_FIRST_COLUMN = sum(1 << (r * SIZE + c) for r in range(SIZE) for c in range(1, SIZE))
_NOT_LAST_COLUMN = sum(1 << (r * SIZE + c) for r in range(SIZE) for c in range(SIZE - 1))


def king_step(bits: int) -> int:
    """Every cell one king move from a cell of ``bits``, and those cells (the board's
    neighbourhood, bit-parallel; nothing wraps across the board's sides)."""
    left = (bits >> 1) & _NOT_LAST_COLUMN
    right = (bits << 1) & _NOT_FIRST_COLUMN
    row = bits | left | right
    return (row | row << SIZE | row >> SIZE) & BOARD


class RastrosState(NamedTuple):
    """``white``: the white stone's cell (bit index, see ``cell_of``); ``black``: bitboard of
    black cells; ``player``: to move (0 = S, 1 = N); ``outcome``: -1 ongoing, else the winner."""

    white: int
    black: int
    player: int
    outcome: int


class Rastros(
    Game[RastrosState], HasFeatures[RastrosState], HasSymmetries[RastrosState], HasSymmetricStates[RastrosState]
):
    """Rastros on the 8x8 board (see module doc): 8 actions, one per direction."""

    name = "rastros"
    num_players = 2
    num_actions = 8
    # Near one's own goal is good, near the opponent's bad; the start and mobility say nothing.
    feature_weights = (0.0, -1.0, 1.0, 0.0)
    observation_shape = (4, SIZE, SIZE)

    def initial_state(self) -> RastrosState:
        return RastrosState(START, 0, S, ONGOING)

    def current_player(self, state: RastrosState) -> Player:
        return state.player

    def legal_actions(self, state: RastrosState) -> list[Action]:
        if state.outcome != ONGOING:
            return []
        black = state.black
        return [d for d, t in _EXITS[state.white] if not black >> t & 1]

    def apply(self, state: RastrosState, action: Action) -> RastrosState:
        if type(action) is not int:
            action = as_action(action)
        white, black, player, outcome = state
        if outcome != ONGOING or not 0 <= action < 8:
            self.raise_illegal(state, action)
        target = _TARGETS[white][action]
        if target < 0 or black >> target & 1:
            self.raise_illegal(state, action)
        black |= 1 << white
        if target == GOALS[S]:
            outcome = S
        elif target == GOALS[N]:
            outcome = N
        elif not any(not black >> t & 1 for _, t in _EXITS[target]):
            outcome = player  # the opponent has no move and loses
        return RastrosState(target, black, 1 - player, outcome)

    def is_terminal(self, state: RastrosState) -> bool:
        return state.outcome != ONGOING

    def returns(self, state: RastrosState) -> tuple[float, float]:
        return win_loss_returns(state.outcome)  # S is player 0, N player 1

    def features(self, state: RastrosState, player: Player) -> np.ndarray:
        """Evaluation features for ``player`` (seed report 002), king-move (Chebyshev) distances
        of the white stone: to the start (4,5), to ``player``'s goal, to the opponent's goal,
        and the number of free neighbouring cells (the mobility of whoever moves next)."""
        white = state.white
        free = sum(1 for _, t in _EXITS[white] if not state.black >> t & 1)
        return np.array(
            [_distance(white, START), _distance(white, GOALS[player]), _distance(white, GOALS[1 - player]), free],
            dtype=np.float32,
        )

    def symmetric_states(self, state: RastrosState) -> list[tuple[RastrosState, np.ndarray]]:
        """The identity and the reflection in the anti-diagonal (which keeps the start and both
        goals), with the action maps (see ``boardgym.games.symmetry``)."""
        mirrored = state._replace(white=_MIRROR[state.white], black=permute_bits(state.black, _MIRROR))
        return [(state, np.arange(8)), (mirrored, _MIRROR_STEPS)]

    def symmetries(self, state: RastrosState, policy: np.ndarray) -> list[tuple[Planes, np.ndarray]]:
        """Observation planes and ``policy`` for each symmetric image (AlphaZero augmentation)."""
        return augment(self, state, policy)

    # -- views --------------------------------------------------------------------------------
    def observation(self, state: RastrosState, player: Player) -> Planes:
        """Plane 0: the white stone; plane 1: black cells; plane 2: ``player``'s goal cell;
        plane 3: the opponent's goal cell. Row 0 is row 1 of the board (the top)."""
        cells = SIZE * SIZE
        packed = 1 << state.white | state.black << cells | 1 << (2 * cells + GOALS[player])
        packed |= 1 << (3 * cells + GOALS[1 - player])
        return bits_to_cells(packed, 4 * cells).reshape(self.observation_shape)

    def board_grid(self, state: RastrosState) -> np.ndarray:
        """1 for black cells, 2 for the white stone."""
        return stone_grid(state.black, 1 << state.white, SIZE)

    def render(self, state: RastrosState) -> str:
        lines = ["    " + " ".join(str(c) for c in range(1, SIZE + 1))]
        for r in range(SIZE):
            row = []
            for i in range(SIZE * r, SIZE * r + SIZE):
                if i == state.white:
                    row.append("@")
                elif state.black >> i & 1:
                    row.append("#")
                else:
                    row.append("S" if i == GOALS[S] else "N" if i == GOALS[N] else ".")
            lines.append(f" {r + 1}  " + " ".join(row))
        if state.outcome != ONGOING:
            lines.append(f"{'SN'[state.outcome]} (player {state.outcome}) wins")
        else:
            lines.append(f"{'SN'[state.player]} (player {state.player}) to move; type the destination row,col")
        return "\n".join(lines)

    def action_to_str(self, state: RastrosState, action: Action) -> str:
        target = _TARGETS[state.white][action] if 0 <= action < 8 else -1
        if target < 0:
            return DIRECTIONS[action] if 0 <= action < 8 else str(action)
        row, col = cell_of(target)
        return f"{row},{col}"

    def parse_action(self, state: RastrosState, text: str) -> Action:
        text = text.strip().lower()
        if text in DIRECTIONS:
            action = DIRECTIONS.index(text)
        elif match := re.fullmatch(r"\(?\s*([1-8])\s*[, ]\s*([1-8])\s*\)?", text):
            target = cell_index(int(match[1]), int(match[2]))
            targets = _TARGETS[state.white]
            action = targets.index(target) if target in targets else -1
            if action < 0:
                raise IllegalActionError(
                    f"move {text!r}: ({match[1]},{match[2]}) is not next to the white stone at "
                    f"{cell_of(state.white)}; legal moves: {self.legal_moves_text(state)}"
                )
        else:
            raise IllegalActionError(
                f"cannot read move {text!r}: type the destination as row,col (e.g. 5,4) or a direction "
                f"(n, ne, e, se, s, sw, w, nw); legal moves: {self.legal_moves_text(state)}"
            )
        self.check_legal(state, action)
        return action


def _distance(a: int, b: int) -> int:
    (ra, ca), (rb, cb) = cell_of(a), cell_of(b)
    return max(abs(ra - rb), abs(ca - cb))
