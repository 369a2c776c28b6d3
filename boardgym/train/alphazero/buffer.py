"""The bounded replay buffer of self-play positions, as tensors, augmented by the game's symmetries.

A position is stored as the network sees it: observation planes for the player to move, the
legal mask, the search's visit distribution (the policy target) and the final result for
that player (the value target). A batch of positions travels as ``Rows`` (torch tensors, first
axis the position). The buffer's tensors live on its ``device`` (the learner's), so rows made
on that device are stored and sampled there without visiting the host. When the buffer is full
the oldest positions are overwritten.

Symmetries: ``symmetry_maps(game)`` turns the images a game declares (``symmetries(state,
policy)``, see ``boardgym.game.HasSymmetries``) into index maps, and ``augment_rows`` applies
them to a whole batch at once: each position's images consecutive, the identity first, as the
scalar ``augment`` gives them one position at a time. Games without symmetries are stored as
they are.

Saved buffers (``state_dict``) keep the format of ``REPLAY_FORMAT`` files: the rows oldest
first as CPU tensors, the planes in float16.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import torch

from boardgym.game import Game
from boardgym.train.alphazero.symmetry_maps import SymmetryMaps, augment, symmetry_maps
from boardgym.types import BoardgymError

__all__ = ["ReplayBuffer", "Rows", "SymmetryMaps", "augment", "augment_rows", "rows_from_positions", "symmetry_maps"]

STATE_KEYS = ("planes", "policy", "legal", "value", "added")
"""What ``ReplayBuffer.state_dict`` holds (the replay file adds its ``step``)."""


class Rows(NamedTuple):
    """A batch of replay rows (first axis = position), torch tensors on one device.

    ``len(rows)`` is the tuple's (4); the number of positions is ``rows.count``. ``Rows.cat``
    needs at least one part (``Rows.empty`` makes a batch of none)."""

    planes: torch.Tensor  # float32 [n, *observation_shape], for the player to move
    policy: torch.Tensor  # float32 [n, num_actions]
    legal: torch.Tensor  # bool [n, num_actions]
    value: torch.Tensor  # float32 [n]

    @property
    def count(self) -> int:  # type: ignore[override]  # tuple.count(x) gives way to the row count
        """The number of positions."""
        return int(self.value.shape[0])

    def to(self, device: torch.device | str, non_blocking: bool = False) -> Rows:
        """These rows on ``device``."""
        return Rows(*(tensor.to(device, non_blocking=non_blocking) for tensor in self))

    @staticmethod
    def cat(parts: Sequence[Rows]) -> Rows:
        """The rows of ``parts`` one after the other (all on one device; at least one part)."""
        if not parts:
            raise BoardgymError("Rows.cat needs at least one batch of rows; use Rows.empty for none")
        if len(parts) == 1:
            return parts[0]
        return Rows(*(torch.cat(column) for column in zip(*parts, strict=True)))

    @staticmethod
    def empty(observation_shape: tuple[int, ...], num_actions: int, device: torch.device | str = "cpu") -> Rows:
        """A batch of no positions."""
        return Rows(
            torch.zeros((0, *observation_shape), device=device),
            torch.zeros((0, num_actions), device=device),
            torch.zeros((0, num_actions), dtype=torch.bool, device=device),
            torch.zeros(0, device=device),
        )


def rows_from_positions(game: Game, positions: Sequence[tuple[Any, np.ndarray, float]]) -> Rows:
    """The rows of ``(state, visit policy, result for the player to move)`` triples, on the CPU,
    without their symmetric images (``augment_rows`` adds those)."""
    if not positions:
        return Rows.empty(game.observation_shape, game.num_actions)
    planes = np.stack(
        [np.asarray(game.observation(state, game.current_player(state)), dtype=np.float32) for state, _, _ in positions]
    )
    policy = np.stack([np.asarray(policy, dtype=np.float32) for _, policy, _ in positions])
    legal = np.stack([game.legal_mask(state) for state, _, _ in positions]).astype(bool)
    value = np.asarray([value for _, _, value in positions], dtype=np.float32)
    return Rows(torch.from_numpy(planes), torch.from_numpy(policy), torch.from_numpy(legal), torch.from_numpy(value))


def augment_rows(rows: Rows, maps: SymmetryMaps | None) -> Rows:
    """Each position of ``rows`` followed by its symmetric images (identity first, ``maps.count``
    rows a position), on the rows' device; ``rows`` themselves where ``maps`` is None."""
    if maps is None:
        return rows
    return Rows(*maps.apply(*rows))


