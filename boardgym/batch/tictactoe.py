"""Tic-Tac-Toe, batched: each game is its position's code (``long[B]``), the very state of the
scalar rules (``boardgym.games.tictactoe``), and every one of the 5,478 positions is a row of
tables read from those rules once: the position after each move, who moves, whether it is over
and how, the legal cells, both players' observation planes, a random legal cell. A step is a
handful of look-ups, whatever the batch."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any, NamedTuple

import torch

from boardgym.batch.core import BatchedGame
from boardgym.games.tictactoe import CODES, TicTacToe


class TicTacToeBatch(NamedTuple):
    current_player: torch.Tensor
    terminated: torch.Tensor
    truncated: torch.Tensor
    ended: torch.Tensor
    rewards: torch.Tensor
    steps: torch.Tensor
    code: torch.Tensor
    """The position's code: the scalar rules' state."""


class BatchedTicTacToe(BatchedGame[TicTacToeBatch]):
    truncates = False

    def __init__(self, game: TicTacToe | None = None, device: str | torch.device = "cpu") -> None:
        game = game or TicTacToe()
        super().__init__(game, device)
        actions = self.num_actions
        children = [index // actions for index in range(CODES * actions)]  # an illegal move: no change
        players, over, winners = [0] * CODES, [False] * CODES, [-1] * CODES
        legal = [[False] * actions for _ in range(CODES + 1)]  # the last row: a game that is over
        planes = [[0.0] * (2 * 9)] * (2 * CODES)
        counts, picks = [0] * CODES, [0] * (CODES * actions)
        start = game.initial_state()
        seen, queue = {start}, deque([start])
        while queue:  # every position reachable from the start, read from the scalar rules
            code = queue.popleft()
            players[code] = game.current_player(code)
            for player in (0, 1):
                planes[2 * code + player] = game.observation(code, player).ravel().tolist()
            if game.is_terminal(code):
                over[code] = True
                returns = game.returns(code)
                winners[code] = 0 if returns[0] > 0 else 1 if returns[1] > 0 else -1
                continue
            moves = game.legal_actions(code)
            counts[code] = len(moves)
            for rank, action in enumerate(moves):
                legal[code][action] = True
                picks[code * actions + rank] = action
                child = game.apply(code, action)
                children[code * actions + action] = child
                if child not in seen:
                    seen.add(child)
                    queue.append(child)
        self.children = self.tensor(children)
        self.players = self.tensor(players)
        self.over = self.tensor(over, torch.bool)
        self.winners = self.tensor(winners)
        self.legal_cells = self.tensor(legal, torch.bool)
        self.over_row = CODES
        self.planes = self.tensor(planes, torch.float32)
        self.counts = self.tensor(counts)
        self.picks = self.tensor(picks)

    def _start(self, batch: int, generator: torch.Generator | None) -> TicTacToeBatch:
        code = torch.full((batch,), self.game.initial_state(), dtype=torch.long, device=self.device)
        return TicTacToeBatch(code=code, **self.common(batch))

    def _play(
        self, state: TicTacToeBatch, actions: torch.Tensor, may: torch.Tensor
    ) -> tuple[TicTacToeBatch, torch.Tensor, torch.Tensor]:
        child = self.children.index_select(0, state.code * self.num_actions + actions)
        moving = may & (child != state.code)  # an illegal move's child is the position itself
        return (*self._to(state, child, moving), moving)

    def _move(
        self, state: TicTacToeBatch, actions: torch.Tensor, moving: torch.Tensor
    ) -> tuple[TicTacToeBatch, torch.Tensor]:
        return self._to(state, self.children.index_select(0, state.code * self.num_actions + actions), moving)

    def _to(
        self, state: TicTacToeBatch, child: torch.Tensor, moving: torch.Tensor
    ) -> tuple[TicTacToeBatch, torch.Tensor]:
        """The games where ``moving`` at ``child``; their winners."""
        code = torch.where(moving, child, state.code)
        after = state._replace(
            code=code,
            current_player=self.players.index_select(0, code),
            terminated=state.terminated | self.over.index_select(0, code),
        )
        return after, torch.where(moving, self.winners.index_select(0, code), -1)

    def _reset(self, state: TicTacToeBatch, ended: torch.Tensor, generator: torch.Generator | None) -> TicTacToeBatch:
        code = torch.where(ended, self.game.initial_state(), state.code)
        return state._replace(
            code=code,
            current_player=self.players.index_select(0, code),
            terminated=state.terminated & ~ended,
            **self.reset_fields(state, ended, ("steps",)),
        )

    def random_actions(self, state: TicTacToeBatch, generator: torch.Generator | None = None) -> torch.Tensor:
        counts = self.counts.index_select(0, state.code)
        rank = (torch.rand(len(counts), generator=generator, device=self.device) * counts).long()
        return self.picks.index_select(0, state.code * self.num_actions + rank)

    def _planes(self, state: TicTacToeBatch, player: torch.Tensor) -> torch.Tensor:
        return self.planes.index_select(0, 2 * state.code + player).view(-1, *self.observation_shape)

    def to_scalar_states(self, state: TicTacToeBatch) -> list[Any]:
        return [int(code) for code in state.code.tolist()]

    def from_scalar_states(self, states: Sequence[Any]) -> TicTacToeBatch:
        code = self.tensor([int(state) for state in states])
        terminated = self.over.index_select(0, code)
        return self._start(len(states), None)._replace(
            code=code,
            current_player=self.players.index_select(0, code),
            terminated=terminated,
            steps=self.tensor([sum(1 for cell in range(9) if int(state) // 3**cell % 3) for state in states]),
        )

    def legal_mask(self, state: TicTacToeBatch) -> torch.Tensor:
        return self.legal_cells.index_select(0, torch.where(state.terminated, self.over_row, state.code))

    def is_legal(self, state: TicTacToeBatch, actions: torch.Tensor) -> torch.Tensor:
        return self.children.index_select(0, state.code * self.num_actions + actions) != state.code
