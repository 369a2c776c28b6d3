"""Quarto, batched. Each game keeps its pieces as a 64-bit board of 4-bit cells (the piece on
cell ``c`` in bits ``4c..4c+3``) and the same board with every piece inverted (``15 - piece``,
so an empty cell is 0 in both), the occupied cells and the available pieces as 16-bit sets, and
the piece in hand (16 while the player to move chooses). Four pieces share an attribute where
their cells' bits, ANDed, leave a bit set on one board or the other, so Quarto's lines are a few
shifts over both boards (``boardgym.batch.lines``), over the scalar rules' own ``LINES``.

A move is one row of tables indexed by (piece in hand, action): what it adds to each board,
which piece it takes, the piece in hand after it, whether the turn passes. The legal moves are
the free cells (while placing) or the available pieces (while choosing), a 16-bit set, so the
legal mask and a uniformly random legal move are table look-ups."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import torch

from boardgym.batch.core import BatchedGame, pick_tables
from boardgym.batch.lines import LineTest
from boardgym.games.quarto import ALL, CELLS, CHOOSE, DRAW, LINES, NO_PIECE, ONGOING, PIECES, Quarto, QuartoState

IN_HAND_NONE = PIECES
"""The ``piece`` field while the player to move chooses (the scalar rules' ``NO_PIECE``)."""
ROW = CHOOSE + PIECES + 1
"""A row of the move tables per piece in hand: its 32 actions, then "no move"."""


def _int64(value: int) -> int:
    """A 64-bit pattern as the signed value torch keeps."""
    return value - (1 << 64) if value >= 1 << 63 else value


class QuartoBatch(NamedTuple):
    current_player: torch.Tensor
    terminated: torch.Tensor
    truncated: torch.Tensor
    ended: torch.Tensor
    rewards: torch.Tensor
    steps: torch.Tensor
    pieces: torch.Tensor
    """The pieces on the board, cell ``c``'s in bits ``4c..4c+3`` (0 for an empty cell)."""
    inverted: torch.Tensor
    """The same with every piece inverted (``15 - piece``; still 0 for an empty cell)."""
    occupied: torch.Tensor
    """The occupied cells (bit ``c``)."""
    available: torch.Tensor
    """The pieces neither on the board nor in hand (bit ``p``)."""
    piece: torch.Tensor
    """The piece to place, or ``IN_HAND_NONE`` (16) while the player to move chooses."""


class BatchedQuarto(BatchedGame[QuartoBatch]):
    def __init__(self, game: Quarto | None = None, device: str | torch.device = "cpu") -> None:
        super().__init__(game or Quarto(), device)
        # The move tables: row ``ROW * piece + action`` (piece 16: none in hand; action 32: no move).
        adds, inverts, cells, takes, hands, passes = [], [], [], [], [], []
        for piece in range(PIECES + 1):
            for action in range(ROW):
                placing = piece < PIECES and action < CELLS
                choosing = piece == IN_HAND_NONE and CHOOSE <= action < CHOOSE + PIECES
                adds.append(_int64(piece << 4 * action) if placing else 0)
                inverts.append(_int64((15 - piece) << 4 * action) if placing else 0)
                cells.append(1 << action if placing else 0)
                takes.append(1 << action - CHOOSE if choosing else 0)
                hands.append(IN_HAND_NONE if placing else action - CHOOSE if choosing else piece)
                passes.append(int(choosing))
        self.adds, self.inverts, self.cells = self.tensor(adds), self.tensor(inverts), self.tensor(cells)
        self.takes, self.hands, self.passes = self.tensor(takes), self.tensor(hands), self.tensor(passes)
        self.no_move = self.tensor(CHOOSE + PIECES)
        self.row = self.tensor(ROW)
        self.all = self.tensor(ALL)
        self.none = self.tensor(IN_HAND_NONE)
        self.lines = LineTest(LINES, self.device, width=4)
        # The legal moves: a 16-bit set of cells or pieces, and 16 where they are pieces.
        counts, picks = pick_tables(16)
        self.counts, self.picks = self.tensor(counts, torch.float32), self.tensor(picks)
        sets = self.tensor(range(1 << 17)).unsqueeze(1)
        actions = self.tensor(range(CELLS + PIECES))
        legal = (sets >> (actions % 16) & 1 == 1) & ((sets >> 16 == 1) == (actions >= CHOOSE))
        self.over_row = len(legal)
        self.legal_rows = torch.cat((legal, torch.zeros_like(legal[:1])))
        # The observation: planes 0-3 from the pieces, 4-7 from a word of four 16-bit sets
        # (occupied, available, the piece in hand, all ones while placing).
        hand = [_int64(1 << 32 + piece | ALL << 48) for piece in range(PIECES)] + [0]
        self.hand_planes = self.tensor(hand)
        self.plane_shifts = self.tensor(
            [
                [[4 * cell + k for cell in range(CELLS)] for k in range(4)],
                [[16 * k + i for i in range(16)] for k in range(4)],
            ]
        )

    def _start(self, batch: int, generator: torch.Generator | None) -> QuartoBatch:
        empty = torch.zeros(batch, dtype=torch.long, device=self.device)
        return QuartoBatch(
            pieces=empty,
            inverted=empty.clone(),
            occupied=empty.clone(),
            available=torch.full_like(empty, ALL),
            piece=torch.full_like(empty, IN_HAND_NONE),
            **self.common(batch),
        )

    def _move(
        self, state: QuartoBatch, actions: torch.Tensor, moving: torch.Tensor
    ) -> tuple[QuartoBatch, torch.Tensor]:
        row = state.piece * self.row + torch.where(moving, actions, self.no_move)
        pieces = state.pieces | self.adds.index_select(0, row)
        inverted = state.inverted | self.inverts.index_select(0, row)
        occupied = state.occupied | self.cells.index_select(0, row)
        # Only a placement makes a line (a game that did not move may hold its winning one).
        won = self.lines(torch.stack((pieces, inverted))).amax(0) & moving
        after = state._replace(
            pieces=pieces,
            inverted=inverted,
            occupied=occupied,
            available=state.available ^ self.takes.index_select(0, row),
            piece=self.hands.index_select(0, row),
            current_player=state.current_player ^ self.passes.index_select(0, row),
            terminated=state.terminated | won | (occupied == self.all),
        )
        return after, torch.where(won, state.current_player, -1)

    def _reset(self, state: QuartoBatch, ended: torch.Tensor, generator: torch.Generator | None) -> QuartoBatch:
        names = ("pieces", "inverted", "occupied", "current_player", "terminated", "truncated", "steps")
        return state._replace(
            available=torch.where(ended, self.all, state.available),
            piece=torch.where(ended, self.none, state.piece),
            **self.reset_fields(state, ended, names),
        )

    def _choices(self, state: QuartoBatch) -> tuple[torch.Tensor, torch.Tensor]:
        """The 16-bit set of legal moves (free cells, or available pieces) and the first
        action of their kind (0, or 16 while choosing)."""
        choosing = state.piece & self.none
        return torch.where(choosing == 0, state.occupied ^ self.all, state.available), choosing

    def legal_mask(self, state: QuartoBatch) -> torch.Tensor:
        choices, choosing = self._choices(state)
        rows = torch.where(state.terminated, self.over_row, choices | choosing << 12)
        return self.legal_rows.index_select(0, rows)

    def is_legal(self, state: QuartoBatch, actions: torch.Tensor) -> torch.Tensor:
        choices, choosing = self._choices(state)
        return ((actions & self.none) == choosing) & ((choices >> (actions & 15)) & 1 == 1)

    def random_actions(self, state: QuartoBatch, generator: torch.Generator | None = None) -> torch.Tensor:
        choices, choosing = self._choices(state)
        counts = self.counts.index_select(0, choices)
        rank = (torch.rand(len(choices), generator=generator, device=self.device) * counts).long()
        return self.picks.index_select(0, choices * 16 + rank) + choosing

    def _planes(self, state: QuartoBatch, player: torch.Tensor) -> torch.Tensor:
        sets = state.occupied | state.available << 16 | self.hand_planes.index_select(0, state.piece)
        words = torch.stack((state.pieces, sets), 1)  # [B, 2]
        planes = (words[:, :, None, None] >> self.plane_shifts) & 1  # [B, 2, 4, 16]
        return planes.float().view(-1, *self.observation_shape)

    def to_scalar_states(self, state: QuartoBatch) -> list[Any]:
        states = []
        for pieces, occupied, available, piece, player, terminated in zip(
            state.pieces.tolist(),
            state.occupied.tolist(),
            state.available.tolist(),
            state.piece.tolist(),
            state.current_player.tolist(),
            state.terminated.tolist(),
            strict=True,
        ):
            attributes = tuple(
                sum(1 << cell for cell in range(CELLS) if pieces >> (4 * cell + k) & 1) for k in range(4)
            )
            outcome = ONGOING
            if terminated:  # by a line, a full board, or an illegal action (then the game stays as it was)
                if _has_quarto(attributes, occupied):
                    outcome = player  # the player who placed the last piece: the turn passes on choosing
                elif occupied == ALL:
                    outcome = DRAW
            hand = NO_PIECE if piece == IN_HAND_NONE else piece
            states.append(QuartoState(attributes, occupied, available, hand, player, outcome))
        return states

    def from_scalar_states(self, states: Sequence[Any]) -> QuartoBatch:
        boards = []
        for s in states:
            cells = [(c, sum((a >> c & 1) << k for k, a in enumerate(s.attributes))) for c in range(CELLS)]
            placed = [(c, p) for c, p in cells if s.occupied >> c & 1]
            boards.append(
                (_int64(sum(p << 4 * c for c, p in placed)), _int64(sum((15 - p) << 4 * c for c, p in placed)))
            )
        return self._start(len(states), None)._replace(
            pieces=self.tensor([board[0] for board in boards]),
            inverted=self.tensor([board[1] for board in boards]),
            occupied=self.tensor([s.occupied for s in states]),
            available=self.tensor([s.available for s in states]),
            piece=self.tensor([IN_HAND_NONE if s.piece == NO_PIECE else s.piece for s in states]),
            current_player=self.tensor([s.player for s in states]),
            terminated=self.tensor([s.outcome != ONGOING for s in states], torch.bool),
            steps=self.tensor([s.occupied.bit_count() + PIECES - s.available.bit_count() for s in states]),
        )


def _has_quarto(attributes: tuple[int, ...], occupied: int) -> bool:
    """Whether a full line's four pieces share an attribute (the scalar rules' test, over every line)."""
    return any(occupied & line == line and any(a & line in (0, line) for a in attributes) for line in LINES)
