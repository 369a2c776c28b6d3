"""Quarto, batched. Each game keeps the scalar rules' four attribute bitboards side by side in one
64-bit word (attribute ``k`` of the piece on cell ``c`` at bit ``16k + c``), and beside it the
same for the attributes that are 0 (so an empty cell is 0 in both); the cells and pieces taken
(bit ``c``: cell ``c`` occupied; bit ``16 + p``: piece ``p`` placed or in hand: bit ``a`` is
what action ``a`` takes); and the piece in hand (16 while the player to move chooses). Four
pieces share an attribute where a line is full in one of the eight boards, so Quarto's lines
are a few shifts over the two words (``boardgym.batch.bitboards``), over the scalar rules' own
``LINES``.

A move is one row of tables indexed by (piece in hand, action): what it adds to each word and
takes, the piece in hand after it, whether the turn passes. The legal moves are the free cells
(while placing) or the available pieces (while choosing), a 16-bit set, so the legal mask and
a uniformly random legal move are table look-ups."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import torch

from boardgym.batch.bitboards import BitPlanes, LineTest
from boardgym.batch.core import BatchedGame
from boardgym.games.quarto import (
    ALL,
    ATTRIBUTES,
    CELLS,
    CHOOSE,
    DRAW,
    LINES,
    NO_PIECE,
    ONGOING,
    PIECES,
    Quarto,
    QuartoState,
)

IN_HAND_NONE = PIECES
"""The ``piece`` field while the player to move chooses (the scalar rules' ``NO_PIECE``); ``piece
& 16`` is then the first action of the kind to play: 0 (cells) or 16 (pieces)."""
ROW = CHOOSE + PIECES + 1
"""A row of the move tables per piece in hand: its 32 actions, then "no move"."""
LANES = tuple(16 * k for k in range(ATTRIBUTES))
"""Where each attribute's board starts in a word."""


def _int64(value: int) -> int:
    """A 64-bit pattern as the signed value torch keeps."""
    return value - (1 << 64) if value >= 1 << 63 else value


def _spread(cell: int, bits: int) -> int:
    """Cell ``cell`` set in the board of every attribute ``k`` whose bit is set in ``bits``."""
    return _int64(sum(1 << lane + cell for k, lane in enumerate(LANES) if bits >> k & 1))


class QuartoBatch(NamedTuple):
    current_player: torch.Tensor
    terminated: torch.Tensor
    truncated: torch.Tensor
    ended: torch.Tensor
    rewards: torch.Tensor
    steps: torch.Tensor
    attributes: torch.Tensor
    """The scalar state's ``attributes``, attribute ``k`` in bits ``16k..16k + 15``."""
    zeros: torch.Tensor
    """The same for the attributes that are 0: bit ``16k + c``, the piece on ``c`` has bit ``k`` 0."""
    taken: torch.Tensor
    """Bit ``c``: cell ``c`` is occupied; bit ``16 + p``: piece ``p`` is no longer available."""
    piece: torch.Tensor
    """The piece to place, or ``IN_HAND_NONE`` (16) while the player to move chooses."""


class BatchedQuarto(BatchedGame[QuartoBatch]):
    def __init__(self, game: Quarto | None = None, device: str | torch.device = "cpu") -> None:
        super().__init__(game or Quarto(), device)
        # The move tables: row ``ROW * piece + action`` (piece 16: none in hand; action 32: no move).
        ones, zeros, takes, hands, passes = [], [], [], [], []
        for piece in range(PIECES + 1):
            for action in range(ROW):
                placing = piece < PIECES and action < CELLS
                choosing = piece == IN_HAND_NONE and CHOOSE <= action < CHOOSE + PIECES
                ones.append(_spread(action, piece) if placing else 0)
                zeros.append(_spread(action, 15 - piece) if placing else 0)
                takes.append(1 << action if placing or choosing else 0)  # 0: not a move of this phase
                hands.append(IN_HAND_NONE if placing else action - CHOOSE if choosing else piece)
                passes.append(int(choosing))
        self.adds_ones, self.adds_zeros, self.takes = self.tensor(ones), self.tensor(zeros), self.tensor(takes)
        self.hands, self.passes = self.tensor(hands), self.tensor(passes)
        self.no_move = self.tensor(CHOOSE + PIECES)
        self.row = self.tensor(ROW)
        self.all = self.tensor(ALL)
        self.none = self.tensor(IN_HAND_NONE)
        self.no_winner, self.zero = self.tensor(-1), self.tensor(0)
        self.lines = LineTest(LINES, self.device, offsets=LANES)
        # The legal moves: a 16-bit set of cells or pieces, and bit 16 where they are pieces.
        members = (self.tensor(range(1 << 16)).unsqueeze(1) >> self.tensor(range(16))) & 1 == 1  # [sets, 16]
        self.counts = members.sum(1).float()
        self.picks = torch.sort((~members).to(torch.uint8), dim=1, stable=True).indices.flatten()  # members first
        none = torch.zeros_like(members)
        legal = torch.cat((torch.cat((members, none), 1), torch.cat((none, members), 1)))  # [2 * sets, 32]
        self.over_row = len(legal)
        self.legal_rows = torch.cat((legal, torch.zeros_like(legal[:1])))
        # The observation: planes 0-3 are the attributes word; planes 4-7 a word of four 16-bit
        # sets: occupied cells, available pieces, the piece in hand, all ones while placing.
        self.available_flip = self.tensor(ALL << 16)
        self.hand_planes = self.tensor([_int64(1 << 32 + piece | ALL << 48) for piece in range(PIECES)] + [0])
        self.bit_planes = BitPlanes(self.device)

    def _start(self, batch: int, generator: torch.Generator | None) -> QuartoBatch:
        empty = torch.zeros(batch, dtype=torch.long, device=self.device)
        return QuartoBatch(
            attributes=empty,
            zeros=empty.clone(),
            taken=empty.clone(),
            piece=torch.full_like(empty, IN_HAND_NONE),
            **self.common(batch),
        )

    def _move(
        self, state: QuartoBatch, actions: torch.Tensor, moving: torch.Tensor
    ) -> tuple[QuartoBatch, torch.Tensor]:
        row = state.piece * self.row + torch.where(moving, actions, self.no_move)
        attributes = state.attributes | self.adds_ones.index_select(0, row)
        zeros = state.zeros | self.adds_zeros.index_select(0, row)
        taken = state.taken | self.takes.index_select(0, row)
        # Only a placement makes a line (a game that did not move may hold its winning one).
        won = self.lines(torch.stack((attributes, zeros))).amax(0) & moving
        after = state._replace(
            attributes=attributes,
            zeros=zeros,
            taken=taken,
            piece=self.hands.index_select(0, row),
            current_player=state.current_player ^ self.passes.index_select(0, row),
            terminated=state.terminated | won | ((taken & self.all) == self.all),
        )
        return after, torch.where(won, state.current_player, self.no_winner)

    def _value_problems(self, state: QuartoBatch) -> list[tuple[str, str, torch.Tensor]]:
        taken, piece = state.taken, state.piece
        occupied = taken & self.all
        spread = occupied | occupied << 16 | occupied << 32 | occupied << 48
        cells = torch.arange(CELLS, device=self.device)
        # the piece on each cell, read from its four attribute bits
        bits = [((state.attributes.unsqueeze(1) >> (lane + cells)) & 1) << k for k, lane in enumerate(LANES)]
        on = torch.stack(bits).sum(0)
        filled = ((occupied.unsqueeze(1) >> cells) & 1) == 1
        copies = ((on.unsqueeze(2) == cells) & filled.unsqueeze(2)).sum(1)  # [B, piece]: on the board
        placed = (copies.clamp(max=1) << cells).sum(1)
        gone = (taken >> 16) & self.all  # placed, or in hand
        cells_taken = bits_to_count(occupied)
        pieces_gone = bits_to_count(gone)
        choosing = piece == IN_HAND_NONE
        hand = torch.where(choosing, 0, 1 << piece.clamp(0, PIECES - 1))
        return [
            ("taken", "has bits past the 16 cells and 16 pieces", (taken >> 32) != 0),
            ("piece", "is not a piece (0 to 15) or 16 (none in hand)", (piece < 0) | (piece > IN_HAND_NONE)),
            ("attributes", "has bits on empty cells", (state.attributes & ~spread) != 0),
            (
                "zeros",
                "is not the attributes' complement on the occupied cells",
                (state.zeros != spread & ~state.attributes),
            ),
            ("attributes", "place one piece twice", (copies > 1).any(1)),
            ("taken", "does not mark the pieces on the board and in hand as gone", gone != placed | hand),
            (
                "piece",
                "is in hand, but the player to move chooses one (or the other way round)",
                choosing != (pieces_gone == cells_taken),
            ),
            ("steps", "is not the cells and pieces taken", state.steps != cells_taken + pieces_gone),
            (
                "terminated",
                "is not set, but four in a line share an attribute, or the board is full",
                ~state.terminated
                & (self.lines(torch.stack((state.attributes, state.zeros))).amax(0) | (occupied == self.all)),
            ),
        ]

    def _reset(self, state: QuartoBatch, ended: torch.Tensor, generator: torch.Generator | None) -> QuartoBatch:
        zero = self.zero
        return state._replace(  # ``a > b`` is ``a & ~b`` for bools, in one op
            attributes=torch.where(ended, zero, state.attributes),
            zeros=torch.where(ended, zero, state.zeros),
            taken=torch.where(ended, zero, state.taken),
            piece=torch.where(ended, self.none, state.piece),
            current_player=torch.where(ended, zero, state.current_player),
            steps=torch.where(ended, zero, state.steps),
            terminated=state.terminated > ended,
            truncated=state.truncated > ended,
        )

    def _choices(self, state: QuartoBatch) -> tuple[torch.Tensor, torch.Tensor]:
        """The 16-bit set of legal moves (free cells, or available pieces) and the first action
        of their kind (0, or 16 while choosing)."""
        first = state.piece & self.none
        return (~state.taken >> first) & self.all, first

    def legal_mask(self, state: QuartoBatch) -> torch.Tensor:
        choices, first = self._choices(state)
        rows = torch.where(state.terminated | state.truncated, self.over_row, choices | first << 12)
        return self.legal_rows.index_select(0, rows)

    def is_legal(self, state: QuartoBatch, actions: torch.Tensor) -> torch.Tensor:
        # ``takes`` is 0 for an action of the other phase, else the bit the action takes.
        return (self.takes.index_select(0, state.piece * self.row + actions) & ~state.taken) != 0

    def random_actions(self, state: QuartoBatch, generator: torch.Generator | None = None) -> torch.Tensor:
        choices, first = self._choices(state)
        counts = self.counts.index_select(0, choices)
        rank = (torch.rand(len(choices), generator=generator, device=self.device) * counts).long()
        return self.picks.index_select(0, choices * 16 + rank) + first

    def _planes(self, state: QuartoBatch, player: torch.Tensor) -> torch.Tensor:
        sets = (state.taken ^ self.available_flip) | self.hand_planes.index_select(0, state.piece)
        planes = self.bit_planes(torch.stack((state.attributes, sets), 1), 64)  # [B, 2, 64]
        return planes.view(-1, *self.observation_shape)

    def _to_scalar_states(self, state: QuartoBatch) -> list[Any]:
        states = []
        for words, taken, piece, player, terminated in zip(
            state.attributes.tolist(),
            state.taken.tolist(),
            state.piece.tolist(),
            state.current_player.tolist(),
            state.terminated.tolist(),
            strict=True,
        ):
            attributes = tuple(words >> lane & ALL for lane in LANES)
            occupied, available = taken & ALL, ~taken >> 16 & ALL
            outcome = ONGOING
            if terminated:  # by a line, a full board, or an illegal action (then the game stays as it was)
                if _has_quarto(attributes, occupied):
                    outcome = player  # who placed the last piece: the turn passes on choosing
                elif occupied == ALL:
                    outcome = DRAW
            hand = NO_PIECE if piece == IN_HAND_NONE else piece
            states.append(QuartoState(attributes, occupied, available, hand, player, outcome))
        return states

    def _from_scalar_states(self, states: Sequence[Any]) -> QuartoBatch:
        return self._start(len(states), None)._replace(
            attributes=self.tensor(
                [_int64(sum(a << lane for a, lane in zip(s.attributes, LANES, strict=True))) for s in states]
            ),
            zeros=self.tensor(
                [
                    _int64(sum((s.occupied & ~a) << lane for a, lane in zip(s.attributes, LANES, strict=True)))
                    for s in states
                ]
            ),
            taken=self.tensor([s.occupied | (ALL ^ s.available) << 16 for s in states]),
            piece=self.tensor([IN_HAND_NONE if s.piece == NO_PIECE else s.piece for s in states]),
            current_player=self.tensor([s.player for s in states]),
            terminated=self.tensor([s.outcome != ONGOING for s in states], torch.bool),
            steps=self.tensor([s.occupied.bit_count() + (ALL ^ s.available).bit_count() for s in states]),
        )


def bits_to_count(words: torch.Tensor) -> torch.Tensor:
    """The set bits of each 16-bit ``words``."""
    return ((words.unsqueeze(1) >> torch.arange(16, device=words.device)) & 1).sum(1)


def _has_quarto(attributes: tuple[int, ...], occupied: int) -> bool:
    """Whether a full line's four pieces share an attribute (the scalar rules' test, over every line)."""
    return any(occupied & line == line and any(a & line in (0, line) for a in attributes) for line in LINES)
