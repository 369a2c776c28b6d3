"""Quixo, batched, over the bitboards of ``boardgym.games.quixo`` (bit ``row * size + column``):
per game the cubes of the player to move and the opponent's (``int32[B]``). A move is the
scalar rules' own precomputed push, read from tables by action (the cells it keeps, the cells
that slide and by how much, the cell the cube goes in at), applied to both boards at once; the
lines are a few shifts over both boards (``boardgym.batch.bitboards``). The border cubes are
gathered into a ``4 * size - 4``-bit number by two table look-ups (the board's low and high
bits), so the legal mask and a uniformly random legal move are look-ups too."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import torch

from boardgym.batch.bitboards import BitPlanes, LineTest
from boardgym.batch.core import BatchedGame
from boardgym.games.quixo import DRAW, ONGOING, Quixo, QuixoState

BOARD = torch.int32
"""The boards' dtype: 25 cells fit, and ops over half the bytes are faster."""


class QuixoBatch(NamedTuple):
    current_player: torch.Tensor
    terminated: torch.Tensor
    truncated: torch.Tensor
    ended: torch.Tensor
    rewards: torch.Tensor
    steps: torch.Tensor
    """Plies played: the scalar state's ``moves``."""
    mover: torch.Tensor
    """The cubes showing the symbol of the player to move (``int32[B]``)."""
    other: torch.Tensor
    """The cubes showing the opponent's (``int32[B]``)."""


