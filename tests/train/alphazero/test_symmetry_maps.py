"""A game's symmetries as index maps: derived from its declared images, they augment a batch
of rows exactly as the scalar augment does one position at a time, and games whose
symmetries are not index maps are refused."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from boardgym import make_game
from boardgym.games import GAMES
from boardgym.games.tictactoe import TicTacToe
from boardgym.train.alphazero.buffer import augment_rows, rows_from_positions
from boardgym.train.alphazero.symmetry_maps import augment, symmetry_maps
from boardgym.types import BoardgymError

VARIANTS = [(name, {}) for name in GAMES] + [
    ("hex", {"size": 5, "swap": True}),
    ("hex", {"size": 3}),
    ("quixo", {"size": 4}),
    ("quixo", {"size": 3, "max_moves": None}),
    ("nim", {"misere": True}),
]
COUNTS = {"tictactoe": 8, "connect_four": 2, "quixo": 8, "quarto": 8, "hex": 2, "rastros": 2}


@pytest.mark.parametrize(("name", "params"), VARIANTS, ids=[f"{n}{p or ''}" for n, p in VARIANTS])
def test_batched_images_are_the_scalar_augments_bit_for_bit(name: str, params: dict, random_positions: Any) -> None:
    game = make_game(name, **params)
    maps = symmetry_maps(game)
    assert (maps.count if maps is not None else None) == COUNTS.get(name)
    rng = np.random.default_rng(11)
    positions = [
        (state, rng.random(game.num_actions).astype(np.float32), float(rng.choice([-1, 0, 1])))
        for state in random_positions(game, 12, 40, 7)
    ]
    rows = augment_rows(rows_from_positions(game, positions), maps)
    images = [(*image, value) for state, policy, value in positions for image in augment(game, state, policy)]
    assert rows.count == len(images)
    for index, (column, dtype) in enumerate(zip(rows, (np.float32, np.float32, np.bool_, np.float32), strict=True)):
        expected = np.stack([np.asarray(image[index]).astype(dtype) for image in images])
        assert column.dtype == torch.from_numpy(expected).dtype and np.array_equal(column.numpy(), expected)


def test_the_identity_comes_first_and_maps_are_kept() -> None:
    maps = symmetry_maps(make_game("quarto"))
    assert maps is not None and symmetry_maps(make_game("quarto")) is maps
    assert maps.planes[0].tolist() == list(range(8 * 4 * 4)) and maps.actions[0].tolist() == list(range(32))
    assert maps.on("cpu") is maps and symmetry_maps(make_game("nim")) is None
    assert symmetry_maps(make_game("hex", size=5)) is not symmetry_maps(make_game("hex", size=7))


def test_a_mirror_of_connect_four_moves_columns() -> None:
    maps = symmetry_maps(make_game("connect_four"))
    assert maps is not None and maps.actions.tolist() == [list(range(7)), list(range(6, -1, -1))]
    cells = maps.planes[1].reshape(2, 6, 7)
    assert cells[0, 0].tolist() == list(range(6, -1, -1)) and cells[1, 5, 0] == 42 + 5 * 7 + 6


class _Inverted(TicTacToe):
    """A 'symmetry' that swaps empty and filled cells: not a copy of any feature."""

    name = "inverted"

    def symmetries(self, state, policy):
        planes = self.observation(state, self.current_player(state))
        return [(planes, policy), (1 - planes, policy)]


class _Wandering(TicTacToe):
    """Moves the actions one way or another by the number of stones: not one action map."""

    name = "wandering"

    def symmetries(self, state, policy):
        planes = self.observation(state, self.current_player(state))
        shift = 1 + int(planes.sum()) % 2
        return [(planes, policy), (planes, np.roll(policy, shift))]


class _Halved(TicTacToe):
    """Scales the policy: not a permutation."""

    name = "halved"

    def symmetries(self, state, policy):
        planes = self.observation(state, self.current_player(state))
        return [(planes, policy), (planes, policy / 2)]


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        (_Inverted, "feature .* copies no feature"),
        (_Wandering, "depends on the position"),
        (_Halved, "not a permutation"),
    ],
)
def test_symmetries_that_are_not_index_maps_are_refused(kind: type, words: str) -> None:
    with pytest.raises(BoardgymError, match=f"^{kind.name}'s symmetries are not index maps.*{words}"):
        symmetry_maps(kind())
