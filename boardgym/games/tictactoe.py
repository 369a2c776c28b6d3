"""Tic-Tac-Toe rules over position codes: every position is precomputed.

Cells and actions (action = cell index; column letter + row number when typed)::

       a   b   c
    1  0 | 1 | 2
      ---+---+---
    2  3 | 4 | 5
      ---+---+---
    3  6 | 7 | 8

Player 0 plays X and moves first. The game value with perfect play is a draw.

A state is a plain ``int``, the position's code: the sum over the cells of the cell's mark
(0 empty, 1 X, 2 O) times ``3 ** cell``. The whole game has 5,478 positions, so the rules are
tables indexed by code, built once per process (19,683 entries each, compact enough to stay
in the processor's cache): whether the game is over, the legal moves, the position after each
move. ``stones(state)`` gives the two players' 9-bit boards, ``outcome(state)`` the result
(-1 still going, 0 or 1 the winner, 2 a draw), ``TicTacToe.state(x, o)`` the code of a
position given by its boards.
"""

from __future__ import annotations

import numpy as np

from boardgym.game import Game, HasFeatures, HasSymmetricStates, HasSymmetries
from boardgym.games.bitboard import bits_to_cells
from boardgym.games.symmetry import augment, cell_targets, permute_bits, square_symmetries
from boardgym.types import Action, BoardgymError, IllegalActionError, Planes, Player, as_action

LINES = (
    0b000000111,
    0b000111000,
    0b111000000,  # rows
    0b001001001,
    0b010010010,
    0b100100100,  # columns
    0b100010001,
    0b001010100,  # diagonals
)
FULL = 0b111111111
# Precomputed over all 512 masks: does this set of cells hold a line? which cells are free?
_HAS_LINE = tuple(any(mask & line == line for line in LINES) for mask in range(512))
_FREE_CELLS = tuple(tuple(c for c in range(9) if not mask >> c & 1) for mask in range(512))
_TERNARY = tuple(sum(3**c for c in range(9) if mask >> c & 1) for mask in range(512))  # X's code of a board

ONGOING, DRAW = -1, 2
CODES = 3**9

TicTacToeState = int
"""A position's code (see the module docstring)."""


def _tables() -> tuple[list[int | None], list[bool], list[list[Action]], list[int | None], list[int], list[int]]:
    """Per code: the outcome (None: not a position: marks overlap, counts differ by more than
    one, or both players have a line), whether the game is over, the legal moves, the child
    after each action (flat, ``9 * code + action``; None where illegal), X's and O's boards."""
    outcome: list[int | None] = [None] * CODES
    over = [True] * CODES
    legal: list[list[Action]] = [[] for _ in range(CODES)]
    xs, os = [0] * CODES, [0] * CODES
    codes = list(range(CODES))  # one int object per code, shared by every table entry
    children: list[int | None] = [None] * (9 * CODES)
    for x in range(512):
        free = FULL ^ x
        o = free
        while True:  # every board of O on the cells X leaves free
            lead = x.bit_count() - o.bit_count()
            if 0 <= lead <= 1 and not (_HAS_LINE[x] and _HAS_LINE[o]):
                code = _TERNARY[x] + 2 * _TERNARY[o]
                xs[code], os[code] = x, o
                result = 0 if _HAS_LINE[x] else 1 if _HAS_LINE[o] else DRAW if x | o == FULL else ONGOING
                outcome[code] = result
                if result == ONGOING:
                    over[code] = False
                    moves = list(_FREE_CELLS[x | o])
                    legal[code] = moves
                    mark = 1 + lead  # X moves when the counts are equal (lead 0), O after X
                    for action in moves:
                        children[9 * code + action] = codes[code + mark * 3**action]
            if not o:
                break
            o = (o - 1) & free
    return outcome, over, legal, children, xs, os


_OUTCOME, _OVER, _LEGAL, _CHILDREN, _X, _O = _tables()


def stones(state: TicTacToeState) -> tuple[int, int]:
    """X's and O's 9-bit boards (bit ``cell``)."""
    return _X[state], _O[state]


def outcome(state: TicTacToeState) -> int:
    """-1 while the game goes on, else the winner (0 X, 1 O) or 2 for a draw."""
    result = _OUTCOME[state]
    assert result is not None, f"{state} is not a tic-tac-toe position code"
    return result


