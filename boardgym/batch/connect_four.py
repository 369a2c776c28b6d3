"""Connect Four, batched, over the bitboards of ``boardgym.games.connect_four`` (bit
``7 * column + row``, a sentinel bit atop each column): per game the discs of the player to
move and all discs (``long[B]``), as Pons's solver keeps them. A move is one carry (the
column's lowest empty cell is ``(occupied + bottom) & column``), four in a row four pairs of
shifts of the mover's discs. The open columns are gathered into a 7-bit number by one
multiplication (the top cells of the columns lie 7 bits apart; times ``sum(2 ** 6j)`` each lands
on its own bit of 36..42), so the legal mask and a random legal column are table look-ups."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import torch

from boardgym.batch.core import BatchedGame, bits_to_mask, pick_tables
from boardgym.games.connect_four import (
    BOARD_MASK,
    COLUMN_MASKS,
    COLUMNS,
    DRAW,
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
GATHERED = 36


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
        self.top_cells = self.tensor([1 << (HEIGHT * column + ROWS - 1) for column in range(COLUMNS)])
        # plane cell (row from the top, column) -> its bit
        self.plane_bits = self.tensor([[HEIGHT * c + (ROWS - 1 - r) for c in range(COLUMNS)] for r in range(ROWS)])
        counts, picks = pick_tables(COLUMNS)
        self.open_counts, self.open_picks = self.tensor(counts), self.tensor(picks)
        self.open_columns = bits_to_mask(self.tensor(range(1 << COLUMNS)), COLUMNS)

    def _start(self, batch: int, generator: torch.Generator | None) -> ConnectFourBatch:
        empty = torch.zeros(batch, dtype=torch.long, device=self.device)
        return ConnectFourBatch(mover=empty, occupied=empty.clone(), **self.common(batch))

    def _move(
        self, state: ConnectFourBatch, actions: torch.Tensor, moving: torch.Tensor
    ) -> tuple[ConnectFourBatch, torch.Tensor]:
        disc = (state.occupied + self.bottoms.index_select(0, actions)) & self.columns.index_select(0, actions)
        disc = torch.where(moving, disc, 0)
        mine = state.mover | disc
        occupied = state.occupied | disc
        pairs = mine & (mine >> self.shifts)  # [4, B]: the four directions at once
        # Only a move can make four, or fill the board (a finished game's discs never hold the
        # mover's four: the player to move there lost, or nobody won), so no "& moving".
        won = (pairs & (pairs >> self.shifts2)).amax(0) != 0
        after = state._replace(
            mover=torch.where(moving, occupied ^ mine, state.mover),  # the next player's discs
            occupied=occupied,
            current_player=state.current_player ^ moving,
            terminated=state.terminated | won | (occupied == BOARD_MASK),
        )
        return after, torch.where(won, state.current_player, -1)

    def _reset(
        self, state: ConnectFourBatch, ended: torch.Tensor, generator: torch.Generator | None
    ) -> ConnectFourBatch:
        names = ("mover", "occupied", "current_player", "terminated", "steps")
        return state._replace(**self.reset_fields(state, ended, names))

    def legal_mask(self, state: ConnectFourBatch) -> torch.Tensor:
        return self.open_columns.index_select(0, self._open(state))

    def is_legal(self, state: ConnectFourBatch, actions: torch.Tensor) -> torch.Tensor:
        return (state.occupied & self.top_cells.index_select(0, actions)) == 0  # step asks only of live games

    def random_actions(self, state: ConnectFourBatch, generator: torch.Generator | None = None) -> torch.Tensor:
        open_ = self._open(state)
        counts = self.open_counts.index_select(0, open_)
        rank = (torch.rand(len(open_), generator=generator, device=self.device) * counts).long()
        return self.open_picks.index_select(0, open_ * COLUMNS + rank)

    def _open(self, state: ConnectFourBatch) -> torch.Tensor:
        """The open columns as 7 bits (column ``c`` bit ``c``); none once the game is over."""
        free = (~state.occupied >> (ROWS - 1)) & (TOPS >> (ROWS - 1))
        gathered = ((free * GATHER) >> GATHERED) & ((1 << COLUMNS) - 1)
        return torch.where(state.terminated, 0, gathered)

    def _planes(self, state: ConnectFourBatch, player: torch.Tensor) -> torch.Tensor:
        others = state.occupied ^ state.mover
        to_move = player == state.current_player
        own = torch.where(to_move, state.mover, others)
        opponent = torch.where(to_move, others, state.mover)
        boards = torch.stack((own, opponent), 1)  # [B, 2]
        return (boards[:, :, None, None] >> self.plane_bits).bitwise_and_(1).float()

    def to_scalar_states(self, state: ConnectFourBatch) -> list[Any]:
        states = []
        for mover, occupied, player in zip(
            state.mover.tolist(), state.occupied.tolist(), state.current_player.tolist(), strict=True
        ):
            black, white = (mover, occupied ^ mover) if player == 0 else (occupied ^ mover, mover)
            states.append(state_from_stones(black, white, player, _outcome_of(black, white, occupied)))
        return states

    def from_scalar_states(self, states: Sequence[Any]) -> ConnectFourBatch:
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
