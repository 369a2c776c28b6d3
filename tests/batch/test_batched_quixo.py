"""Batched Quixo on scripted positions: every move from one position at the last ply of a
move limit (a win, a loss by the opponent's line made with one's own, a draw by the limit), and
the lost double line without a limit; beside the scalar rules' own verdict."""

from __future__ import annotations

import numpy as np
import torch

from boardgym.batch.quixo import BatchedQuixo
from boardgym.games.quixo import Quixo, QuixoState

# O to move at ply 14 of a 3x3 game (X = player 0 on a1 b1 b2 a3, O on c1 b3 c3):
#     a b c
#  1  X X O       a2:R (the blank a2 turned to O, pushed in at c2) slides row 2 left: X at a2
#  2  . X .       makes X's column a, O at c2 makes O's column c; the opponent's line wins:
#  3  X O O       X wins. Other moves win for O, lose, or draw by the limit.
POSITION = QuixoState((0b001010011, 0b110000100), 1, 13, -1)
BOTH_LINES = 9  # a2:R


def test_every_move_at_the_last_ply_ends_the_game_as_the_scalar_rules_say() -> None:
    game = Quixo(size=3, max_moves=14)
    assert game.push_names[BOTH_LINES] == "a2:R"
    rules = BatchedQuixo(game)
    moves = game.legal_actions(POSITION)
    state = rules.from_scalar_states([POSITION] * len(moves))
    assert rules.legal_mask(state).cpu().numpy().tolist() == [game.legal_mask(POSITION).astype(bool).tolist()] * len(
        moves
    )
    state = rules.step(state, torch.tensor(moves))
    expected = [game.apply(POSITION, move) for move in moves]
    assert rules.to_scalar_states(state) == expected
    assert state.terminated.tolist() == [s.outcome in (0, 1) for s in expected]
    assert state.truncated.tolist() == [game.is_truncated(s) for s in expected]
    assert state.ended.all()
    np.testing.assert_array_equal(state.rewards.numpy(), [game.returns(s) for s in expected])
    outcomes = {s.outcome for s in expected}
    assert outcomes == {0, 1, 2}  # X wins, O wins, and draws by the limit are all among them
    assert state.rewards[moves.index(BOTH_LINES)].tolist() == [1.0, -1.0]


def test_making_both_lines_loses_without_a_move_limit_too() -> None:
    game = Quixo(size=3, max_moves=None)
    rules = BatchedQuixo(game)
    state = rules.step(rules.from_scalar_states([POSITION]), torch.tensor([BOTH_LINES]))
    assert rules.to_scalar_states(state) == [game.apply(POSITION, BOTH_LINES)]
    assert state.terminated.tolist() == [True] and state.truncated.tolist() == [False]
    assert state.rewards.tolist() == [[1.0, -1.0]]


def test_the_move_limit_truncates_then_auto_reset_starts_afresh() -> None:
    game = Quixo(size=3, max_moves=14)
    rules = BatchedQuixo(game)
    draw = game.push_names.index("c1:B")
    state = rules.step(rules.from_scalar_states([POSITION]), torch.tensor([draw]), auto_reset=True)
    assert state.ended.tolist() == [True] and state.rewards.tolist() == [[0.0, 0.0]]
    assert rules.to_scalar_states(state) == [game.initial_state()]
    assert state.steps.tolist() == [0] and not state.truncated.any() and not state.terminated.any()


def test_taking_an_opponents_cube_is_illegal() -> None:
    game = Quixo(size=3, max_moves=14)
    rules = BatchedQuixo(game)
    take_a1 = game.push_names.index("a1:B")  # a1 is X's: O may not take it
    state = rules.step(rules.from_scalar_states([POSITION]), torch.tensor([take_a1]))
    assert state.terminated.tolist() == [True] and state.rewards.tolist() == [[0.0, -1.0]]
    assert rules.to_scalar_states(state) == [POSITION]  # the game stays as it was
    assert not rules.legal_mask(state).any()


def test_the_observation_from_both_seats() -> None:
    game = Quixo(size=3, max_moves=14)
    rules = BatchedQuixo(game)
    state = rules.from_scalar_states([POSITION])
    for player in (0, 1):
        np.testing.assert_array_equal(rules.observation(state, player)[0].numpy(), game.observation(POSITION, player))
