"""Board symmetries for data augmentation (AlphaZero's replay buffer), shared by the games.

A game that has symmetries offers ``symmetric_states(state)``: for each symmetry of its rules
(the identity first), the image of ``state`` and the image of every action, as an int array
``actions`` with ``actions[a]`` = the image of action ``a``. Playing ``a`` and then taking the
image gives the same state as taking the image and then playing ``actions[a]``. From that,
``symmetries(state, policy)`` (what ``boardgym.train.alphazero.buffer`` asks for) is
``augment`` below: the observation planes of each image and the policy moved along with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from boardgym.types import Planes

Cell = tuple[int, int]


def square_symmetries(n: int) -> list[Callable[[int, int], Cell]]:
    """The 8 symmetries of an n x n square as maps of (row, column), the identity first."""
    m = n - 1
    return [
        lambda r, c: (r, c),
        lambda r, c: (c, m - r),  # rotate a quarter turn clockwise
        lambda r, c: (m - r, m - c),  # half turn
        lambda r, c: (m - c, r),  # three quarters
        lambda r, c: (r, m - c),  # mirror left-right
        lambda r, c: (m - r, c),  # mirror top-bottom
        lambda r, c: (c, r),  # transpose (main diagonal)
        lambda r, c: (m - c, m - r),  # anti-diagonal
    ]


def cell_targets(n: int, symmetry: Callable[[int, int], Cell], stride: int | None = None) -> list[int]:
    """``targets[i]``: where bit i goes, for a board of n x n cells stored at ``row * stride + col``
    (``stride`` defaults to n). Bits of padding columns map to themselves."""
    stride = stride or n
    targets = list(range(stride * n))
    for r in range(n):
        for c in range(n):
            rr, cc = symmetry(r, c)
            targets[r * stride + c] = rr * stride + cc
    return targets


def permute_bits(bits: int, targets: Sequence[int]) -> int:
    """Move every set bit i of ``bits`` to bit ``targets[i]``."""
    out = 0
    while bits:
        low = bits & -bits
        out |= 1 << targets[low.bit_length() - 1]
        bits ^= low
    return out


def augment(game: Any, state: Any, policy: np.ndarray) -> list[tuple[Planes, np.ndarray]]:
    """``(planes for the player to move, policy)`` for each image of ``state`` (identity first)."""
    player = game.current_player(state)
    policy = np.asarray(policy)
    images = []
    for image, actions in game.symmetric_states(state):
        moved = np.empty_like(policy)
        moved[actions] = policy
        images.append((game.observation(image, player), moved))
    return images
