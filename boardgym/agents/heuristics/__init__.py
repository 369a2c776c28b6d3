"""Evaluation functions for alpha-beta, one module per game, chosen by name.

A ``Heuristic`` scores a non-terminal state for a player: positive is good for that player,
and the scale is the heuristic's own (alpha-beta clips it to +-100 000, well inside the win
score). It may also offer ``order_moves(state, moves)``, the order in which alpha-beta tries
moves after the transposition table's move.

``HEURISTICS[game][name]`` is "module:Class"; the first name listed for a game is its default.
Every game also has ``random`` (a random score: the seed reports' baseline) and, where the
rules define ``features(state, player)``, ``features``: a weighted sum of those features, so
that evolved weights plug in (``make_heuristic(game, "features", weights=[...])``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from boardgym.game import Game
from boardgym.registry import load
from boardgym.types import BoardgymError, Player

_HERE = "boardgym.agents.heuristics"

HEURISTICS: dict[str, dict[str, str]] = {
    "tictactoe": {"lines": f"{_HERE}.tictactoe:OpenLines"},
    "connect_four": {"windows": f"{_HERE}.connect_four:OpenWindows"},
    "nim": {"nimsum": f"{_HERE}.nim:NimSum"},
    "hex": {"dijkstra": f"{_HERE}.hex:ShortestPath", "twodistance": f"{_HERE}.hex:TwoDistance"},
    "quarto": {"safe": f"{_HERE}.quarto:SafePieces"},
    "quixo": {"lines": f"{_HERE}.quixo:LinePotential"},
    "rastros": {"paths": f"{_HERE}.rastros:GoalDistance"},
}

# Default weights of ``features`` where all-ones would make no sense (rastros: its four
# features are distance to the base, to the own goal, to the opponent's goal, mobility; the
# others list the player's features, then the opponent's, so the defaults are + then -).
DEFAULT_WEIGHTS: dict[str, tuple[float, ...]] = {
    "rastros": (0.0, -1.0, 1.0, 0.0),
    "tictactoe": (2.0, 1.0, -2.0, -1.0, 1.0),
    "quixo": (1.0, 1.0, -1.0, -1.0, 1.0),
    "hex": (1.0, -1.0, 1.0, -1.0),
}

GENERIC: dict[str, str] = {
    "random": f"{_HERE}:RandomScore",
    "features": f"{_HERE}:FeatureSum",
}


@runtime_checkable
class Heuristic(Protocol):
    rng: np.random.Generator

    def evaluate(self, state: Any, player: Player) -> float: ...


def heuristic_names(game: Game) -> list[str]:
    """The evaluation names ``minimax:eval=NAME`` accepts for ``game``, its default first."""
    names = list(HEURISTICS.get(game.name, {}))
    names.append("random")
    if hasattr(game, "features"):
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
    target = HEURISTICS.get(game.name, {}).get(name) or GENERIC[name]
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
    """``weights . game.features(state, player)``; all weights 1 unless given."""

    def __init__(self, game: Game, rng: np.random.Generator, weights: Sequence[float] | None = None) -> None:
        self.rng = rng
        self.features = game.features  # type: ignore[attr-defined]
        size = len(self.features(game.initial_state(), 0))
        if weights is None:
            weights = DEFAULT_WEIGHTS.get(game.name, (1.0,) * size)
        if len(weights) != size:
            raise BoardgymError(f"{game.name} has {size} features but {len(weights)} weights were given")
        self.weights = [float(w) for w in weights]

    def evaluate(self, state: Any, player: Player) -> float:
        return float(sum(w * f for w, f in zip(self.weights, self.features(state, player), strict=True)))
