"""Rastros's batched rules at scripted positions: a goal reached wins for its owner whoever moved
there (even where its owner is left without a move), a player left without a move loses, the
board's edges and its last cell (bit 63, the sign of a ``long``), and the planes from both seats."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from boardgym.batch import batched
from boardgym.batch.rastros import BatchedRastros
from boardgym.games.rastros import DIRECTIONS, ONGOING, Rastros, RastrosState, cell_index


def position(white: tuple[int, int], black: list[tuple[int, int]], player: int = 0) -> RastrosState:
    return RastrosState(cell_index(*white), sum(1 << cell_index(*cell) for cell in black), player, ONGOING)


def play(state: RastrosState, direction: str) -> tuple[BatchedRastros, Any, RastrosState]:
    """One move on the batched rules and on the scalar rules, from ``state``."""
    rules = BatchedRastros()
    action = DIRECTIONS.index(direction)
    after = rules.step(rules.from_scalar_states([state]), torch.tensor([action]))
    return rules, after, Rastros().apply(state, action)


def test_reaching_a_goal_wins_for_its_owner_whoever_moved_there() -> None:
    rules, after, scalar = play(position((2, 7), []), "ne")  # S steps onto N's goal (1,8)
    assert after.rewards.tolist() == [[-1.0, 1.0]] and after.terminated.all()
    assert rules.to_scalar_states(after) == [scalar] and scalar.outcome == 1


def test_a_player_left_without_a_move_loses() -> None:
    rules, after, scalar = play(position((1, 2), [(2, 1), (2, 2)]), "w")  # into the corner (1,1)
    assert after.rewards.tolist() == [[1.0, -1.0]] and after.terminated.all()
    assert rules.to_scalar_states(after) == [scalar] and scalar.outcome == 0
    assert not rules.legal_mask(after).any()


def test_a_goal_counts_before_the_stuck_player() -> None:
    # N steps onto S's goal (8,1), whose neighbours are all black then: S wins all the same.
    rules, after, scalar = play(position((7, 2), [(7, 1), (8, 2)], player=1), "sw")
    assert after.rewards.tolist() == [[1.0, -1.0]]
    assert rules.to_scalar_states(after) == [scalar] and scalar.outcome == 0


def test_the_edges_and_the_last_cell() -> None:
    game = Rastros()
    rules = batched("rastros")
    states = [position((1, 1), []), position((7, 7), [(8, 8), (6, 6)], player=1), position((8, 5), [(8, 4)])]
    batch = rules.from_scalar_states(states)
    assert batch.black[1] < 0  # bit 63 is the sign
    assert rules.to_scalar_states(batch) == states
    for i, state in enumerate(states):
        assert rules.legal_mask(batch)[i].tolist() == game.legal_mask(state).tolist()
    assert rules.legal_mask(batch)[0].tolist() == [False, False, True, True, True, False, False, False]
    # a step along each edge, and away from the black last cell: the games go on
    after = rules.step(batch, torch.tensor([2, 0, 2]))  # E from (1,1), N from (7,7), E from (8,5)
    assert not after.terminated.any()
    assert rules.to_scalar_states(after) == [game.apply(s, a) for s, a in zip(states, [2, 0, 2], strict=True)]


def test_the_planes_from_both_seats() -> None:
    game = Rastros()
    rules = batched("rastros")
    state = position((7, 7), [(8, 8), (4, 5)], player=1)
    batch = rules.from_scalar_states([state])
    for player in (0, 1):
        planes = rules.observation(batch, player)[0].numpy()
        np.testing.assert_array_equal(planes, game.observation(state, player))
    assert rules.observation(batch, 0)[0, 1, 7, 7] == 1  # (8,8) is black
    assert (rules.observation(batch, 0)[0, 2] == rules.observation(batch, 1)[0, 3]).all()
