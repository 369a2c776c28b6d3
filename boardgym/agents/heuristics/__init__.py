"""Evaluation functions for alpha-beta, one module per game, chosen by name.

A ``Heuristic`` scores a non-terminal state for a player: positive is good for that player,
and the scale is the heuristic's own (alpha-beta clips it to +-100 000, well inside the win
score). It may also order moves (``OrdersMoves``): the order in which alpha-beta tries moves
after the transposition table's move.

A game's own heuristics are named in its ``GAMES`` entry (``heuristics``: name ->
"module:Class"); the first is its default. Every game also has ``random`` (a random score: the
seed reports' baseline) and, where the rules declare ``HasFeatures``, ``features``: a weighted
sum of those features, so that evolved weights plug in (``make_heuristic(game, "features",
weights=[...])``). A game with none of its own still gets ``random`` and, with features,
``features``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from boardgym.game import Game, HasFeatures
from boardgym.games import entry_of
from boardgym.registry import load
from boardgym.types import Action, BoardgymError, Player

_HERE = "boardgym.agents.heuristics"

GENERIC: dict[str, str] = {
    "random": f"{_HERE}:RandomScore",
    "features": f"{_HERE}:FeatureSum",
}


@runtime_checkable
class Heuristic(Protocol):
    rng: np.random.Generator

    def evaluate(self, state: Any, player: Player) -> float: ...


@runtime_checkable
class OrdersMoves(Protocol):
    """A heuristic that also says in which order alpha-beta should try ``moves`` in ``state``
    (all of them, best first)."""

    def order_moves(self, state: Any, moves: list[Action]) -> list[Action]: ...


def own_heuristics(game: Game) -> dict[str, str]:
    """The game's own heuristics, name -> ``"module:Class"`` (its ``GAMES`` entry's)."""
    entry = entry_of(game)
    return entry.heuristics if entry is not None else {}


def heuristic_names(game: Game) -> list[str]:
    """The evaluation names ``minimax:eval=NAME`` accepts for ``game``, its default first."""
    names = list(own_heuristics(game))
    names.append("random")
    if isinstance(game, HasFeatures):
        names.append("features")
    return names


def make_heuristic(
    game: Game,
    name: str | None = None,
    *,
    rng: np.random.Generator | None = None,
    weights: Sequence[float] | None = None,
) -> Heuristic:
    """Build the heuristic ``name`` (default: the game's first) for ``game``."""
    rng = rng if rng is not None else np.random.default_rng()
    names = heuristic_names(game)
    if name is None:
        name = names[0]
    if name not in names:
        raise BoardgymError(f"no evaluation {name!r} for {game.name}; choose eval= one of: {', '.join(names)}")
    if weights is not None and name != "features":
        raise BoardgymError(f"weights are for eval=features only, not eval={name}")
    target = own_heuristics(game).get(name) or GENERIC[name]
    heuristic_cls = load(target)
    if name == "features":
        return heuristic_cls(game, rng, weights)
    return heuristic_cls(game, rng)


class RandomScore:
    """A uniform random score in [-1, 1]: alpha-beta then only sees wins and losses within its
    horizon (the seed reports' "random evaluation" baseline)."""

    def __init__(self, game: Game, rng: np.random.Generator) -> None:
        self.rng = rng

    def evaluate(self, state: Any, player: Player) -> float:
        return float(self.rng.random()) * 2.0 - 1.0


class FeatureSum:
    """``weights . game.features(state, player)``; the game's ``feature_weights`` unless given."""

    def __init__(
        self, game: HasFeatures[Any], rng: np.random.Generator, weights: Sequence[float] | None = None
    ) -> None:
        self.rng = rng
        self.features = game.features
        if weights is None:
            weights = game.feature_weights
        size = len(game.feature_weights)
        if len(weights) != size:
            raise BoardgymError(f"{game!r} has {size} features but {len(weights)} weights were given")
        self.weights = [float(w) for w in weights]

    def evaluate(self, state: Any, player: Player) -> float:
        return float(sum(w * f for w, f in zip(self.weights, self.features(state, player), strict=True)))