class BatchedQuixo(BatchedGame[QuixoBatch]):
    def __init__(self, game: Quixo | None = None, device: str | torch.device = "cpu") -> None:
        game = game or Quixo()
        super().__init__(game, device)
        self.game: Quixo = game
        n, pushes = game.size, game.pushes
        board = BOARD  # the tables' dtype too: no op mixes dtypes
        self.keeps = self.tensor([~push.span for push in pushes], board)
        self.slides = self.tensor([push.slide for push in pushes], board)
        self.ups = self.tensor([push.up for push in pushes], board)
        self.downs = self.tensor([push.down for push in pushes], board)
        self.inserts = self.tensor([push.insert for push in pushes], board)
        self.sources = self.tensor([push.source for push in pushes], board)
        self.lines = LineTest(game.lines, self.device, board)
        self.last_ply = None if game.max_moves is None else self.tensor(game.max_moves - 1)
        self.no_winner = self.tensor(-1)
        self.bit_planes = BitPlanes(self.device)

        # The border: its cells in order, a board's border cubes as one bit each (look-ups of
        # the board's low and high halves), and for each set of them (the opponent's, which
        # the mover may not take) the legal moves, their count and each in order.
        border = sorted({push.source.bit_length() - 1 for push in pushes})
        self.split = (n * n + 1) // 2
        self.low_mask = self.tensor((1 << self.split) - 1, board)
        self.split_at = self.tensor(self.split, board)
        self.low_border = self._gather_table(border, 0, self.split)
        self.high_border = self._gather_table(border, self.split, n * n - self.split)
        rank_of = {cell: rank for rank, cell in enumerate(border)}
        source_rank = self.tensor([rank_of[push.source.bit_length() - 1] for push in pushes])
        taken = self.tensor(range(1 << len(border))).unsqueeze(1)
        legal = (taken >> source_rank) & 1 == 0  # [sets, A]
        self.counts = legal.sum(1).float()
        self.picks = torch.sort((~legal).to(torch.uint8), dim=1, stable=True).indices.flatten()
        self.over_row = len(legal)
        self.legal_rows = torch.cat((legal, torch.zeros_like(legal[:1])))

    def _gather_table(self, border: list[int], first: int, width: int) -> torch.Tensor:
        """For every value of the board's bits ``first..first + width``: its border cells as bits
        (the ``k``-th border cell bit ``k``)."""
        values = self.tensor(range(1 << width)).unsqueeze(1)
        cells = [cell for cell in border if first <= cell < first + width]
        if not cells:
            return torch.zeros(1 << width, dtype=torch.long, device=self.device)
        shifts = self.tensor([cell - first for cell in cells])
        weights = self.tensor([1 << border.index(cell) for cell in cells])
        return (((values >> shifts) & 1) * weights).sum(1)

    def _start(self, batch: int, generator: torch.Generator | None) -> QuixoBatch:
        empty = torch.zeros(batch, dtype=BOARD, device=self.device)
        return QuixoBatch(mover=empty, other=empty.clone(), **self.common(batch))

    def _move(self, state: QuixoBatch, actions: torch.Tensor, moving: torch.Tensor) -> tuple[QuixoBatch, torch.Tensor]:
        # Every game plays its action (a game that does not move is put back below).
        boards = torch.stack((state.mover, state.other))  # [2, B]
        slide = boards & self.slides.index_select(0, actions)
        boards = (boards & self.keeps.index_select(0, actions)) | (
            slide << self.ups.index_select(0, actions) >> self.downs.index_select(0, actions)
        )
        boards[0] |= self.inserts.index_select(0, actions)
        lines = self.lines(boards) & moving  # [2, B]: the mover's, the opponent's
        # A move that makes the opponent's line loses, even if it also makes the mover's.
        player = state.current_player
        winner = torch.where(lines[1], player ^ 1, torch.where(lines[0], player, self.no_winner))
        won = lines[0] | lines[1]
        truncated = state.truncated
        if self.last_ply is not None:  # the move limit ends a game that nobody won
            truncated = truncated | ((moving & (state.steps >= self.last_ply)) > won)  # a > b: a & ~b
        after = state._replace(
            mover=torch.where(moving, boards[1], state.mover),
            other=torch.where(moving, boards[0], state.other),
            current_player=player ^ moving,
            terminated=state.terminated | won,
            truncated=truncated,
        )
        return after, winner

    def _value_problems(self, state: QuixoBatch) -> list[tuple[str, str, torch.Tensor]]:
        cells = self.game.size**2
        off_board = ~((1 << cells) - 1)
        lines = self.lines(torch.stack((state.mover, state.other))).any(0)
        problems = [
            ("mover", "has bits outside the board", (state.mover & off_board) != 0),
            ("other", "has bits outside the board", (state.other & off_board) != 0),
            ("mover", "and state.other share a cube", (state.mover & state.other) != 0),
            ("terminated", "is not set, but a line is made", lines & ~state.terminated & ~state.truncated),
        ]
        if self.last_ply is not None:
            live = ~(state.terminated | state.truncated)
            past = (state.steps > self.last_ply + 1) | (live & (state.steps > self.last_ply))
            problems.append(("steps", "is past the move limit", past))
        return problems

    def _reset(self, state: QuixoBatch, ended: torch.Tensor, generator: torch.Generator | None) -> QuixoBatch:
        names = ("mover", "other", "current_player", "steps", "terminated", "truncated")
        return state._replace(**self.reset_fields(state, ended, names))

    def _border(self, board: torch.Tensor) -> torch.Tensor:
        """The border cubes of ``board`` as bits (the ``k``-th border cell bit ``k``)."""
        low = self.low_border.index_select(0, board & self.low_mask)
        return low | self.high_border.index_select(0, board >> self.split_at)

    def legal_mask(self, state: QuixoBatch) -> torch.Tensor:
        rows = torch.where(state.terminated | state.truncated, self.over_row, self._border(state.other))
        return self.legal_rows.index_select(0, rows)

    def is_legal(self, state: QuixoBatch, actions: torch.Tensor) -> torch.Tensor:
        return (state.other & self.sources.index_select(0, actions)) == 0  # step asks only of live games

    def random_actions(self, state: QuixoBatch, generator: torch.Generator | None = None) -> torch.Tensor:
        taken = self._border(state.other)
        counts = self.counts.index_select(0, taken)
        rank = (torch.rand(len(taken), generator=generator, device=self.device) * counts).long()
        return self.picks.index_select(0, taken * self.num_actions + rank)

    def _planes(self, state: QuixoBatch, player: torch.Tensor) -> torch.Tensor:
        to_move = player == state.current_player
        own = torch.where(to_move, state.mover, state.other)
        opponent = torch.where(to_move, state.other, state.mover)
        n = self.game.size
        return self.bit_planes(torch.stack((own, opponent), 1), n * n).reshape(-1, 2, n, n)

    def _to_scalar_states(self, state: QuixoBatch) -> list[Any]:
        game = self.game
        states = []
        for mover, other, player, moves, terminated, truncated in zip(
            state.mover.tolist(),
            state.other.tolist(),
            state.current_player.tolist(),
            state.steps.tolist(),
            state.terminated.tolist(),
            state.truncated.tolist(),
            strict=True,
        ):
            stones = (mover, other) if player == 0 else (other, mover)
            outcome = ONGOING
            if truncated:
                outcome = DRAW
            elif terminated:  # by a line (or by an illegal action: then no line, and the game stays as it was)
                # The last mover was the opponent of ``player``: the opponent's line beats their own.
                if _has_line(game, stones[player]):
                    outcome = player
                elif _has_line(game, stones[1 - player]):
                    outcome = 1 - player
            states.append(QuixoState(stones, player, moves, outcome))
        return states

    def _from_scalar_states(self, states: Sequence[Any]) -> QuixoBatch:
        return self._start(len(states), None)._replace(
            mover=self.tensor([s.stones[s.player] for s in states], BOARD),
            other=self.tensor([s.stones[1 - s.player] for s in states], BOARD),
            current_player=self.tensor([s.player for s in states]),
            terminated=self.tensor([s.outcome in (0, 1) for s in states], torch.bool),
            truncated=self.tensor([s.outcome == DRAW for s in states], torch.bool),
            steps=self.tensor([s.moves for s in states]),
        )


def _has_line(game: Quixo, stones: int) -> bool:
    return any(stones & line == line for line in game.lines)
