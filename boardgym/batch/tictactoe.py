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
from boardgym.batch.tables import random_below
from boardgym.games.tictactoe import CODES, TicTacToe


class TicTacToeBatch(NamedTuple):
    current_player: torch.Tensor
    terminated: torch.Tensor
    truncated: torch.Tensor
    ended: torch.Tensor
    rewards: torch.Tensor
    steps: torch.Tensor
    code: torch.Tensor
    """The position's code (the scalar rules' state), plus ``CODES`` where an illegal move
    ended the game in that position: every other field is a function of it."""


class BatchedTicTacToe(BatchedGame[TicTacToeBatch]):
    """Every table has a row per code and per code plus ``CODES`` (a game ended by an illegal
    move), so a step, legal or not, in range or not, is one look-up of the next code and a
    look-up per field: no test of legality, of a finished game or of an illegal move."""

    truncates = False

    def __init__(self, game: TicTacToe | None = None, device: str | torch.device = "cpu") -> None:
        game = game or TicTacToe()
        super().__init__(game, device)
        actions = self.num_actions
        rows = 2 * CODES
        # a live position's illegal move: CODES + code; a finished game's move: no change
        children = [CODES + index // actions for index in range(CODES * actions)]
        children += [index // actions for index in range(CODES * actions, rows * actions)]
        players, over, marks = [0] * rows, [True] * rows, [0] * rows
        outcomes = [0] * rows  # the row of REWARDS: no winner, 0 or 1 won, 0 or 1 moved illegally
        legal = [[False] * actions for _ in range(rows)]
        planes = [[0.0] * (2 * 9)] * (2 * CODES)
        counts, picks = [0] * rows, [0] * (rows * actions)
        start = game.initial_state()
        seen, queue = {start}, deque([start])
        while queue:  # every position reachable from the start, read from the scalar rules
            code = queue.popleft()
            player = game.current_player(code)
            players[code] = players[CODES + code] = player
            outcomes[CODES + code] = 3 + player
            marks[code] = marks[CODES + code] = sum(1 for cell in range(9) if code // 3**cell % 3)
            for seat in (0, 1):
                planes[2 * code + seat] = game.observation(code, seat).ravel().tolist()
            if game.is_terminal(code):
                returns = game.returns(code)
                outcomes[code] = 1 if returns[0] > 0 else 2 if returns[1] > 0 else 0
                children[code * actions : (code + 1) * actions] = [code] * actions
                continue
            over[code] = False
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
        self.marks = self.tensor(marks)
        self.outcomes = self.tensor(outcomes)
        self.illegal = self.tensor([CODES + code if not over[code] else code for code in range(rows)])
        self.legal_cells = self.tensor(legal, torch.bool)
        self.planes = self.tensor(planes, torch.float32)
        self.counts = self.tensor(counts, torch.int32)
        self.picks = self.tensor(picks)
        reachable = [False] * rows
        for code in seen:
            reachable[code] = True
            reachable[CODES + code] = not over[code]  # a live position's illegal move
        self.reachable = self.tensor(reachable, torch.bool)

    def _start(self, batch: int, generator: torch.Generator | None) -> TicTacToeBatch:
        return self._at(torch.full((batch,), self.game.initial_state(), dtype=torch.long, device=self.device))

    def _at(self, code: torch.Tensor) -> TicTacToeBatch:
        """Games at ``code``, as a step does not leave them (``ended`` false, ``rewards`` 0)."""
        return TicTacToeBatch(code=code, **{**self.common(len(code)), **self._fields_at(code)})

    def _fields_at(self, code: torch.Tensor) -> dict[str, torch.Tensor]:
        return {
            "current_player": self.players.index_select(0, code),
            "terminated": self.over.index_select(0, code),
            "steps": self.marks.index_select(0, code),
        }

    def _value_problems(self, state: TicTacToeBatch) -> list[tuple[str, str, torch.Tensor]]:
        code = state.code
        inside = (code >= 0) & (code < 2 * CODES)
        at = torch.where(inside, code, 0)
        fields = self._fields_at(at)
        reachable = inside & self.reachable.index_select(0, at)
        return [
            ("code", "is not a position reachable from the start", ~reachable),
            (
                "current_player",
                "is not the player to move in state.code",
                reachable & (state.current_player != fields["current_player"]),
            ),
            (
                "terminated",
                "does not say whether state.code is over",
                reachable & (state.terminated != fields["terminated"]),
            ),
            ("steps", "is not the marks of state.code", reachable & (state.steps != fields["steps"])),
        ]

    def _step(
        self, state: TicTacToeBatch, actions: torch.Tensor, in_space: torch.Tensor | None, where: torch.Tensor | None
    ) -> TicTacToeBatch:
        if in_space is not None:
            actions = actions.clamp(0, self.num_actions - 1)
        code = self.children.index_select(0, torch.add(actions, state.code, alpha=self.num_actions))
        if in_space is not None:
            code = torch.where(in_space, code, self.illegal.index_select(0, state.code))
        if where is not None:
            code = torch.where(where, code, state.code)
        fields = self._fields_at(code)
        ended = (code != state.code) & fields["terminated"]
        rewards = self.rewards_of(self.outcomes.index_select(0, code) * ended)
        return TicTacToeBatch(code=code, truncated=state.truncated, ended=ended, rewards=rewards, **fields)

    def _reset(self, state: TicTacToeBatch, ended: torch.Tensor, generator: torch.Generator | None) -> TicTacToeBatch:
        code = torch.where(ended, self.game.initial_state(), state.code)
        return state._replace(code=code, **self._fields_at(code))

    def random_actions(self, state: TicTacToeBatch, generator: torch.Generator | None = None) -> torch.Tensor:
        rank = random_below(self.counts.index_select(0, state.code), self.num_actions, generator)
        return self.picks.index_select(0, torch.add(rank, state.code, alpha=self.num_actions))

    def _planes(self, state: TicTacToeBatch, player: torch.Tensor) -> torch.Tensor:
        rows = torch.add(player, state.code % CODES, alpha=2)
        return self.planes.index_select(0, rows).view(-1, *self.observation_shape)

    def _to_scalar_states(self, state: TicTacToeBatch) -> list[Any]:
        return [code % CODES for code in state.code.tolist()]

    def _from_scalar_states(self, states: Sequence[Any]) -> TicTacToeBatch:
        return self._at(self.tensor([int(state) for state in states]))

    def legal_mask(self, state: TicTacToeBatch) -> torch.Tensor:
        return self.legal_cells.index_select(0, state.code)
