"""The replay buffer: ring overwrite, sampling, saving, rows, and symmetry augmentation."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
import torch

from boardgym import make_game
from boardgym.games.tictactoe import TicTacToe
from boardgym.train.alphazero.buffer import (
    ReplayBuffer,
    Rows,
    augment,
    augment_rows,
    rows_from_positions,
    symmetry_maps,
)
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


def _old_state_dict(rows: tuple[np.ndarray, ...], added: int) -> dict[str, Any]:
    """A replay file's buffer as the numpy buffer wrote it (rows oldest first, planes float16)."""
    planes, policy, legal, value = rows
    return {
        "planes": torch.from_numpy(planes.astype(np.float16)),
        "policy": torch.from_numpy(policy),
        "legal": torch.from_numpy(legal),
        "value": torch.from_numpy(value),
        "added": added,
    }


def test_the_oldest_positions_are_overwritten_when_full() -> None:
    buffer = ReplayBuffer(5, (2, 3, 3), 9)
    buffer.add(*_rows(3))
    buffer.add(*_rows(4, start=3))
    assert len(buffer) == 5 and buffer.added == 7 and buffer.next == 2
    assert sorted(buffer.value.tolist()) == [2, 3, 4, 5, 6]
    buffer.add(*_rows(12, start=7))  # more than the capacity: only the newest 5 stay
    assert sorted(buffer.value.tolist()) == [14, 15, 16, 17, 18]
    assert torch.equal(buffer.planes[:, 0, 0, 0], buffer.value)


def test_tensors_and_arrays_are_added_alike() -> None:
    from_arrays, from_tensors = ReplayBuffer(6, (2, 3, 3), 9), ReplayBuffer(6, (2, 3, 3), 9)
    for start in (0, 4):
        from_arrays.add(*_rows(4, start))
        from_tensors.add(*(torch.from_numpy(column) for column in _rows(4, start)))
    for column in ("planes", "policy", "legal", "value"):
        assert torch.equal(getattr(from_arrays, column), getattr(from_tensors, column))
    assert from_arrays.legal.dtype == torch.bool and from_arrays.planes.dtype == torch.float32


def test_samples_keep_rows_together_and_draw_the_rows_the_rng_draws() -> None:
    buffer = ReplayBuffer(10, (2, 3, 3), 9)
    buffer.add(*_rows(7))
    batch = buffer.sample(32, np.random.default_rng(0))
    assert isinstance(batch, Rows) and batch.count == 32
    assert batch.planes.shape == (32, 2, 3, 3) and batch.policy.shape == (32, 9) and batch.legal.shape == (32, 9)
    assert torch.equal(batch.planes[:, 0, 0, 0], batch.value)
    drawn = np.random.default_rng(0).integers(7, size=32)  # the numpy buffer's draw: same seed, same batch
    assert batch.value.tolist() == drawn.astype(np.float32).tolist()


def test_state_dict_round_trip_keeps_order_and_contents() -> None:
    buffer = ReplayBuffer(4, (2, 3, 3), 9)
    buffer.add(*_rows(6))
    saved = buffer.state_dict()
    assert saved["value"].tolist() == [2, 3, 4, 5]  # oldest first
    restored = ReplayBuffer(4, (2, 3, 3), 9)
    restored.load_state_dict(saved)
    assert restored.added == 6 and len(restored) == 4
    assert sorted(restored.value.tolist()) == sorted(buffer.value.tolist())
    restored.add(*_rows(1, start=100))  # the oldest (2) goes first
    assert sorted(restored.value.tolist()) == [3, 4, 5, 100]


def test_state_dict_is_the_replay_files_format() -> None:
    """Keys, dtypes and order as the numpy buffer saved them, so old files and new agree."""
    buffer = ReplayBuffer(4, (2, 3, 3), 9)
    buffer.add(*_rows(6))
    planes, policy, legal, value = _rows(6)
    expected = _old_state_dict((planes[2:], policy[2:], legal[2:], value[2:]), added=6)
    saved = buffer.state_dict()
    assert saved.keys() == expected.keys() and saved["added"] == 6
    for key in ("planes", "policy", "legal", "value"):
        assert saved[key].dtype == expected[key].dtype and saved[key].device.type == "cpu"
        assert torch.equal(saved[key], expected[key])
        assert saved[key].untyped_storage().nbytes() == expected[key].untyped_storage().nbytes()  # not a view


def test_a_replay_file_of_the_numpy_buffer_loads() -> None:
    rows = _rows(3, start=1)
    buffer = ReplayBuffer(8, (2, 3, 3), 9)
    buffer.load_state_dict(_old_state_dict(rows, added=11))
    assert len(buffer) == 3 and buffer.added == 11 and buffer.next == 3
    assert buffer.value[:3].tolist() == [1, 2, 3] and torch.equal(buffer.planes[:3], torch.from_numpy(rows[0]))


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda saved: saved.pop("legal"), "lacks legal"),
        (lambda saved: saved.update(planes=torch.zeros(3, 2, 6, 7)), r"planes \(2, 6, 7\)"),
        (lambda saved: saved.update(policy=torch.zeros(3, 7)), r"policies \(7,\)"),
        (lambda saved: saved.update(value=[0.0, 0.0, 0.0]), "not tensors"),
    ],
)
def test_a_malformed_replay_file_is_refused_in_one_sentence(change: Any, words: str) -> None:
    saved = _old_state_dict(_rows(3), added=3)
    change(saved)
    buffer = ReplayBuffer(8, (2, 3, 3), 9)
    with pytest.raises(BoardgymError, match=f"replay-7.pt.*{words}.*delete it") as error:
        buffer.load_state_dict(saved, source="replay buffer 'replay-7.pt'")
    assert str(error.value).count(". ") == 0


