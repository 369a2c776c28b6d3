"""Board symmetries of the seed games: every image of a position is a position of the same
game, moves commute with the symmetry, and the AlphaZero replay augmentation accepts them."""

from __future__ import annotations

import numpy as np
import pytest

from boardgym import make_game
from boardgym.games.symmetry import cell_targets, permute_bits, square_symmetries

GAMES = [
    ("tictactoe", {}),
    ("connect_four", {}),
    ("quixo", {}),
    ("quixo", {"size": 4}),
    ("quarto", {}),
    ("hex", {"size": 5, "swap": True}),
    ("rastros", {}),
]
COUNTS = {"tictactoe": 8, "connect_four": 2, "quixo": 8, "quarto": 8, "hex": 2, "rastros": 2}


def test_square_symmetries_form_the_dihedral_group() -> None:
    images = {tuple(cell_targets(3, symmetry)) for symmetry in square_symmetries(3)}
    assert len(images) == 8
    quarter = cell_targets(3, square_symmetries(3)[1])
    assert permute_bits(0b000000001, quarter) == 0b000000100  # a1 (top-left) -> c1 (top-right)


@pytest.mark.parametrize(("name", "params"), GAMES)
def test_moves_commute_with_every_symmetry(name: str, params: dict) -> None:
    game = make_game(name, **params)
    rng = np.random.default_rng(5)
    for _ in range(4):
        state = game.initial_state()
        while not game.is_terminal(state):
            legal = game.legal_actions(state)
            action = legal[int(rng.integers(len(legal)))]
            after = game.apply(state, action)
            images = game.symmetric_states(state)
            assert len(images) == COUNTS[name] and images[0][0] == state
            after_images = [image for image, _ in game.symmetric_states(after)]
            for (image, actions), after_image in zip(images, after_images, strict=True):
                assert sorted(actions.tolist()) == list(range(game.num_actions))
                assert np.array_equal(game.legal_mask(image)[actions], game.legal_mask(state))
                assert game.apply(image, int(actions[action])) == after_image
            state = after


@pytest.mark.parametrize(("name", "params"), GAMES)
def test_symmetries_feed_the_alphazero_replay_buffer(name: str, params: dict) -> None:
    from boardgym.train.alphazero.buffer import augment

    game = make_game(name, **params)
    state = game.initial_state()
    for action in game.legal_actions(state)[:1]:
        state = game.apply(state, action)
    policy = game.legal_mask(state) / game.legal_mask(state).sum()
    rows = augment(game, state, policy.astype(np.float32))
    assert len(rows) == COUNTS[name]
    planes, first_policy, first_mask = rows[0]
    assert np.array_equal(planes, game.observation(state, game.current_player(state)))
    assert np.allclose(first_policy, policy) and np.array_equal(first_mask, game.legal_mask(state))
    for planes, moved, mask in rows:
        assert planes.shape == game.observation_shape and np.isclose(moved.sum(), 1.0)
        assert np.array_equal(moved > 0, mask)
