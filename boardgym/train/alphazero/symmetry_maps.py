"""A game's symmetries as tensor index maps, so the replay buffer augments a batch at once.

A game with symmetries declares, for one position at a time, the observation planes of each
symmetric image and the policy moved along with it (``HasSymmetries.symmetries``). Every game
here moves its planes and its actions by fixed permutations, so a whole batch can be augmented
by two gathers: ``SymmetryMaps.planes[k, f]`` is the feature of the flattened planes that
image ``k``'s feature ``f`` copies, ``SymmetryMaps.actions[k, b]`` the action whose
probability image ``k`` puts on action ``b`` (identity first in both).

``symmetry_maps(game)`` reads the maps off the game's own ``symmetries``, once per process:

- actions: the image of the policy ``0, 1, ..., A-1`` says where each action went;
- planes: over a few hundred positions of seeded random play (more games until more games tell
  no two features apart that were alike), each feature of each image is matched with the
  identity's feature that holds the same value on every position (columns compared by their
  bytes, so Hex 19x19's thousand features cost one dictionary each);
- then, on the positions of further games, the maps must give exactly what the scalar
  ``augment`` gives (planes, policy and legal mask) and the same action map everywhere; where
  they do not, those positions join the derivation and it runs again (``PROBE_ROUNDS`` times).
  A game whose symmetries are not index maps is refused with a ``BoardgymError``, never
  augmented less than it declares.

``augment`` is the scalar path (one position, numpy), kept as the reference.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import torch

from boardgym.game import Game, HasSymmetricStates, HasSymmetries
from boardgym.types import BoardgymError

PROBE_GAMES = (16, 160)  # the fewest and most random games whose positions derive the maps
PROBE_SETTLED = 8  # games in a row that tell no two features apart more: the maps are derived
PROBE_CHECKS = 16  # random games whose positions check the maps
PROBE_ROUNDS = 4  # checks, each failed one's positions added to the derivation before the next
PROBE_PER_GAME = 12  # positions taken from a probe game
PROBE_PLIES = 1000  # the longest probe game (Quixo without a move limit may run on)


@dataclass(frozen=True, eq=False)
class SymmetryMaps:
    """Gather indices of a game's ``count`` symmetries, identity first: ``planes`` (K, F) over
    the flattened observation planes, ``actions`` (K, A) over the actions."""

    planes: torch.Tensor
    actions: torch.Tensor
    _on: dict[str, SymmetryMaps] = field(default_factory=dict, repr=False, compare=False)

    @property
    def count(self) -> int:
        return int(self.planes.shape[0])

    def on(self, device: torch.device | str) -> SymmetryMaps:
        """These maps on ``device`` (copied there once, then kept)."""
        device = torch.device(device)
        if self.planes.device == device:
            return self
        key = str(device)
        if key not in self._on:
            self._on[key] = SymmetryMaps(self.planes.to(device), self.actions.to(device))
        return self._on[key]

    def apply(
        self, planes: torch.Tensor, policy: torch.Tensor, legal: torch.Tensor, value: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """The ``count`` images of each of ``n`` rows (first axis), consecutive, identity first:
        ``n * count`` rows on the rows' device, with no host synchronisation."""
        maps = self.on(planes.device)
        (k, features), size = maps.planes.shape, maps.actions.shape[1]
        n = planes.shape[0]
        flat = planes.reshape(n, features).index_select(1, maps.planes.reshape(-1))
        actions = maps.actions.reshape(-1)
        return (
            flat.reshape(n * k, *planes.shape[1:]),
            policy.index_select(1, actions).reshape(n * k, size),
            legal.index_select(1, actions).reshape(n * k, size),
            value.reshape(n, 1).expand(n, k).reshape(n * k),
        )


def symmetry_maps(game: Game) -> SymmetryMaps | None:
    """The index maps of ``game``'s declared symmetries (None: it declares none), derived and
    checked once per game class and parameters."""
    key = (type(game), game.name, repr(game.params()))
    if key not in _DERIVED:
        _DERIVED[key] = _derived(game)
    return _DERIVED[key]


_DERIVED: dict[tuple[type, str, str], SymmetryMaps | None] = {}


def _derived(game: Game) -> SymmetryMaps | None:
    if _augmentation(type(game)) == "none":
        return None
    rng = np.random.default_rng(20260101)
    games = _probe_games(game, rng)
    probes = _Probes(game)
    probes.play(games, PROBE_GAMES)
    problem: str | None = None
    for _ in range(PROBE_ROUNDS):
        derived = probes.maps()
        checks = [state for _, states in zip(range(PROBE_CHECKS), games, strict=False) for state in states]
        problem = _check(game, derived, checks, rng)
        if problem is None:
            return None if derived.count == 1 else derived
        for state in checks:  # positions that told two features apart: derive again with them
            probes.add(state)
    raise _refuse(game, str(problem))