class ReplayBuffer:
    """A ring of ``capacity`` positions on ``device``; ``sample`` draws a uniform minibatch.

    ``symmetries`` are the index maps ``add_rows`` augments with (``symmetry_maps(game)``;
    None: rows are stored as they come). ``add`` stores rows as they are."""

    def __init__(
        self,
        capacity: int,
        observation_shape: tuple[int, ...],
        num_actions: int,
        *,
        device: str | torch.device = "cpu",
        symmetries: SymmetryMaps | None = None,
    ) -> None:
        if capacity < 1:
            raise BoardgymError(f"replay buffer capacity={capacity} must be at least 1")
        self.capacity = capacity
        self.observation_shape = tuple(observation_shape)
        self.num_actions = num_actions
        self.device = torch.device(device)
        self.symmetries = None if symmetries is None else symmetries.on(self.device)
        self.planes = torch.zeros((capacity, *observation_shape), dtype=torch.float32, device=self.device)
        self.policy = torch.zeros((capacity, num_actions), dtype=torch.float32, device=self.device)
        self.legal = torch.zeros((capacity, num_actions), dtype=torch.bool, device=self.device)
        self.value = torch.zeros(capacity, dtype=torch.float32, device=self.device)
        self.size = 0
        self.next = 0
        self.added = 0  # positions ever added, augmentations included

    def __len__(self) -> int:
        return self.size

    def add(
        self,
        planes: np.ndarray | torch.Tensor,
        policy: np.ndarray | torch.Tensor,
        legal: np.ndarray | torch.Tensor,
        value: np.ndarray | torch.Tensor,
    ) -> None:
        """Append a batch of positions (first axis; numpy arrays or tensors) as they are,
        overwriting the oldest when full."""
        columns = [
            torch.as_tensor(array, dtype=dtype, device=self.device)
            for array, dtype in zip(
                (planes, policy, legal, value), (torch.float32, torch.float32, torch.bool, torch.float32), strict=True
            )
        ]
        count = int(columns[3].shape[0])
        self.added += count
        if count > self.capacity:  # keep only the newest
            columns = [column[-self.capacity :] for column in columns]
            count = self.capacity
        # The ring position is a host int (the row count is known), so nothing waits on the device.
        first = min(count, self.capacity - self.next)
        for stored, column in zip((self.planes, self.policy, self.legal, self.value), columns, strict=True):
            stored[self.next : self.next + first] = column[:first]
            if count > first:  # wrapped round
                stored[: count - first] = column[first:]
        self.next = (self.next + count) % self.capacity
        self.size = min(self.size + count, self.capacity)

    def add_rows(self, rows: Rows, augment: bool = True) -> int:
        """Append ``rows`` with their images under the buffer's symmetries (``augment``);
        returns the number of rows written."""
        if augment:
            rows = augment_rows(rows.to(self.device), self.symmetries)
        self.add(*rows)
        return rows.count

    def add_positions(self, game: Game, positions: Sequence[tuple[Any, np.ndarray, float]]) -> int:
        """Store ``(state, visit policy, result for the player to move)`` triples with their
        symmetric images (the buffer's symmetries, or where it has none ``game``'s); returns the
        number of rows written."""
        rows = rows_from_positions(game, positions).to(self.device)
        rows = augment_rows(rows, self.symmetries if self.symmetries is not None else symmetry_maps(game))
        self.add(*rows)
        return rows.count

    def sample(self, batch_size: int, rng: np.random.Generator) -> Rows:
        """``batch_size`` positions drawn with replacement, on the buffer's device."""
        if self.size == 0:
            raise BoardgymError("cannot sample from an empty replay buffer; play some self-play games first")
        rows = torch.from_numpy(rng.integers(self.size, size=batch_size)).to(self.device, non_blocking=True)
        return Rows(self.planes[rows], self.policy[rows], self.legal[rows], self.value[rows])

    def state_dict(self) -> dict[str, Any]:
        """The rows oldest first as CPU tensors (planes in float16) and ``added``: tensors and
        ints only, so checkpoints load with ``weights_only=True``."""
        n = self.size
        order = (self.next - n + torch.arange(n, device=self.device)) % self.capacity
        return {
            "planes": self.planes[order].to(torch.float16).cpu(),
            "policy": self.policy[order].cpu(),
            "legal": self.legal[order].cpu(),
            "value": self.value[order].cpu(),
            "added": self.added,
        }

    def load_state_dict(self, saved: dict[str, Any], source: str = "the replay buffer") -> None:
        """Replace the contents with a ``state_dict`` (of this buffer or a ``REPLAY_FORMAT``
        file: ``source`` names it in the error a malformed one raises)."""
        columns = _saved_rows(saved, self.observation_shape, self.num_actions, source)
        self.size = self.next = 0
        self.add(*columns)
        self.added = int(saved["added"])


def _saved_rows(
    saved: dict[str, Any], observation_shape: tuple[int, ...], num_actions: int, source: str
) -> tuple[torch.Tensor, ...]:
    """The four row tensors of a saved buffer, checked against the buffer that loads them."""
    missing = [key for key in STATE_KEYS if key not in saved]
    if missing:
        raise BoardgymError(
            f"{source} lacks {', '.join(missing)}: it is not a saved replay buffer; delete it to start with an "
            "empty buffer"
        )
    columns = tuple(saved[key] for key in STATE_KEYS[:4])
    if not all(isinstance(column, torch.Tensor) for column in columns):
        raise BoardgymError(
            f"{source} holds rows that are not tensors: it is not a saved replay buffer; delete it to start with "
            "an empty buffer"
        )
    planes, policy, legal, value = columns
    rows = value.shape[0] if value.dim() == 1 else -1
    if (
        rows < 0
        or tuple(planes.shape) != (rows, *observation_shape)
        or tuple(policy.shape) != (rows, num_actions)
        or tuple(legal.shape) != (rows, num_actions)
    ):
        raise BoardgymError(
            f"{source} holds planes {tuple(planes.shape)[1:]} and policies {tuple(policy.shape)[1:]} for "
            f"{tuple(value.shape)} values, but this game's buffer has planes {observation_shape} and "
            f"{num_actions} moves: resume with the run's own game options, or delete it to start with an empty buffer"
        )
    return planes.float(), policy.float(), legal.bool(), value.float()
