"""Nim, batched, for every variant the scalar rules (``boardgym.games.nim``) take: any heaps,
normal or misère play, a max-take ``k``. Two representations, one chosen by size:

- ``BatchedNimTables``, where the tables fit ``TABLE_LIMIT`` (the default heaps 1, 3, 5, 7, 9
  among them, and one heap up to the largest the rules take): each game is its position's key (``long[B]``),
  the very state of the scalar rules, and every position is a row of tables read from those
  rules once (whether it is over, its heaps, its legal actions in order, both as a mask and as
  a list to draw from). A move flips the key's player bit and takes from it the action's own
  amount (``take * radix`` of its heap, the same in every position: read from the rules too). A
  step is a handful of look-ups, in tables kept small so that they stay in the cache.
- ``BatchedNimHeaps`` otherwise (large heaps, many heaps: a key may not even fit 64 bits):
  each game is its heaps (``long[B, H]``), and a move subtracts from one of them; what each
  action takes from which heap is read from the scalar rules, by playing it at the start.

``BatchedNim(game, device)`` builds the one that fits the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import torch

from boardgym.batch.core import BatchedGame
from boardgym.games.nim import Nim

TABLE_LIMIT = 1 << 21
"""The most table entries (positions x (actions + heaps)) ``BatchedNim`` tabulates (one heap of
1,000 fits): tables of that size take up to a second to read from the scalar rules and a few
MB to hold. The tables are the faster of the two where they fit."""


class NimBatch(NamedTuple):
    current_player: torch.Tensor
    terminated: torch.Tensor
    truncated: torch.Tensor
    ended: torch.Tensor
    rewards: torch.Tensor
    steps: torch.Tensor
    code: torch.Tensor
    """The position's key: the scalar rules' state."""


class NimHeapsBatch(NamedTuple):
    current_player: torch.Tensor
    terminated: torch.Tensor
    truncated: torch.Tensor
    ended: torch.Tensor
    rewards: torch.Tensor
    steps: torch.Tensor
    heaps: torch.Tensor
    """``long[B, H]``: the objects left in each heap."""


class BatchedNim(BatchedGame[Any]):
    """The batched rules of ``game`` (default: ``Nim()``): a ``BatchedNimTables`` where its
    tables fit ``TABLE_LIMIT``, a ``BatchedNimHeaps`` otherwise (see the module doc)."""

    game: Nim

    def __new__(cls, game: Nim | None = None, device: str | torch.device = "cpu") -> BatchedNim:
        if cls is BatchedNim:
            game = game or Nim()
            cls = BatchedNimTables if table_entries(game) <= TABLE_LIMIT else BatchedNimHeaps
        rules: BatchedNim = super().__new__(cls)
        return rules

    def __init__(self, game: Nim | None = None, device: str | torch.device = "cpu") -> None:
        super().__init__(game or Nim(), device)
        game = self.game
        width = max(game.heaps)
        self.columns = self.tensor(range(width)).view(1, 1, width)
        # Whoever took the last object wins (normal play) or loses (misère), as the rules say
        # of the position with every heap empty.
        self.last_mover_wins = game.returns(game.state([0] * len(game.heaps), 0))[1] > 0
        self.zero = self.tensor(0)

    def _heap_planes(self, heaps: torch.Tensor) -> torch.Tensor:
        """``float32[B, 1, H, W]``: row ``i`` holds ``heaps[:, i]`` ones from the left, as
        ``Nim.observation`` draws it (both players see the same: Nim is impartial)."""
        return (self.columns < heaps.unsqueeze(2)).float().unsqueeze(1)

    def _steps_to(self, heaps: list[tuple[int, ...]], players: list[int]) -> torch.Tensor:
        """The fewest moves that lead from the start to these heaps with these players to move
        (a scalar state does not record its moves): a move takes from one heap, at most ``T``."""
        counts = []
        for left, player in zip(heaps, players, strict=True):
            moves = sum(-(-(top - n) // self.game.max_take) for top, n in zip(self.game.heaps, left, strict=True))
            counts.append(moves + (moves - player) % 2)
        return self.tensor(counts)


class BatchedNimTables(BatchedNim):
    """Nim as table look-ups over every position's key (see the module doc)."""

    def __init__(self, game: Nim | None = None, device: str | torch.device = "cpu") -> None:
        super().__init__(game, device)
        game, actions = self.game, self.num_actions
        count = positions(game)  # the keys are 0 .. count - 1, both players to move
        # What each action takes from the key (and its player bit flipped), read at the start:
        # an action not legal there (more than its heap holds) is legal nowhere.
        start = game.initial_state()
        drops = [0] * actions
        for action in game.legal_actions(start):
            drops[action] = (start ^ 1) - game.apply(start, action)
        over, heaps, counts = [False] * count, [game.heaps_of(0)] * count, [0] * count
        moves_of: list[list[int]] = []
        legal: list[int] = []  # code * actions + action, for each legal action
        for code in range(count):
            if game.current_player(code) != code & 1:
                raise AssertionError(f"Nim's key {code} does not hold the player to move in its lowest bit")
            over[code] = game.is_terminal(code)
            heaps[code] = game.heaps_of(code)
            moves = game.legal_actions(code)
            moves_of.append(moves)
            counts[code] = len(moves)
            legal.extend(code * actions + action for action in moves)
        width = max(counts)
        picks = [0] * (count * width)
        for code, moves in enumerate(moves_of):
            picks[code * width : code * width + len(moves)] = moves
        self.drops = self.tensor(drops)
        self.over = self.tensor(over, torch.bool)
        self.heaps = self.tensor(heaps, smallest_int(max(game.heaps)))
        self.counts = self.tensor(counts, torch.float32)
        self.picks = self.tensor(picks, smallest_int(actions))  # small, to stay in the cache
        self.picks_width = width
        self.legal_actions = torch.zeros(count + 1, actions, dtype=torch.bool, device=self.device)
        self.legal_flat = self.legal_actions.view(-1)
        self.legal_flat[self.tensor(legal)] = True  # the last row: a game that is over
        self.over_row = count
        self.start_code = self.tensor(game.initial_state())

    def _start(self, batch: int, generator: torch.Generator | None) -> NimBatch:
        code = torch.full((batch,), self.game.initial_state(), dtype=torch.long, device=self.device)
        return NimBatch(code=code, **self.common(batch))

    def _move(self, state: NimBatch, actions: torch.Tensor, moving: torch.Tensor) -> tuple[NimBatch, torch.Tensor]:
        # A move takes from the key ``take * radix`` of its heap, and flips its player bit.
        code = torch.where(moving, (state.code ^ 1) - self.drops.index_select(0, actions), state.code)
        player = code & 1
        over = self.over.index_select(0, code)
        after = state._replace(code=code, current_player=player, terminated=state.terminated | over)
        # Only a move ends a game (a game over before is terminated already).
        winner = state.current_player if self.last_mover_wins else player
        return after, torch.where(over > state.terminated, winner, -1)

    def _value_problems(self, state: NimBatch) -> list[tuple[str, str, torch.Tensor]]:
        code = state.code
        inside = (code >= 0) & (code < self.over_row)
        over = inside & self.over.index_select(0, torch.where(inside, code, 0))
        return [
            ("code", f"is not a position's key (0 to {self.over_row - 1})", ~inside),
            (
                "current_player",
                "is not the player state.code holds (its lowest bit)",
                inside & (state.current_player != code & 1),
            ),
            ("terminated", "is not set, but every heap is empty", over & ~state.terminated),
            (
                "steps",
                "does not match the player to move (player 0 moves after an even count)",
                (state.steps - state.current_player) % 2 != 0,
            ),
        ]

    def _reset(self, state: NimBatch, ended: torch.Tensor, generator: torch.Generator | None) -> NimBatch:
        code = torch.where(ended, self.start_code, state.code)
        return state._replace(
            code=code,
            current_player=code & 1,
            terminated=state.terminated > ended,  # and not ended
            truncated=state.truncated > ended,
            steps=torch.where(ended, self.zero, state.steps),
        )

    def legal_mask(self, state: NimBatch) -> torch.Tensor:
        return self.legal_actions.index_select(0, torch.where(state.terminated, self.over_row, state.code))

    def is_legal(self, state: NimBatch, actions: torch.Tensor) -> torch.Tensor:
        return self.legal_flat.index_select(0, torch.add(actions, state.code, alpha=self.num_actions))

    def random_actions(self, state: NimBatch, generator: torch.Generator | None = None) -> torch.Tensor:
        counts = self.counts.index_select(0, state.code)
        rank = (torch.rand(len(counts), generator=generator, device=self.device) * counts).long()
        return self.picks.index_select(0, torch.add(rank, state.code, alpha=self.picks_width)).long()

    def _planes(self, state: NimBatch, player: torch.Tensor) -> torch.Tensor:
        return self._heap_planes(self.heaps.index_select(0, state.code))

    def _to_scalar_states(self, state: NimBatch) -> list[Any]:
        return [int(code) for code in state.code.tolist()]

    def _from_scalar_states(self, states: Sequence[Any]) -> NimBatch:
        game = self.game
        codes = [int(state) for state in states]
        players = [game.current_player(code) for code in codes]
        return self._start(len(codes), None)._replace(
            code=self.tensor(codes),
            current_player=self.tensor(players),
            terminated=self.tensor([game.is_terminal(code) for code in codes], torch.bool),
            steps=self._steps_to([game.heaps_of(code) for code in codes], players),
        )


