"""Connect Four, batched, over the bitboards of ``boardgym.games.connect_four`` (bit
``7 * column + row``, a sentinel bit atop each column): per game the discs of the player to
move and all discs (``long[B]``), as Pons's solver keeps them. A move is one carry (the
column's lowest empty cell is ``(occupied + bottom) & column``, nothing in a full column), four
in a row four pairs of shifts of the mover's discs. The full columns are gathered into a 7-bit
number by one multiplication (their top cells lie 7 bits apart; times ``sum(2 ** 6j)`` each
lands on its own bit of 41..47), so the legal mask and a random legal column are table
look-ups."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import torch

from boardgym.batch.core import BatchedGame
from boardgym.batch.tables import bits_to_mask
from boardgym.games.connect_four import (
    BOARD_MASK,
    COLUMN_MASKS,
    COLUMNS,
    DRAW,
    FULL_COLUMN_SHIFT,
    HEIGHT,
    LINES,
    ONGOING,
    ROWS,
    ConnectFour,
    state_from_stones,
    stones,
)

SHIFTS = (1, HEIGHT - 1, HEIGHT, HEIGHT + 1)
"""The bit distance between neighbours in a line: vertical, the two diagonals, horizontal."""
TOPS = sum(1 << (HEIGHT * column + ROWS - 1) for column in range(COLUMNS))
GATHER = sum(1 << (6 * j) for j in range(COLUMNS))
GATHERED = 6 * (COLUMNS - 1) + ROWS - 1
"""Where the gathered top cells land: column ``c``'s (bit ``7c + 5``) times ``2 ** 6(6 - c)``."""
ALL = (1 << COLUMNS) - 1
SPREAD = 420
"""The least common multiple of 1..7: a uniform draw below it picks uniformly among any number
of open columns."""
BOTTOMS = sum(1 << (HEIGHT * column) for column in range(COLUMNS))
"""Each column's bottom cell: a column's discs plus its bottom bit carry past them all."""


class ConnectFourBatch(NamedTuple):
    current_player: torch.Tensor
    terminated: torch.Tensor
    truncated: torch.Tensor
    ended: torch.Tensor
    rewards: torch.Tensor
    steps: torch.Tensor
    mover: torch.Tensor
    """The discs of the player to move."""
    occupied: torch.Tensor
    """Every disc."""