def augment(game: Game, state: Any, policy: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``(planes, policy, legal mask)`` for ``state`` and each of its symmetric images (the scalar
    path: one position, its images built by the game)."""
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


def _probe_games(game: Game, rng: np.random.Generator) -> Iterator[list[Any]]:
    """Seeded random games, endlessly: up to ``PROBE_PER_GAME`` positions of each, not over,
    at plies drawn from the whole game."""
    while True:
        seen: list[Any] = []
        state = game.initial_state()
        for _ in range(PROBE_PLIES):
            if game.is_terminal(state):
                break
            seen.append(state)
            legal = game.legal_actions(state)
            state = game.apply(state, legal[int(rng.integers(len(legal)))])
        if len(seen) > PROBE_PER_GAME:
            seen = [seen[i] for i in sorted(rng.choice(len(seen), PROBE_PER_GAME, replace=False))]
        yield seen


def _images(game: Game, state: Any) -> tuple[np.ndarray, np.ndarray]:
    """The flattened planes (K, F) and the image of the policy ``0..A-1`` (K, A) of ``state``."""
    identity = np.arange(game.num_actions, dtype=np.float32)
    images = cast(HasSymmetries[Any], game).symmetries(state, identity)
    planes = np.stack([np.asarray(p, dtype=np.float32).reshape(-1) for p, _ in images])
    return planes, np.stack([np.asarray(a, dtype=np.float32) for _, a in images])


def _refuse(game: Game, why: str) -> BoardgymError:
    return BoardgymError(
        f"{game.name}'s symmetries are not index maps of its planes and actions ({why}), so the replay "
        "buffer cannot augment them in batch; make its symmetries permute cells and actions"
    )


class _Probes:
    """The images of the probe positions so far: each position's flattened planes (K, F) and
    image of the policy ``0..A-1`` (K, A)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.planes: list[np.ndarray] = []
        self.actions: list[np.ndarray] = []
        self.traces = np.zeros(0, dtype=np.uint64)  # a running hash of each identity feature's values

    def add(self, state: Any) -> None:
        planes, actions = _images(self.game, state)
        if self.planes and (planes.shape != self.planes[0].shape or actions.shape != self.actions[0].shape):
            raise _refuse(self.game, "its number of images changes from one position to the next")
        if not self.planes:
            self.traces = np.zeros(planes.shape[1], dtype=np.uint64)
        self.traces = self.traces * np.uint64(1_000_003) + planes[0].view(np.uint32).astype(np.uint64)
        self.planes.append(planes)
        self.actions.append(actions)

    def play(self, games: Iterator[list[Any]], bounds: tuple[int, int]) -> None:
        """Add the positions of between ``bounds`` games, stopping once ``PROBE_SETTLED`` games
        in a row tell no two features apart that were alike."""
        kinds, settled = 0, 0
        for played in range(1, bounds[1] + 1):
            for state in next(games):
                self.add(state)
            before, kinds = kinds, len(np.unique(self.traces))
            settled = settled + 1 if kinds == before else 0
            if played >= bounds[0] and (settled >= PROBE_SETTLED or kinds == len(self.traces)):
                break
        if not self.planes:
            raise _refuse(self.game, "its random games end before their first move")

    def maps(self) -> SymmetryMaps:
        """Maps that agree with the game's images on every probe position."""
        game, actions = self.game, self.actions[0]
        if any(not np.array_equal(other, actions) for other in self.actions):
            raise _refuse(game, "where an action goes depends on the position")
        ordered = np.broadcast_to(np.arange(game.num_actions, dtype=np.float32), actions.shape)
        if not np.array_equal(np.sort(actions, axis=1), ordered):
            raise _refuse(game, "an image of the policy is not a permutation of it")
        planes = np.stack(self.planes, axis=1)  # (K, N, F)
        count, features = planes.shape[0], planes.shape[2]
        identity: dict[bytes, list[int]] = {}  # a feature's values over the positions -> such features
        columns = np.ascontiguousarray(planes[0].T)
        for f in range(features):
            identity.setdefault(columns[f].tobytes(), []).append(f)
        plane_maps = np.empty((count, features), dtype=np.int64)
        for k in range(count):
            image = np.ascontiguousarray(planes[k].T)
            used: set[int] = set()
            for f in range(features):
                matches = identity.get(image[f].tobytes())
                if matches is None:
                    raise _refuse(game, f"feature {f} of image {k} copies no feature of the position")
                # A constant plane matches itself first; otherwise a feature not taken yet.
                pick = f if f in matches else next((m for m in matches if m not in used), matches[0])
                plane_maps[k, f] = pick
                used.add(pick)
        return SymmetryMaps(torch.from_numpy(plane_maps), torch.from_numpy(actions.astype(np.int64)))


def _check(game: Game, maps: SymmetryMaps, states: list[Any], rng: np.random.Generator) -> str | None:
    """What differs between the rows ``maps`` make of ``states`` and the scalar ``augment``'s
    (None: nothing, bit for bit)."""
    if not states:
        return None
    expected = maps.actions.numpy().astype(np.float32)
    if any(not np.array_equal(_images(game, state)[1], expected) for state in states):
        return "where an action goes depends on the position"
    if math.prod(game.observation_shape) != maps.planes.shape[1]:
        return f"its images have {maps.planes.shape[1]} features, not {game.observation_shape}"
    policies = rng.random((len(states), game.num_actions)).astype(np.float32)
    planes = np.stack(
        [np.asarray(game.observation(state, game.current_player(state)), dtype=np.float32) for state in states]
    )
    legal = np.stack([game.legal_mask(state) for state in states]).astype(bool)
    got = maps.apply(
        torch.from_numpy(planes), torch.from_numpy(policies), torch.from_numpy(legal), torch.zeros(len(states))
    )
    want = [image for state, policy in zip(states, policies, strict=True) for image in augment(game, state, policy)]
    if len(want) != got[0].shape[0]:
        return "its number of images changes from one position to the next"
    for index, name in enumerate(("planes", "policy", "legal mask")):
        stacked = torch.from_numpy(np.stack([np.asarray(image[index]) for image in want]))
        if stacked.shape != got[index].shape or not torch.equal(got[index], stacked.to(got[index].dtype)):
            return f"the {name} of a position's images differ from what the game gives"
    return None
