"""Batched Quarto on scripted games: a full board with no line is a draw; four pieces sharing an
attribute (a 1 or a 0) on a row, a column or either diagonal win for whoever placed the last;
a placement on an occupied cell, or a choice while placing, is illegal; beside the scalar rules."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from boardgym.batch.quarto import BatchedQuarto
from boardgym.games.quarto import CHOOSE, DRAW, Quarto

DRAW_GAME = [16, 14, 28, 1, 22, 12, 17, 9, 23, 3, 21, 11, 26, 15, 25, 7]
DRAW_GAME += [20, 10, 24, 5, 31, 6, 18, 2, 27, 13, 29, 0, 19, 4, 30, 8]
"""32 actions (a choice, then place and choose, ..., the last placement) that fill the board
with no line of four pieces sharing an attribute."""


def play(actions: list[int]) -> tuple[Quarto, BatchedQuarto, list, list]:
    """The game played on both rules, one action a step; the batched and scalar states after each."""
    game = Quarto()
    rules = BatchedQuarto(game)
    state, scalar = rules.init(1), game.initial_state()
    states, scalars = [], []
    for action in actions:
        state = rules.step(state, torch.tensor([action]))
        scalar = game.apply(scalar, action)
        states.append(state)
        scalars.append(scalar)
        assert rules.to_scalar_states(state) == [scalar]
    return game, rules, states, scalars


def test_a_full_board_with_no_line_is_a_draw() -> None:
    game, rules, states, scalars = play(DRAW_GAME)
    assert [bool(s.terminated) for s in states] == [False] * 31 + [True]
    assert scalars[-1].outcome == DRAW
    last = states[-1]
    assert last.ended.tolist() == [True] and last.rewards.tolist() == [[0.0, 0.0]]
    assert not last.truncated.any() and last.steps.tolist() == [32]
    assert not rules.legal_mask(last).any()
    for player in (0, 1):
        np.testing.assert_array_equal(rules.observation(last, player)[0].numpy(), game.observation(scalars[-1], player))


@pytest.mark.parametrize("cells", [(0, 1, 2, 3), (1, 5, 9, 13), (0, 5, 10, 15), (3, 6, 9, 12)])
@pytest.mark.parametrize("pieces", [(0, 1, 2, 3), (15, 14, 13, 12)])
def test_four_pieces_sharing_an_attribute_win_for_who_placed_the_last(
    cells: tuple[int, ...], pieces: tuple[int, ...]
) -> None:
    # Pieces 0-3 share two 0 bits, pieces 12-15 two 1 bits. The players alternate placing, so
    # the fourth piece is placed by player 0, who chose first.
    actions = [CHOOSE + pieces[0]]
    for cell, following in zip(cells, (*pieces[1:], None), strict=True):
        actions.append(cell)
        if following is not None:
            actions.append(CHOOSE + following)
    _, _, states, scalars = play(actions)
    assert scalars[-1].outcome == 0
    assert [bool(s.terminated) for s in states] == [False] * (len(actions) - 1) + [True]
    assert states[-1].rewards.tolist() == [[1.0, -1.0]]


def test_placing_on_an_occupied_cell_or_choosing_while_placing_is_illegal() -> None:
    game = Quarto()
    rules = BatchedQuarto(game)
    # player 0 chooses p5, player 1 places it on a1 and chooses p6; player 0 must now place p6
    *_, scalars = play([CHOOSE + 5, 0, CHOOSE + 6])
    position = rules.from_scalar_states([scalars[-1]] * 4)
    after = rules.step(position, torch.tensor([0, CHOOSE + 7, 1, 40]))  # a1 taken, a choice, fine, out of range
    assert after.terminated.tolist() == [True, True, False, True]
    assert after.rewards.tolist() == [[-1.0, 0.0], [-1.0, 0.0], [0.0, 0.0], [-1.0, 0.0]]
    assert rules.to_scalar_states(after)[2] == game.apply(scalars[-1], 1)