class BatchedConnectFour(BatchedGame[ConnectFourBatch]):
    truncates = False

    def __init__(self, game: ConnectFour | None = None, device: str | torch.device = "cpu") -> None:
        super().__init__(game or ConnectFour(), device)
        self.bottoms = self.tensor([1 << (HEIGHT * column) for column in range(COLUMNS)])
        self.columns = self.tensor(COLUMN_MASKS)
        self.shifts = self.tensor(SHIFTS).view(len(SHIFTS), 1)
        self.shifts2 = 2 * self.shifts
        # plane cell (row from the top, column) -> its bit
        self.plane_bits = self.tensor([[HEIGHT * c + (ROWS - 1 - r) for c in range(COLUMNS)] for r in range(ROWS)])
        # a random open column: row ``full`` of the full columns, one of SPREAD entries, each
        # open column the same number of times (SPREAD is a multiple of every count of them)
        picks = []
        for full in range(1 << COLUMNS):
            open_ = [column for column in range(COLUMNS) if not full >> column & 1] or [0]
            picks += [open_[index * len(open_) // SPREAD] for index in range(SPREAD)]
        self.random_picks = self.tensor(picks)
        self.open_columns = ~bits_to_mask(self.tensor(range(1 << COLUMNS)), COLUMNS)

    def _start(self, batch: int, generator: torch.Generator | None) -> ConnectFourBatch:
        empty = torch.zeros(batch, dtype=torch.long, device=self.device)
        return ConnectFourBatch(mover=empty, occupied=empty.clone(), **self.common(batch))

    def _step(
        self,
        state: ConnectFourBatch,
        actions: torch.Tensor,
        in_space: torch.Tensor | None,
        where: torch.Tensor | None,
    ) -> ConnectFourBatch:
        if in_space is not None:
            actions = actions.clamp(0, COLUMNS - 1)
        # the column's lowest empty cell; none (0) in a full column, whose carry goes to its sentinel
        disc = (state.occupied + self.bottoms.index_select(0, actions)) & self.columns.index_select(0, actions)
        if in_space is None and where is None and self._every(disc) and not self._may_be_any(state.terminated):
            return self._all_move(state, disc)
        blocked = state.terminated  # the games that do not move (and those of them still live: illegal)
        if in_space is not None:
            blocked = blocked | ~in_space
        if where is not None:
            blocked = blocked | ~where
        disc = torch.where(blocked, 0, disc)
        moved = disc != 0
        mine = state.mover | disc
        occupied = state.occupied | disc
        won = self._four(mine)  # only a move can make four (in a finished game, nobody or the other)
        terminated = state.terminated | won | (occupied == BOARD_MASK)
        outcome = torch.where(won, state.current_player + 1, 0)  # a row of REWARDS
        stuck = ~(moved | state.terminated)  # live games that did not move
        if self._may_be_any(stuck):  # illegal: a full column, out of range
            illegal = stuck if where is None else stuck & where
            outcome = torch.where(illegal, state.current_player + 3, outcome)
            terminated = terminated | illegal
        return ConnectFourBatch(
            mover=torch.where(moved, occupied ^ mine, state.mover),  # the next player's discs
            occupied=occupied,
            current_player=state.current_player ^ moved,
            terminated=terminated,
            truncated=state.truncated,
            ended=terminated ^ state.terminated,
            rewards=self.rewards_of(outcome),
            steps=state.steps + moved,
        )

    def _all_move(self, state: ConnectFourBatch, disc: torch.Tensor) -> ConnectFourBatch:
        """``_step`` where every game is live and its disc lands (a loop with auto-reset, as a
        rule): no game to leave as it is, no illegal move."""
        mine = state.mover | disc
        occupied = state.occupied | disc
        won = self._four(mine)
        terminated = won | (occupied == BOARD_MASK)
        return ConnectFourBatch(
            mover=occupied ^ mine,
            occupied=occupied,
            current_player=state.current_player ^ 1,
            terminated=terminated,
            truncated=state.truncated,
            ended=terminated,
            rewards=self.rewards_of(torch.where(won, state.current_player + 1, 0)),
            steps=state.steps + 1,
        )

    def _four(self, discs: torch.Tensor) -> torch.Tensor:
        """``bool[B]``: whether ``discs`` hold four in a row."""
        pairs = (discs >> self.shifts).bitwise_and_(discs)  # [4, B]: the four directions at once
        return pairs.bitwise_and_(pairs >> self.shifts2).amax(0) != 0

    def _value_problems(self, state: ConnectFourBatch) -> list[tuple[str, str, torch.Tensor]]:
        occupied, mover = state.occupied, state.mover
        discs = bits_to_mask(occupied, 64).sum(1)
        full_or_won = (occupied == BOARD_MASK) | self._four(occupied ^ mover)
        return [
            ("occupied", "has bits outside the board", (occupied & ~BOARD_MASK) != 0),
            ("occupied", "has a disc above an empty cell", ((occupied + BOTTOMS) & occupied) != 0),
            ("mover", "has discs where state.occupied has none", (mover & ~occupied) != 0),
            ("steps", "is not the count of discs", state.steps != discs),
            ("mover", "holds four in a row, but only the player who just moved can have won", self._four(mover)),
            ("terminated", "is not set, but the game is won or the board full", ~state.terminated & full_or_won),
        ]

    def _reset(
        self, state: ConnectFourBatch, ended: torch.Tensor, generator: torch.Generator | None
    ) -> ConnectFourBatch:
        names = ("mover", "occupied", "current_player", "terminated", "steps")
        return state._replace(**self.reset_fields(state, ended, names))

    def legal_mask(self, state: ConnectFourBatch) -> torch.Tensor:
        return self.open_columns.index_select(0, torch.where(state.terminated, ALL, self._full(state)))

    def random_actions(self, state: ConnectFourBatch, generator: torch.Generator | None = None) -> torch.Tensor:
        full = self._full(state)  # a finished game's pick is arbitrary (step ignores it)
        spread = torch.empty_like(full).random_(0, SPREAD, generator=generator)
        return self.random_picks.index_select(0, spread.add_(full, alpha=SPREAD))

    def _full(self, state: ConnectFourBatch) -> torch.Tensor:
        """The full columns as 7 bits (column ``c`` bit ``c``)."""
        return (((state.occupied & TOPS) * GATHER) >> GATHERED) & ALL

    def _planes(self, state: ConnectFourBatch, player: torch.Tensor) -> torch.Tensor:
        others = state.occupied ^ state.mover
        to_move = player == state.current_player
        own = torch.where(to_move, state.mover, others)
        opponent = torch.where(to_move, others, state.mover)
        boards = torch.stack((own, opponent), 1)  # [B, 2]
        return (boards[:, :, None, None] >> self.plane_bits).bitwise_and_(1).float()

    def _to_scalar_states(self, state: ConnectFourBatch) -> list[Any]:
        # the scalar state is (the mover's stones, the occupied cells, an info word): the info
        # word's player and full-column bits for the whole batch at once, as state_from_stones
        # writes them; a finished game's (rare) is made by state_from_stones itself
        occupied = state.occupied
        info = state.current_player.to(torch.int64)
        for column in range(COLUMNS):
            info = info | (((occupied >> (HEIGHT * column + ROWS - 1)) & 1) << (column + FULL_COLUMN_SHIFT))
        states: list[Any] = list(zip(state.mover.tolist(), occupied.tolist(), info.tolist(), strict=True))
        for row in state.terminated.nonzero().flatten().tolist():
            mover, board, info_word = states[row]
            player = info_word & 1
            black, white = (mover, board ^ mover) if player == 0 else (board ^ mover, mover)
            states[row] = state_from_stones(black, white, player, _outcome_of(black, white, board))
        return states

    def _from_scalar_states(self, states: Sequence[Any]) -> ConnectFourBatch:
        game = self.game
        players = [game.current_player(s) for s in states]
        boards = [stones(s) for s in states]
        return self._start(len(states), None)._replace(
            mover=self.tensor([pair[player] for pair, player in zip(boards, players, strict=True)]),
            occupied=self.tensor([black | white for black, white in boards]),
            current_player=self.tensor(players),
            terminated=self.tensor([game.is_terminal(s) for s in states], torch.bool),
            steps=self.tensor([(black | white).bit_count() for black, white in boards]),
        )


def _outcome_of(black: int, white: int, occupied: int) -> int:
    """The scalar rules' outcome code of a position: its winner, a draw, or still going."""
    for player, discs in enumerate((black, white)):
        if any(discs & line == line for line in LINES):
            return player
    return DRAW if occupied == BOARD_MASK else ONGOING