class TicTacToe(
    Game[TicTacToeState], HasFeatures[TicTacToeState], HasSymmetries[TicTacToeState], HasSymmetricStates[TicTacToeState]
):
    name = "tictactoe"
    num_players = 2
    num_actions = 9
    feature_weights = (2.0, 1.0, -2.0, -1.0, 1.0)  # a two counts double a one
    observation_shape = (2, 3, 3)

    def __init__(self) -> None:
        # The 8 symmetries of the square as cell maps; an action is a cell, so they map actions too.
        self._symmetries = [cell_targets(3, symmetry) for symmetry in square_symmetries(3)]

    def initial_state(self) -> TicTacToeState:
        return 0

    def state(self, x: int, o: int) -> TicTacToeState:
        """The position with X's and O's 9-bit boards ``x`` and ``o`` (outcome and player to
        move follow from them; X moves when both have the same count)."""
        if x & o or not 0 <= x | o <= FULL or _OUTCOME[_TERNARY[x] + 2 * _TERNARY[o]] is None:
            raise BoardgymError(f"boards x={x:#011b}, o={o:#011b} are not a tic-tac-toe position")
        return _TERNARY[x] + 2 * _TERNARY[o]

    def current_player(self, state: TicTacToeState) -> Player:
        return _X[state].bit_count() - _O[state].bit_count()

    def legal_actions(self, state: TicTacToeState) -> list[Action]:
        return _LEGAL[state].copy()

    def apply(self, state: TicTacToeState, action: Action) -> TicTacToeState:
        if type(action) is not int:
            action = as_action(action)
        if 0 <= action < 9:
            child = _CHILDREN[9 * state + action]
            if child is not None:
                return child
        self.raise_illegal(state, action)

    def is_terminal(self, state: TicTacToeState) -> bool:
        return _OVER[state]

    def returns(self, state: TicTacToeState) -> tuple[float, float]:
        result = _OUTCOME[state]
        if result == 0:
            return (1.0, -1.0)
        if result == 1:
            return (-1.0, 1.0)
        return (0.0, 0.0)

    def observation(self, state: TicTacToeState, player: Player) -> Planes:
        """Plane 0: ``player``'s marks; plane 1: the opponent's."""
        boards = stones(state)
        own, opp = boards[player], boards[1 - player]
        return bits_to_cells(own | opp << 9, 18).reshape(self.observation_shape)

    @property
    def solvable_by_search(self) -> bool:
        return True

    def features(self, state: TicTacToeState, player: Player) -> np.ndarray:
        """Evaluation features for ``player`` (weights over them are evolved by ``coevolve``):
        lines holding two of ``player``'s marks and none of the opponent's, the same with one
        mark, the same two counts for the opponent, and who holds the centre (+1, -1 or 0)."""
        boards = stones(state)
        own, opp = boards[player], boards[1 - player]
        counts = [0, 0, 0, 0]
        for line in LINES:
            mine, theirs = (own & line).bit_count(), (opp & line).bit_count()
            if not theirs and 1 <= mine <= 2:
                counts[2 - mine] += 1
            elif not mine and 1 <= theirs <= 2:
                counts[4 - theirs] += 1
        centre = (own >> 4 & 1) - (opp >> 4 & 1)
        return np.array([*counts, centre], dtype=np.float32)

    def symmetric_states(self, state: TicTacToeState) -> list[tuple[TicTacToeState, np.ndarray]]:
        """The 8 rotations and reflections, with the action maps (``boardgym.games.symmetry``)."""
        x, o = stones(state)
        images = []
        for targets in self._symmetries:
            image = _TERNARY[permute_bits(x, targets)] + 2 * _TERNARY[permute_bits(o, targets)]
            images.append((image, np.array(targets)))
        return images

    def symmetries(self, state: TicTacToeState, policy: np.ndarray) -> list[tuple[Planes, np.ndarray]]:
        """Observation planes and ``policy`` for each symmetric image (AlphaZero augmentation)."""
        return augment(self, state, policy)

    def render(self, state: TicTacToeState) -> str:
        x, o = stones(state)
        rows = ["   a b c"]
        for r in range(3):
            cells = []
            for c in range(3):
                i = 3 * r + c
                cells.append("X" if x >> i & 1 else "O" if o >> i & 1 else ".")
            rows.append(f"{r + 1}  " + " ".join(cells))
        rows.append(_status(state))
        return "\n".join(rows)

    def board_grid(self, state: TicTacToeState) -> np.ndarray:
        x, o = stones(state)
        grid = bits_to_cells(x, 9) + 2 * bits_to_cells(o, 9)
        return grid.astype(np.int8).reshape(3, 3)

    def action_to_str(self, state: TicTacToeState, action: Action) -> str:
        return "abc"[action % 3] + str(action // 3 + 1)

    def parse_action(self, state: TicTacToeState, text: str) -> Action:
        text = text.strip().lower()
        if len(text) == 2 and text[0] in "abc" and text[1] in "123":
            action = "abc".index(text[0]) + 3 * (int(text[1]) - 1)
            self.check_legal(state, action)
            return action
        raise IllegalActionError(
            f"cannot read move {text!r}: type a column a-c and a row 1-3, e.g. b2; "
            f"legal moves: {self.legal_moves_text(state)}"
        )


def _status(state: TicTacToeState) -> str:
    result = outcome(state)
    if result == DRAW:
        return "draw"
    if result != ONGOING:
        return f"{'XO'[result]} wins"
    x, o = stones(state)
    return f"{'XO'[x.bit_count() - o.bit_count()]} to move"
