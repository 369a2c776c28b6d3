"""Tic-Tac-Toe rules over 9-bit boards.

Cells and actions (action = cell index; column letter + row number when typed)::

       a   b   c
    1  0 | 1 | 2
      ---+---+---
    2  3 | 4 | 5
      ---+---+---
    3  6 | 7 | 8

Player 0 plays X and moves first. The game value with perfect play is a draw.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from boardgym.game import Game, HasFeatures, HasSymmetries
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

ONGOING, DRAW = -1, 2


class TicTacToeState(NamedTuple):
    """``stones[p]`` is player p's 9-bit board; ``outcome`` is -1 ongoing, 0/1 winner, 2 draw;
    ``key`` is ``stones[0] | stones[1] << 9``, the position's number in the game's tables (the
    rules look positions up by it without hashing the whole state)."""

    stones: tuple[int, int]
    player: int
    outcome: int
    key: int


class TicTacToe(Game[TicTacToeState], HasFeatures[TicTacToeState], HasSymmetries[TicTacToeState]):
    name = "tictactoe"
    num_players = 2
    num_actions = 9
    feature_weights = (2.0, 1.0, -2.0, -1.0, 1.0)  # a two counts double a one
    observation_shape = (2, 3, 3)

    def __init__(self) -> None:
        # Indexed by key (lists, not dicts: an index costs less than a hash lookup), the state
        # after each action (None where illegal) and the legal actions, filled as positions
        # are met: the whole game has only 5,478 positions.
        self._children: list[tuple[TicTacToeState | None, ...] | None] = [None] * (1 << 18)
        self._legal: list[list[Action] | None] = [None] * (1 << 18)
        self._initial = TicTacToeState((0, 0), 0, ONGOING, 0)
        # The 8 symmetries of the square as cell maps; an action is a cell, so they map actions too.
        self._symmetries = [cell_targets(3, symmetry) for symmetry in square_symmetries(3)]

    def initial_state(self) -> TicTacToeState:
        return self._initial

    def state(self, x: int, o: int) -> TicTacToeState:
        """The position with X's and O's 9-bit boards ``x`` and ``o`` (outcome and player to
        move follow from them; X moves when both have the same count)."""
        if (
            x & o
            or not 0 <= x | o <= FULL
            or not 0 <= x.bit_count() - o.bit_count() <= 1
            or (_HAS_LINE[x] and _HAS_LINE[o])  # both cannot have won
        ):
            raise BoardgymError(f"boards x={x:#011b}, o={o:#011b} are not a tic-tac-toe position")
        player = x.bit_count() - o.bit_count()
        outcome = 0 if _HAS_LINE[x] else 1 if _HAS_LINE[o] else DRAW if x | o == FULL else ONGOING
        return TicTacToeState((x, o), player, outcome, x | o << 9)

    def current_player(self, state: TicTacToeState) -> Player:
        return state.player

    def legal_actions(self, state: TicTacToeState) -> list[Action]:
        legal = self._legal[state[3]]
        if legal is None:
            (x, o), _, outcome, key = state
            legal = self._legal[key] = [] if outcome != ONGOING else list(_FREE_CELLS[x | o])
        return legal.copy()

    def apply(self, state: TicTacToeState, action: Action) -> TicTacToeState:
        if type(action) is not int:
            action = as_action(action)
        children = self._children[state[3]]
        if children is None:
            children = self._children[state[3]] = tuple(self._child(state, a) for a in range(9))
        if not 0 <= action < 9 or (child := children[action]) is None:
            self.raise_illegal(state, action)
        return child

    def _child(self, state: TicTacToeState, action: Action) -> TicTacToeState | None:
        (x, o), player, outcome, _ = state
        occupied = x | o
        if outcome != ONGOING or occupied >> action & 1:
            return None
        if player == 0:
            x |= 1 << action
            won = _HAS_LINE[x]
        else:
            o |= 1 << action
            won = _HAS_LINE[o]
        if won:
            outcome = player
        elif occupied | 1 << action == FULL:
            outcome = DRAW
        return TicTacToeState((x, o), 1 - player, outcome, x | o << 9)

    def is_terminal(self, state: TicTacToeState) -> bool:
        return state.outcome != ONGOING

    def returns(self, state: TicTacToeState) -> tuple[float, float]:
        if state.outcome == 0:
            return (1.0, -1.0)
        if state.outcome == 1:
            return (-1.0, 1.0)
        return (0.0, 0.0)

    def observation(self, state: TicTacToeState, player: Player) -> Planes:
        """Plane 0: ``player``'s marks; plane 1: the opponent's."""
        own, opp = state.stones[player], state.stones[1 - player]
        return bits_to_cells(own | opp << 9, 18).reshape(self.observation_shape)

    @property
    def solvable_by_search(self) -> bool:
        return True

    def features(self, state: TicTacToeState, player: Player) -> np.ndarray:
        """Evaluation features for ``player`` (weights over them are evolved by ``coevolve``):
        lines holding two of ``player``'s marks and none of the opponent's, the same with one
        mark, the same two counts for the opponent, and who holds the centre (+1, -1 or 0)."""
        own, opp = state.stones[player], state.stones[1 - player]
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
        x, o = state.stones
        images = []
        for targets in self._symmetries:
            x_image, o_image = permute_bits(x, targets), permute_bits(o, targets)
            image = state._replace(stones=(x_image, o_image), key=x_image | o_image << 9)
            images.append((image, np.array(targets)))
        return images

    def symmetries(self, state: TicTacToeState, policy: np.ndarray) -> list[tuple[Planes, np.ndarray]]:
        """Observation planes and ``policy`` for each symmetric image (AlphaZero augmentation)."""
        return augment(self, state, policy)

    def render(self, state: TicTacToeState) -> str:
        rows = ["   a b c"]
        for r in range(3):
            cells = []
            for c in range(3):
                i = 3 * r + c
                cells.append("X" if state.stones[0] >> i & 1 else "O" if state.stones[1] >> i & 1 else ".")
            rows.append(f"{r + 1}  " + " ".join(cells))
        rows.append(_status(state))
        return "\n".join(rows)

    def board_grid(self, state: TicTacToeState) -> np.ndarray:
        grid = bits_to_cells(state.stones[0], 9) + 2 * bits_to_cells(state.stones[1], 9)
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
    if state.outcome == DRAW:
        return "draw"
    if state.outcome != ONGOING:
        return f"{'XO'[state.outcome]} wins"
    return f"{'XO'[state.player]} to move"