def test_empty_buffer_refuses_to_sample() -> None:
    with pytest.raises(BoardgymError, match="empty"):
        ReplayBuffer(4, (2, 3, 3), 9).sample(1, np.random.default_rng())


def test_rows_concatenate_count_and_move() -> None:
    parts = [Rows(*(torch.from_numpy(column) for column in _rows(n, start))) for n, start in ((2, 0), (3, 2))]
    rows = Rows.cat(parts)
    assert rows.count == 5 and len(rows) == 4 and rows.value.tolist() == [0, 1, 2, 3, 4]
    assert Rows.cat(parts[:1]) is parts[0] and rows.to("cpu").planes.device.type == "cpu"
    empty = Rows.empty((2, 3, 3), 9)
    assert empty.count == 0 and Rows.cat([empty, parts[0]]).count == 2
    with pytest.raises(BoardgymError, match="at least one"):
        Rows.cat([])
    assert ReplayBuffer(4, (2, 3, 3), 9).add_rows(empty) == 0
    game = make_game("tictactoe")  # none with symmetries: none of their images either
    buffer = ReplayBuffer(4, game.observation_shape, game.num_actions, symmetries=symmetry_maps(game))
    assert buffer.add_rows(Rows.empty(game.observation_shape, game.num_actions)) == 0
    assert buffer.add_positions(game, []) == 0 and len(buffer) == 0


def test_games_without_symmetries_store_one_copy() -> None:
    game = make_game("nim")
    images = augment(game, game.initial_state(), np.full(game.num_actions, 1 / game.num_actions, dtype=np.float32))
    assert len(images) == 1
    buffer = ReplayBuffer(10, game.observation_shape, game.num_actions, symmetries=symmetry_maps(game))
    policy = np.full(game.num_actions, 1 / game.num_actions, dtype=np.float32)
    assert buffer.add_positions(game, [(game.initial_state(), policy, 1.0)]) == 1


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


def test_add_rows_writes_each_position_with_its_images() -> None:
    game = make_game("connect_four")
    maps = symmetry_maps(game)
    state = game.apply(game.initial_state(), 0)
    policy = np.arange(7, dtype=np.float32) / 21
    rows = rows_from_positions(game, [(state, policy, -1.0), (game.apply(state, 6), policy, 1.0)])
    buffer = ReplayBuffer(5, game.observation_shape, game.num_actions, symmetries=maps)
    assert buffer.add_rows(rows) == 4 and buffer.next == 4
    assert buffer.add_rows(rows) == 4 and buffer.added == 8 and len(buffer) == 5 and buffer.next == 3  # wrapped
    expected = augment_rows(rows, maps)
    assert torch.equal(buffer.planes[4], expected.planes[0]) and torch.equal(
        buffer.planes[:4], expected.planes[[1, 2, 3, 3]]
    )
    assert buffer.policy[0].tolist() == policy[::-1].tolist() and buffer.value.tolist() == [-1.0, 1.0, 1.0, 1.0, -1.0]
    assert buffer.add_rows(rows, augment=False) == 2 and buffer.value.tolist() == [-1.0, 1.0, 1.0, -1.0, 1.0]


def test_add_positions_gives_the_rows_of_the_scalar_augment(random_positions: Any) -> None:
    game = make_game("tictactoe")
    rng = np.random.default_rng(3)
    positions = [
        (state, rng.dirichlet(np.ones(9)).astype(np.float32), float(rng.choice([-1, 0, 1])))
        for state in random_positions(game, 5, 6, 2)
    ]
    buffer = ReplayBuffer(100, game.observation_shape, game.num_actions)  # no maps given: the game's
    assert buffer.add_positions(game, positions) == 40
    images = [(*image, value) for state, policy, value in positions for image in augment(game, state, policy)]
    for index, column in enumerate((buffer.planes, buffer.policy, buffer.legal, buffer.value)):
        assert torch.equal(column[:40], torch.from_numpy(np.stack([np.asarray(image[index]) for image in images])))


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
    maps = symmetry_maps(game)
    assert maps is not None and maps.count == 2 and maps.actions[1].tolist() == MirroredTicTacToe.MIRROR.tolist()


def test_adding_and_sampling_read_no_tensor_back_to_the_host() -> None:
    """On the meta device a tensor has no values, so any read (``item``, ``tolist``, a
    comparison made into a bool) raises: adding and sampling work on it, as on a GPU without
    waiting for it."""
    game = make_game("connect_four")
    buffer = ReplayBuffer(10, game.observation_shape, game.num_actions, device="meta", symmetries=symmetry_maps(game))
    uniform = np.full(7, 1 / 7, dtype=np.float32)
    rows = rows_from_positions(game, [(game.initial_state(), uniform, 0.0)] * 7).to("meta")
    assert buffer.add_rows(rows) == 14 and len(buffer) == 10 and buffer.next == 0
    batch = buffer.sample(4, np.random.default_rng(0))
    assert batch.planes.device.type == "meta" and batch.planes.shape == (4, *game.observation_shape)
    with pytest.raises(RuntimeError):
        batch.value.tolist()  # what the test relies on
