"""Rastros, batched, over the scalar rules' board (``boardgym.games.rastros``): per game the
white stone's cell and the black cells as a 64-bit board (``long[B]``, bit ``8 * (row - 1) +
(col - 1)``, the scalar state's own), and the directions the white stone can step to, as 8 bits
(``exits``). A move is a few look-ups in tables read once from the scalar rules (each cell's
neighbour in each direction, the goals): the target cell, its cell turned black behind the stone,
and the new exits, gathered from the target's free neighbours by one shift per direction. The
exits make the legal mask, a legality test and a random legal move table look-ups, and tell a
stuck player, who loses."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import torch

from boardgym.batch.core import BatchedGame
from boardgym.batch.tables import bits_to_mask, pick_tables
from boardgym.games.rastros import GOALS, ONGOING, Rastros, RastrosState

CELLS = 64
DIRECTIONS = 8
STAY = DIRECTIONS
"""A column after the 8 directions in the move tables: the stone stays (a game that does not move)."""


def signed(bits: int) -> int:
    """A 64-bit board as torch's ``long`` holds it (bit 63 is the sign)."""
    return bits - (1 << 64) if bits >> 63 else bits


class RastrosBatch(NamedTuple):
    current_player: torch.Tensor
    terminated: torch.Tensor
    truncated: torch.Tensor
    ended: torch.Tensor
    rewards: torch.Tensor
    steps: torch.Tensor
    white: torch.Tensor
    """The white stone's cell."""
    black: torch.Tensor
    """The black cells: bit ``c`` for cell ``c`` (bit 63 is the sign of the ``long``)."""
    exits: torch.Tensor
    """The directions the white stone can step to: bit ``d`` for direction ``d``."""


