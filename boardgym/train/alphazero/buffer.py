"""The bounded replay buffer of self-play positions, augmented by the game's symmetries.

A position is stored as the network sees it: observation planes for the player to move, the
legal mask, the search's visit distribution (the policy target) and the final result for
that player (the value target). When the buffer is full the oldest positions are
overwritten.

Symmetries: a game may offer ``symmetries(state, policy)`` returning, for every symmetry of
its board (the identity first), the pair ``(observation planes for the player to move,
policy permuted the same way)``. ``policy`` is any float vector over the actions, so the same
call permutes the legal mask. Games without the method are stored as they are.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, NamedTuple, cast

import numpy as np
import torch

from boardgym.game import Game, HasSymmetricStates, HasSymmetries
from boardgym.types import BoardgymError


class ReplayBuffer:
    """A ring of ``capacity`` positions; ``sample`` draws a uniform minibatch."""

    def __init__(
        self,
        capacity: int,
        observation_shape: tuple[int, ...],
        num_actions: int,
        *,
        device: Any = "cpu",
        symmetries: Any = None,
    ) -> None:
        if capacity < 1:
            raise BoardgymError(f"replay buffer capacity={capacity} must be at least 1")
        self.capacity = capacity
        self.planes = np.zeros((capacity, *observation_shape), dtype=np.float32)
        self.policy = np.zeros((capacity, num_actions), dtype=np.float32)
        self.legal = np.zeros((capacity, num_actions), dtype=bool)
        self.value = np.zeros(capacity, dtype=np.float32)
        self.size = 0
        self.next = 0
        self.added = 0  # positions ever added, augmentations included

    def __len__(self) -> int:
        return self.size

    def add(self, planes: np.ndarray, policy: np.ndarray, legal: np.ndarray, value: np.ndarray) -> None:
        """Append a batch of positions (first axis), overwriting the oldest when full."""
        count = len(value)
        self.added += count
        if count > self.capacity:  # keep only the newest
            planes, policy, legal, value = (
                planes[-self.capacity :],
                policy[-self.capacity :],
                legal[-self.capacity :],
                value[-self.capacity :],
            )
            count = self.capacity
        rows = (self.next + np.arange(count)) % self.capacity
        self.planes[rows] = planes
        self.policy[rows] = policy
        self.legal[rows] = legal
        self.value[rows] = value
        self.next = int((self.next + count) % self.capacity)
        self.size = min(self.size + count, self.capacity)

    def add_positions(self, game: Game, positions: list[tuple[Any, np.ndarray, float]]) -> int:
        """Store ``(state, visit policy, result for the player to move)`` triples, with their
        symmetric copies; returns the number of rows written."""
        planes, policies, legals, values = [], [], [], []
        for state, policy, value in positions:
            for sym_planes, sym_policy, sym_legal in augment(game, state, policy):
                planes.append(sym_planes)
                policies.append(sym_policy)
                legals.append(sym_legal)
                values.append(value)
        if planes:
            self.add(np.stack(planes), np.stack(policies), np.stack(legals), np.asarray(values, dtype=np.float32))
        return len(planes)

    def add_rows(self, rows: Rows, augment: bool = True) -> int:
        planes, policy, legal, value = (t.cpu().numpy() for t in rows)
        self.add(planes, policy, legal, value)
        return int(rows.value.shape[0])

    def sample(self, batch_size: int, rng: np.random.Generator) -> Rows:
        """``(planes, policy, legal, value)`` of ``batch_size`` positions drawn with replacement."""
        if self.size == 0:
            raise BoardgymError("cannot sample from an empty replay buffer; play some self-play games first")
        rows = rng.integers(self.size, size=batch_size)
        return Rows(
            *(torch.from_numpy(a) for a in (self.planes[rows], self.policy[rows], self.legal[rows], self.value[rows]))
        )

    def state_dict(self) -> dict[str, Any]:
        """Tensors and ints only, so checkpoints load with ``weights_only=True``."""
        n = self.size
        order = (self.next - n + np.arange(n)) % self.capacity  # oldest first
        return {
            "planes": torch.from_numpy(self.planes[order].astype(np.float16)),
            "policy": torch.from_numpy(self.policy[order]),
            "legal": torch.from_numpy(self.legal[order]),
            "value": torch.from_numpy(self.value[order]),
            "added": self.added,
        }

    def load_state_dict(self, saved: dict[str, Any]) -> None:
        self.size = self.next = 0
        self.add(
            saved["planes"].float().numpy(), saved["policy"].numpy(), saved["legal"].numpy(), saved["value"].numpy()
        )
        self.added = int(saved["added"])


def augment(game: Game, state: Any, policy: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``(planes, policy, legal mask)`` for ``state`` and each of its symmetric images."""
    legal = game.legal_mask(state)
    way = _augmentation(type(game))
    if way == "images":  # one set of images moves the policy and the mask
        player = game.current_player(state)
        rows = []
        for image, actions in cast(HasSymmetricStates[Any], game).symmetric_states(state):
            moved, mask = np.empty_like(policy), np.empty(len(legal), dtype=bool)
            moved[actions], mask[actions] = policy, legal
            rows.append((np.asarray(game.observation(image, player), dtype=np.float32), moved.astype(np.float32), mask))
        return rows
    if way == "none":
        return [(game.observation(state, game.current_player(state)), policy, legal)]
    symmetric = cast(HasSymmetries[Any], game)
    images = symmetric.symmetries(state, policy)
    masks = symmetric.symmetries(state, legal.astype(np.float32))
    return [
        (np.asarray(planes, dtype=np.float32), np.asarray(sym_policy, dtype=np.float32), np.asarray(sym_mask) > 0.5)
        for (planes, sym_policy), (_, sym_mask) in zip(images, masks, strict=True)
    ]


