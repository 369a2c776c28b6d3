"""The replay buffer: ring overwrite, sampling, saving, and symmetry augmentation."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from boardgym import make_game
from boardgym.games.tictactoe import TicTacToe
from boardgym.train.alphazero.buffer import ReplayBuffer, augment
from boardgym.types import BoardgymError


class MirroredTicTacToe(TicTacToe):
    """Tic-Tac-Toe with its left-right mirror as the one symmetry (cell c <-> its mirror)."""

    MIRROR = np.array([2, 1, 0, 5, 4, 3, 8, 7, 6])

    def symmetries(self, state, policy):
        planes = self.observation(state, self.current_player(state))
        return [(planes, policy), (planes[:, :, ::-1].copy(), policy[self.MIRROR])]


def _rows(n: int, start: int = 0) -> tuple[np.ndarray, ...]:
    values = np.arange(start, start + n, dtype=np.float32)
    planes = np.broadcast_to(values[:, None, None, None], (n, 2, 3, 3)).copy()
    policy = np.full((n, 9), 1 / 9, dtype=np.float32)
    legal = np.ones((n, 9), dtype=bool)
    return planes, policy, legal, values


def test_the_oldest_positions_are_overwritten_when_full() -> None:
    buffer = ReplayBuffer(5, (2, 3, 3), 9)
    buffer.add(*_rows(3))
    buffer.add(*_rows(4, start=3))
    assert len(buffer) == 5 and buffer.added == 7
    assert sorted(buffer.value.tolist()) == [2, 3, 4, 5, 6]
    buffer.add(*_rows(12, start=7))  # more than the capacity: only the newest 5 stay
    assert sorted(buffer.value.tolist()) == [14, 15, 16, 17, 18]


def test_samples_keep_rows_together() -> None:
    buffer = ReplayBuffer(10, (2, 3, 3), 9)
    buffer.add(*_rows(7))
    planes, policy, legal, value = buffer.sample(32, np.random.default_rng(0))
    assert planes.shape == (32, 2, 3, 3) and policy.shape == (32, 9) and legal.shape == (32, 9)
    np.testing.assert_array_equal(planes[:, 0, 0, 0], value)


def test_state_dict_round_trip_keeps_order_and_contents() -> None:
    buffer = ReplayBuffer(4, (2, 3, 3), 9)
    buffer.add(*_rows(6))
    copy = ReplayBuffer(4, (2, 3, 3), 9)
    copy.load_state_dict(buffer.state_dict())
    assert copy.added == 6 and len(copy) == 4
    assert sorted(copy.value.tolist()) == sorted(buffer.value.tolist())
    copy.add(*_rows(1, start=100))  # the oldest (2) goes first
    assert sorted(copy.value.tolist()) == [3, 4, 5, 100]


def test_empty_buffer_refuses_to_sample() -> None:
    with pytest.raises(BoardgymError, match="empty"):
        ReplayBuffer(4, (2, 3, 3), 9).sample(1, np.random.default_rng())


def test_games_without_symmetries_store_one_copy() -> None:
    game = make_game("nim")
    images = augment(game, game.initial_state(), np.full(game.num_actions, 1 / game.num_actions, dtype=np.float32))
    assert len(images) == 1


def test_symmetric_copies_move_policy_and_mask_with_the_board() -> None:
    game = MirroredTicTacToe()
    state = game.apply(game.apply(game.initial_state(), 0), 4)  # X a1, O b2; X to move
    policy = np.zeros(9, dtype=np.float32)
    policy[1] = 1.0  # b1
    buffer = ReplayBuffer(10, game.observation_shape, game.num_actions)
    assert buffer.add_positions(game, [(state, policy, 0.5)]) == 2
    mirrored_planes, mirrored_policy, mirrored_legal = buffer.planes[1], buffer.policy[1], buffer.legal[1]
    assert mirrored_planes[0, 0, 2] == 1.0  # X's a1 is now on c1
    assert mirrored_policy[1] == 1.0  # b1 is its own mirror
    assert not mirrored_legal[2] and not mirrored_legal[4] and mirrored_legal[0]
    assert buffer.value[:2].tolist() == [0.5, 0.5]


@pytest.mark.parametrize("name", ["connect_four", "hex", "quarto", "quixo", "rastros", "tictactoe"])
def test_one_set_of_images_gives_what_two_symmetries_calls_give(name: str, random_positions: Any) -> None:
    """Where a game's symmetries are made from its symmetric_states, the buffer moves the policy
    and the legal mask with one set of images: the same rows as asking symmetries twice (a
    subclass that overrides symmetries, even with the same answer, takes that way)."""
    game = make_game(name)
    kind = type(game)
    asked = copy.copy(game)
    asked.__class__ = type(
        f"Asked{kind.__name__}", (kind,), {"symmetries": lambda self, s, p: kind.symmetries(self, s, p)}
    )
    rng = np.random.default_rng(5)
    for state in random_positions(game, 6, 7, 5):
        policy = rng.dirichlet(np.ones(game.num_actions)).astype(np.float32)
        fast, slow = augment(game, state, policy), augment(asked, state, policy)
        assert len(fast) == len(slow) > 1
        for (planes, moved, mask), (planes2, moved2, mask2) in zip(fast, slow, strict=True):
            assert np.array_equal(planes, planes2) and planes.dtype == planes2.dtype == np.float32
            assert np.array_equal(moved, moved2) and moved.dtype == np.float32
            assert np.array_equal(mask, mask2) and mask.dtype == mask2.dtype == np.bool_


def test_an_overridden_symmetries_is_kept() -> None:
    game: Any = MirroredTicTacToe()  # symmetric_states (8 images) inherited, symmetries (2) its own
    images = augment(game, game.initial_state(), np.full(9, 1 / 9, dtype=np.float32))
    assert len(images) == 2