class BatchedRastros(BatchedGame[RastrosBatch]):
    game: Rastros

    def __init__(self, game: Rastros | None = None, device: str | torch.device = "cpu") -> None:
        super().__init__(game or Rastros(), device)
        game = self.game
        # From the scalar rules: the stone's step from every cell in every direction (from an
        # empty board), the cell it lands on and who wins there.
        targets = [[-1] * DIRECTIONS for _ in range(CELLS)]
        goal_winners = [-1] * CELLS
        for cell in range(CELLS):
            alone = RastrosState(cell, 0, 0, ONGOING)
            for direction in game.legal_actions(alone):
                child = game.apply(alone, direction)
                targets[cell][direction] = child.white
                if child.outcome != ONGOING:  # on an empty board only a goal ends the game
                    goal_winners[child.white] = child.outcome
        # Indexed by 9 * cell + direction, the last column (STAY) for a game that does not move.
        steps = [[*row, cell] for cell, row in enumerate(targets)]
        self.targets = self.tensor([target if target >= 0 else cell for row in steps for target in row])
        self.blackened = self.tensor(
            [signed(1 << cell) if column < STAY else 0 for cell in range(CELLS) for column in range(STAY + 1)]
        )
        self.neighbours = self.tensor([signed(sum(1 << t for t in row if t >= 0)) for row in targets])
        # the neighbour shifted to bit 0 for each direction and cell ([8, 64]); a missing one
        # reads the cell itself, never among its free neighbours
        self.neighbour_shifts = self.tensor(
            [[targets[cell][d] if targets[cell][d] >= 0 else cell for cell in range(CELLS)] for d in range(DIRECTIONS)]
        )
        self.direction_bits = self.tensor([1 << d for d in range(DIRECTIONS)]).view(DIRECTIONS, 1)
        self.goal_winners = self.tensor(goal_winners)
        self.cell_bits = self.tensor([signed(1 << cell) for cell in range(CELLS)])
        counts, picks = pick_tables(DIRECTIONS)
        self.exit_counts, self.exit_picks = self.tensor(counts, torch.float32), self.tensor(picks)
        self.open_directions = bits_to_mask(self.tensor(range(1 << DIRECTIONS)), DIRECTIONS)
        self.open_flat = self.open_directions.view(-1)
        # The observation: the bit each square of a plane shows, read from the scalar rules'
        # planes of the stone alone on each cell.
        squares = [0] * CELLS
        for cell in range(CELLS):
            plane = game.observation(RastrosState(cell, 0, 0, ONGOING), 0)[0].ravel()
            squares[int(plane.argmax())] = cell
        self.square_bits = self.tensor(squares).view(1, 1, CELLS)
        self.goal_bits = self.tensor([signed(1 << goal) for goal in GOALS])
        start = game.initial_state()
        self.start_white = self.tensor(start.white)
        self.start_exits = self._exits(self.start_white.view(1), self.tensor([signed(start.black)]))[0]
        self.zero = self.tensor(0)

    def _exits(self, white: torch.Tensor, black: torch.Tensor) -> torch.Tensor:
        """The directions (8 bits) in which the stone on ``white`` has a free neighbour."""
        free = self.neighbours.index_select(0, white) & ~black
        shifted = free >> self.neighbour_shifts.index_select(1, white)  # [8, B]: each neighbour at bit 0
        return ((shifted & 1) * self.direction_bits).sum(0)

    def _start(self, batch: int, generator: torch.Generator | None) -> RastrosBatch:
        return RastrosBatch(
            white=self.start_white.expand(batch).clone(),
            black=torch.zeros(batch, dtype=torch.long, device=self.device),
            exits=self.start_exits.expand(batch).clone(),
            **self.common(batch),
        )

    def _move(
        self, state: RastrosBatch, actions: torch.Tensor, moving: torch.Tensor
    ) -> tuple[RastrosBatch, torch.Tensor]:
        index = torch.add(torch.where(moving, actions, STAY), state.white, alpha=STAY + 1)
        white = self.targets.index_select(0, index)
        black = state.black | self.blackened.index_select(0, index)
        exits = self._exits(white, black)
        player = state.current_player
        goal = self.goal_winners.index_select(0, white)
        stuck = torch.where(exits == 0, player, -1)  # the player to move next has no move: the mover wins
        winner = torch.where(moving, torch.where(goal >= 0, goal, stuck), -1)
        after = state._replace(
            white=white,
            black=black,
            exits=exits,
            current_player=player ^ moving,
            terminated=state.terminated | (winner >= 0),
        )
        return after, winner

    def _value_problems(self, state: RastrosBatch) -> list[tuple[str, str, torch.Tensor]]:
        white = state.white
        inside = (white >= 0) & (white < CELLS)
        at = torch.where(inside, white, 0)
        black = state.black
        blacks = bits_to_mask(black, CELLS).sum(1)
        goal = self.goal_winners.index_select(0, at) >= 0
        exits = self._exits(at, black)
        return [
            ("white", "is not a cell (0 to 63)", ~inside),
            ("black", "holds the white stone's cell", inside & ((black & self.cell_bits.index_select(0, at)) != 0)),
            ("exits", "are not the white stone's free neighbours", inside & (state.exits != exits)),
            ("steps", "is not the count of black cells", state.steps != blacks),
            (
                "terminated",
                "is not set, but the stone is on a goal or stuck",
                inside & (goal | (exits == 0)) & ~state.terminated,
            ),
        ]

    def _reset(self, state: RastrosBatch, ended: torch.Tensor, generator: torch.Generator | None) -> RastrosBatch:
        return state._replace(
            white=torch.where(ended, self.start_white, state.white),
            exits=torch.where(ended, self.start_exits, state.exits),
            **self.reset_fields(state, ended, ("black", "current_player", "terminated", "truncated", "steps")),
        )

    def legal_mask(self, state: RastrosBatch) -> torch.Tensor:
        return self.open_directions.index_select(0, torch.where(state.terminated, self.zero, state.exits))

    def is_legal(self, state: RastrosBatch, actions: torch.Tensor) -> torch.Tensor:
        return self.open_flat.index_select(0, torch.add(actions, state.exits, alpha=DIRECTIONS))

    def random_actions(self, state: RastrosBatch, generator: torch.Generator | None = None) -> torch.Tensor:
        counts = self.exit_counts.index_select(0, state.exits)
        rank = (torch.rand(len(counts), generator=generator, device=self.device) * counts).long()
        return self.exit_picks.index_select(0, torch.add(rank, state.exits, alpha=DIRECTIONS))

    def _planes(self, state: RastrosBatch, player: torch.Tensor) -> torch.Tensor:
        boards = torch.stack(
            (
                self.cell_bits.index_select(0, state.white),
                state.black,
                self.goal_bits.index_select(0, player),
                self.goal_bits.index_select(0, 1 - player),
            ),
            1,
        )  # [B, 4]
        return ((boards.unsqueeze(2) >> self.square_bits) & 1).float().view(-1, *self.observation_shape)

    def _to_scalar_states(self, state: RastrosBatch) -> list[Any]:
        states = []
        for white, black, exits, player in zip(
            state.white.tolist(), state.black.tolist(), state.exits.tolist(), state.current_player.tolist(), strict=True
        ):
            # The outcome is the position's: a goal reached, or the player to move stuck (a game
            # ended by an illegal action keeps its position, still going in the scalar rules).
            outcome = GOALS.index(white) if white in GOALS else 1 - player if exits == 0 else ONGOING
            states.append(RastrosState(white, black & ((1 << 64) - 1), player, outcome))
        return states

    def _from_scalar_states(self, states: Sequence[Any]) -> RastrosBatch:
        white = self.tensor([state.white for state in states])
        black = self.tensor([signed(state.black) for state in states])
        return self._start(len(states), None)._replace(
            white=white,
            black=black,
            exits=self._exits(white, black),
            current_player=self.tensor([state.player for state in states]),
            terminated=self.tensor([state.outcome != ONGOING for state in states], torch.bool),
            steps=self.tensor([state.black.bit_count() for state in states]),
        )