@functools.cache
def _augmentation(kind: type) -> str:
    """How ``augment`` treats the positions of a game of class ``kind``, decided once per class
    (a Protocol check costs microseconds, and ``augment`` runs for every position): ``images``
    where its ``symmetries`` are those its ``symmetric_states`` make (both defined,
    ``symmetric_states`` in the class that defines ``symmetries`` or a subclass of it: a
    subclass that overrides ``symmetries`` alone keeps its own), ``symmetries`` where it has
    only those, ``none`` where it has no symmetries."""

    def defined_in(name: str) -> type | None:
        return next((owner for owner in kind.__mro__ if name in vars(owner)), None)

    if not issubclass(kind, HasSymmetries):
        return "none"
    symmetries, images = defined_in("symmetries"), defined_in("symmetric_states")
    if issubclass(kind, HasSymmetricStates) and symmetries is not None and images is not None:
        return "images" if issubclass(images, symmetries) else "symmetries"
    return "symmetries"


class Rows(NamedTuple):
    """A batch of replay rows (first axis = position), torch tensors on one device."""

    planes: torch.Tensor
    policy: torch.Tensor
    legal: torch.Tensor
    value: torch.Tensor

    @property
    def size(self) -> int:
        return int(self.value.shape[0])

    def to(self, device: str | torch.device) -> Rows:
        return Rows(*(t.to(device) for t in self))

    @staticmethod
    def cat(parts: Sequence[Rows]) -> Rows:
        return Rows(*(torch.cat(column) for column in zip(*parts, strict=True)))


def rows_from_positions(game: Game, positions: Sequence[tuple[Any, np.ndarray, float]]) -> Rows:
    planes = np.stack(
        [np.asarray(game.observation(s, game.current_player(s)), dtype=np.float32) for s, _, _ in positions]
    )
    policy = np.stack([np.asarray(p, dtype=np.float32) for _, p, _ in positions])
    legal = np.stack([np.asarray(game.legal_mask(s), dtype=bool) for s, _, _ in positions])
    value = np.asarray([v for _, _, v in positions], dtype=np.float32)
    return Rows(*(torch.from_numpy(a) for a in (planes, policy, legal, value)))


def symmetry_maps(game: Game) -> Any:
    return None