class BatchedNimHeaps(BatchedNim):
    """Nim over each game's heaps, for the variants too large to tabulate (see the module doc)."""

    def __init__(self, game: Nim | None = None, device: str | torch.device = "cpu") -> None:
        super().__init__(game, device)
        game = self.game
        start = game.initial_state()
        tops = game.heaps_of(start)
        heap_of, take_of = [0] * self.num_actions, [max(tops) + 1] * self.num_actions  # never legal: too many
        for action in game.legal_actions(start):  # an action legal nowhere at the start is legal nowhere
            after = game.heaps_of(game.apply(start, action))
            heap = next(i for i, (top, left) in enumerate(zip(tops, after, strict=True)) if left != top)
            heap_of[action], take_of[action] = heap, tops[heap] - after[heap]
        self.heap_of, self.take_of = self.tensor(heap_of), self.tensor(take_of)
        self.start_heaps = self.tensor(tops)
        self.max_take = game.max_take

    def _start(self, batch: int, generator: torch.Generator | None) -> NimHeapsBatch:
        return NimHeapsBatch(heaps=self.start_heaps.expand(batch, -1).clone(), **self.common(batch))

    def _move(
        self, state: NimHeapsBatch, actions: torch.Tensor, moving: torch.Tensor
    ) -> tuple[NimHeapsBatch, torch.Tensor]:
        heap = self.heap_of.index_select(0, actions).unsqueeze(1)
        taken = torch.where(moving, self.take_of.index_select(0, actions), 0).unsqueeze(1)
        heaps = state.heaps.scatter_add(1, heap, -taken)
        emptied = moving & (heaps.amax(1) == 0)
        player = state.current_player
        after = state._replace(heaps=heaps, current_player=player ^ moving, terminated=state.terminated | emptied)
        winner = player if self.last_mover_wins else 1 - player
        return after, torch.where(emptied, winner, -1)

    def _value_problems(self, state: NimHeapsBatch) -> list[tuple[str, str, torch.Tensor]]:
        heaps = state.heaps
        return [
            ("heaps", "holds a heap below 0 or above its start", ((heaps < 0) | (heaps > self.start_heaps)).any(1)),
            ("terminated", "is not set, but every heap is empty", (heaps.amax(1) == 0) & ~state.terminated),
            (
                "steps",
                "does not match the player to move (player 0 moves after an even count)",
                (state.steps - state.current_player) % 2 != 0,
            ),
        ]

    def _reset(self, state: NimHeapsBatch, ended: torch.Tensor, generator: torch.Generator | None) -> NimHeapsBatch:
        return state._replace(
            heaps=torch.where(ended.unsqueeze(1), self.start_heaps, state.heaps),
            current_player=torch.where(ended, self.zero, state.current_player),
            terminated=state.terminated > ended,
            truncated=state.truncated > ended,
            steps=torch.where(ended, self.zero, state.steps),
        )

    def legal_mask(self, state: NimHeapsBatch) -> torch.Tensor:
        fits = state.heaps.index_select(1, self.heap_of) >= self.take_of
        return fits & ~state.terminated.unsqueeze(1)

    def is_legal(self, state: NimHeapsBatch, actions: torch.Tensor) -> torch.Tensor:
        left = state.heaps.gather(1, self.heap_of.index_select(0, actions).unsqueeze(1)).squeeze(1)
        return left >= self.take_of.index_select(0, actions)

    def random_actions(self, state: NimHeapsBatch, generator: torch.Generator | None = None) -> torch.Tensor:
        # The legal actions, in order, are each heap's takes of 1 .. min(left, T): draw a rank
        # among them all, find its heap by the running count, and the take within that heap.
        counts = state.heaps.clamp(max=self.max_take)
        running = counts.cumsum(1)
        batch = len(counts)
        rank = (torch.rand(batch, generator=generator, device=self.device) * running[:, -1]).long()
        heap = (running <= rank.unsqueeze(1)).sum(1).clamp(max=counts.shape[1] - 1)  # the last: none legal
        before = (running - counts).gather(1, heap.unsqueeze(1)).squeeze(1)
        return torch.add(rank - before, heap, alpha=self.max_take)

    def _planes(self, state: NimHeapsBatch, player: torch.Tensor) -> torch.Tensor:
        return self._heap_planes(state.heaps)

    def _to_scalar_states(self, state: NimHeapsBatch) -> list[Any]:
        game = self.game
        return [
            game.state(heaps, player)
            for heaps, player in zip(state.heaps.tolist(), state.current_player.tolist(), strict=True)
        ]

    def _from_scalar_states(self, states: Sequence[Any]) -> NimHeapsBatch:
        game = self.game
        heaps = [game.heaps_of(state) for state in states]
        players = [game.current_player(state) for state in states]
        return self._start(len(states), None)._replace(
            heaps=self.tensor(heaps),
            current_player=self.tensor(players),
            terminated=self.tensor([game.is_terminal(state) for state in states], torch.bool),
            steps=self._steps_to(heaps, players),
        )


def smallest_int(top: int) -> torch.dtype:
    """The smallest integer dtype that holds 0 .. ``top``."""
    return next(dtype for dtype in (torch.int8, torch.int16, torch.int32) if top <= torch.iinfo(dtype).max)


def table_entries(game: Nim) -> int:
    """The entries of ``BatchedNimTables``'s tables for ``game``: for every position, its legal
    actions (a mask, and a list to draw from) and its heaps."""
    return positions(game) * (game.num_actions + len(game.heaps))


def positions(game: Nim) -> int:
    """How many keys the scalar rules' positions take: 0 up to the largest, every heap full and
    player 1 to move."""
    return game.state(game.heaps, 1) + 1
