"""Quixo rules over int bitboards (Gigamic rules; 5x5 by default, 3x3 and 4x4 for study).

Cells are named by column letter and row number, ``a1`` top-left; bit ``row * size + column``
is the cell (0-based). Player 0 plays X and moves first, player 1 plays O::

       a b c d e
    1  . . . . .        border cubes (the only ones that can be taken) are the cells
    2  . . . . .        of rows 1 and 5 and of columns a and e
    3  . . . . .
    4  . . . . .
    5  . . . . .

A move takes a border cube that is blank or the mover's own (never the opponent's), turns it
to the mover's symbol, and pushes it back in at one end of its row or column: the cubes
between that end and the hole slide one step toward the hole. The cube may not go back to the
square it came from, so a corner cube has 2 moves and an edge cube 3: 44 actions on 5x5, 32 on
4x4, 20 on 3x3.

Action encoding: the actions enumerate the border cells in reading order (a1, b1, c1, ...,
then a2, e2, ...), and for each cell the allowed ends in the order top, bottom, left, right.
A move is written ``<cell>:<end>``, e.g. ``c1:B`` takes c1 and pushes it in at the bottom of
column c (the column slides up), ``a3:R`` pushes a3 in at the right end of row 3.

A full row, column or long diagonal of one's own symbol wins. A move that completes a line of
the opponent's symbol loses, even if it also completes one of the mover's. The rules have no
draw; ``max_moves`` (default 100 plies in all) ends an unfinished game as a draw, which the
envs report as a truncation. ``max_moves=None`` removes the limit (for solvers only: games
can then cycle for ever).
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from boardgym.game import Game, HasFeatures, HasSymmetricStates, HasSymmetries, win_loss_returns
from boardgym.games.bitboard import bits_to_cells, column_letters, stone_grid
from boardgym.games.symmetry import augment, cell_targets, permute_bits, square_symmetries
from boardgym.types import Action, BoardgymError, IllegalActionError, Planes, Player, as_action

SIZES = (3, 4, 5)
DEFAULT_MAX_MOVES = 100
ONGOING, DRAW = -1, 2
ENDS = ("T", "B", "L", "R")
_END_NAMES = {"t": "T", "top": "T", "b": "B", "bottom": "B", "l": "L", "left": "L", "r": "R", "right": "R"}


class QuixoState(NamedTuple):
    """``stones[p]``: the cubes showing player p's symbol (bit ``row * size + column``);
    ``player``: to move; ``moves``: plies played so far (for ``max_moves``); ``outcome``: -1
    ongoing, 0/1 the winner, 2 a draw by the move limit."""

    stones: tuple[int, int]
    player: int
    moves: int
    outcome: int


class Push(NamedTuple):
    """One action, precomputed: take ``source``, slide ``slide`` by one step (``<< up >> down``)
    and put the cube in at ``insert``; ``span`` is every cell that changes."""

    source: int
    insert: int
    slide: int
    span: int
    up: int
    down: int


class Quixo(Game[QuixoState], HasFeatures[QuixoState], HasSymmetries[QuixoState], HasSymmetricStates[QuixoState]):
    """Quixo on a ``size`` x ``size`` board with a ``max_moves`` ply limit (see module doc)."""

    name = "quixo"
    num_players = 2
    feature_weights = (1.0, 1.0, -1.0, -1.0, 1.0)  # the player's counts for, the opponent's against

    def __init__(self, size: int = 5, max_moves: int | None = DEFAULT_MAX_MOVES) -> None:
        if size not in SIZES:
            raise BoardgymError(f"Quixo size={size!r} must be one of {SIZES}, e.g. size=5")
        if max_moves is not None and (not isinstance(max_moves, (int, np.integer)) or max_moves < 1):
            raise BoardgymError(
                f"Quixo max_moves={max_moves!r} must be a positive number of plies (or None for no limit)"
            )
        self.size = n = int(size)
        self.max_moves = None if max_moves is None else int(max_moves)
        self.pushes, self.push_names = _pushes(n)
        self.num_actions = len(self.pushes)
        self.observation_shape = (2, n, n)
        self.lines = _lines(n)  # rows, columns, then the two long diagonals (bitboards)
        self._letters = column_letters(n)
        self._by_name = {name.lower(): action for action, name in enumerate(self.push_names)}
        # (source cell, its actions) per border cell, in action order: legal moves test 16 cells, not 44 moves.
        sources = sorted({push.source for push in self.pushes})
        self._by_source = tuple(
            (source, tuple(a for a, push in enumerate(self.pushes) if push.source == source)) for source in sources
        )
        # The 8 symmetries of the square: a push is its (source, insert) pair, so its image is
        # the push between the images of those two cells.
        by_cells = {(push.source, push.insert): a for a, push in enumerate(self.pushes)}
        self._symmetries = []
        for symmetry in square_symmetries(n):
            targets = cell_targets(n, symmetry)
            actions = [by_cells[permute_bits(p.source, targets), permute_bits(p.insert, targets)] for p in self.pushes]
            self._symmetries.append((targets, np.array(actions)))

    def params(self) -> dict[str, object]:
        return {"size": self.size, "max_moves": self.max_moves}

    # -- rules --------------------------------------------------------------------------------
    def initial_state(self) -> QuixoState:
        return QuixoState((0, 0), 0, 0, ONGOING)

    def current_player(self, state: QuixoState) -> Player:
        return state.player

    def legal_actions(self, state: QuixoState) -> list[Action]:
        if state.outcome != ONGOING:
            return []
        theirs = state.stones[1 - state.player]
        return [a for source, actions in self._by_source if not theirs & source for a in actions]

    def apply(self, state: QuixoState, action: Action) -> QuixoState:
        if type(action) is not int:
            action = as_action(action)
        stones, player, moves, outcome = state
        if outcome != ONGOING or not 0 <= action < self.num_actions:
            self.raise_illegal(state, action)
        push = self.pushes[action]
        mine, theirs = stones[player], stones[1 - player]
        if theirs & push.source:
            self.raise_illegal(state, action)
        keep, slide, up, down = ~push.span, push.slide, push.up, push.down
        mine = (mine & keep) | (mine & slide) << up >> down | push.insert
        theirs = (theirs & keep) | (theirs & slide) << up >> down
        if self._has_line(theirs):
            outcome = 1 - player
        elif self._has_line(mine):
            outcome = player
        elif self.max_moves is not None and moves + 1 >= self.max_moves:
            outcome = DRAW
        new_stones = (mine, theirs) if player == 0 else (theirs, mine)
        return QuixoState(new_stones, 1 - player, moves + 1, outcome)

    def is_terminal(self, state: QuixoState) -> bool:
        return state.outcome != ONGOING

    def is_truncated(self, state: QuixoState) -> bool:
        return state.outcome == DRAW

    def returns(self, state: QuixoState) -> tuple[float, float]:
        return win_loss_returns(state.outcome)

    @property
    def solvable_by_search(self) -> bool:
        # The move counter makes every ply a new state, so only 3x3 with a short limit is small.
        return self.size == 3 and self.max_moves is not None and self.max_moves <= 30

    def features(self, state: QuixoState, player: Player) -> np.ndarray:
        """Evaluation features for ``player`` (weights over them are evolved by ``coevolve``):
        the most of ``player``'s cubes in one line free of the opponent's, their total over all
        such lines, the same two for the opponent, and the difference in cubes on the board."""
        own, opp = state.stones[player], state.stones[1 - player]
        own_best = own_total = opp_best = opp_total = 0
        for line in self.lines:
            mine, theirs = (own & line).bit_count(), (opp & line).bit_count()
            if not theirs:
                own_best, own_total = max(own_best, mine), own_total + mine
            if not mine:
                opp_best, opp_total = max(opp_best, theirs), opp_total + theirs
        values = [own_best, own_total, opp_best, opp_total, own.bit_count() - opp.bit_count()]
        return np.array(values, dtype=np.float32)

    def symmetric_states(self, state: QuixoState) -> list[tuple[QuixoState, np.ndarray]]:
        """The 8 rotations and reflections of the board, with the action maps (see
        ``boardgym.games.symmetry``)."""
        images = []
        for targets, actions in self._symmetries:
            stones = (permute_bits(state.stones[0], targets), permute_bits(state.stones[1], targets))
            images.append((state._replace(stones=stones), actions))
        return images

    def symmetries(self, state: QuixoState, policy: np.ndarray) -> list[tuple[Planes, np.ndarray]]:
        """Observation planes and ``policy`` for each symmetric image (AlphaZero augmentation)."""
        return augment(self, state, policy)

    # -- views --------------------------------------------------------------------------------
    def observation(self, state: QuixoState, player: Player) -> Planes:
        """Plane 0: cubes showing ``player``'s symbol; plane 1: the opponent's; blanks in neither."""
        n = self.size
        own, opp = state.stones[player], state.stones[1 - player]
        return bits_to_cells(own | opp << n * n, 2 * n * n).reshape(2, n, n)

    def board_grid(self, state: QuixoState) -> np.ndarray:
        return stone_grid(state.stones[0], state.stones[1], self.size)

    def render(self, state: QuixoState) -> str:
        n, (x, o) = self.size, state.stones
        lines = ["    " + " ".join(self._letters)]
        for r in range(n):
            cells = ("X" if x >> i & 1 else "O" if o >> i & 1 else "." for i in range(r * n, r * n + n))
            lines.append(f"{r + 1:>2}  " + " ".join(cells))
        limit = f" of {self.max_moves}" if self.max_moves is not None else ""
        if state.outcome == DRAW:
            lines.append(f"draw: move limit of {self.max_moves} plies reached")
        elif state.outcome != ONGOING:
            lines.append(f"{'XO'[state.outcome]} wins after {state.moves} plies")
        else:
            lines.append(f"{'XO'[state.player]} to move (ply {state.moves + 1}{limit}); move = cell:end, e.g. a1:B")
        return "\n".join(lines)

    def action_to_str(self, state: QuixoState, action: Action) -> str:
        return self.push_names[action]

    def parse_action(self, state: QuixoState, text: str) -> Action:
        match = re.fullmatch(r"\s*([a-z]\d)\s*[:>\- ]?\s*([a-z]+)\s*", text.lower())
        end = _END_NAMES.get(match[2]) if match else None
        action = self._by_name.get(f"{match[1]}:{end}".lower()) if match and end else None
        if action is None and match and end:
            on_border = any(name.startswith(f"{match[1]}:") for name in self._by_name)
            raise IllegalActionError(
                f"move {text.strip()!r}: "
                + (
                    "a cube may not go back in at the square it came from"
                    if on_border
                    else "only border cubes can be taken"
                )
                + f"; legal moves: {self.legal_moves_text(state)}"
            )
        if action is None:
            raise IllegalActionError(
                f"cannot read move {text.strip()!r}: type a border cell and the end to push it in at "
                f"(T, B, L or R), e.g. a1:B; legal moves: {self.legal_moves_text(state)}"
            )
        self.check_legal(state, action)
        return action

    # -- internals ----------------------------------------------------------------------------
    def _has_line(self, bits: int) -> bool:
        for line in self.lines:
            if bits & line == line:
                return True
        return False


def _pushes(n: int) -> tuple[tuple[Push, ...], tuple[str, ...]]:
    """Every (border cell, end) move of an n x n board, in action order, with its name."""
    letters = column_letters(n)
    pushes, names = [], []
    for r in range(n):
        for c in range(n):
            if r not in (0, n - 1) and c not in (0, n - 1):
                continue
            # For each end: the cell the cube goes in at, and the cells that slide toward the hole.
            ends = {
                "T": ((0, c), [(i, c) for i in range(0, r)], n, 0),
                "B": ((n - 1, c), [(i, c) for i in range(r + 1, n)], 0, n),
                "L": ((r, 0), [(r, j) for j in range(0, c)], 1, 0),
                "R": ((r, n - 1), [(r, j) for j in range(c + 1, n)], 0, 1),
            }
            for end in ENDS:
                (ir, ic), sliding, up, down = ends[end]
                if (ir, ic) == (r, c):
                    continue
                slide = sum(1 << (i * n + j) for i, j in sliding)
                source = 1 << (r * n + c)
                pushes.append(Push(source, 1 << (ir * n + ic), slide, slide | source, up, down))
                names.append(f"{letters[c]}{r + 1}:{end}")
    return tuple(pushes), tuple(names)


def _lines(n: int) -> tuple[int, ...]:
    rows = [sum(1 << (r * n + c) for c in range(n)) for r in range(n)]
    cols = [sum(1 << (r * n + c) for r in range(n)) for c in range(n)]
    diagonals = [sum(1 << (i * n + i) for i in range(n)), sum(1 << (i * n + n - 1 - i) for i in range(n))]
    return tuple(rows + cols + diagonals)
