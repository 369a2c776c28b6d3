"""Alpha-beta with a coevolved evaluation: ``weights . game.features(state, player)``.

The weights come from ``boardgym train coevolve`` (seed report 002); the search is the
``minimax`` agent's, at the depth the run evolved for unless ``depth=`` says otherwise:
``coevolved:checkpoint=runs/rastros/coevolve/<run>/final.pt,depth=3``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from boardgym.agents.minimax import MinimaxAgent
from boardgym.checkpoints import check_finite, checkpoint_content, load_checkpoint
from boardgym.game import Game, HasFeatures
from boardgym.types import BoardgymError

FORMAT = "boardgym.coevolved/1"


def weighted_minimax(game: Game, weights: Sequence[float], depth: int, seed: int | None = None) -> MinimaxAgent:
    """A minimax agent whose evaluation is ``weights`` over the game's features."""
    agent = MinimaxAgent(game, seed=seed, depth=depth, eval="features")
    agent.heuristic.weights = [float(w) for w in weights]  # type: ignore[attr-defined]
    return agent


def feature_count(game: Game) -> int:
    if not isinstance(game, HasFeatures):
        raise BoardgymError(
            f"{game.name} has no features(state, player) to weigh; coevolution needs a game that defines them "
            "(rastros does)"
        )
    return len(game.features(game.initial_state(), 0))


class CoevolvedAgent(MinimaxAgent):
    """Alpha-beta to ``depth`` plies with the evolved weights of a checkpoint, or with weights
    written in the spec (``weights=3/2/0/0``, slash separated), or with weights drawn
    uniformly from [-1, 1] anew at each game's start (``weights=random``: the baseline)."""

    def __init__(
        self,
        game: Game,
        *,
        seed: int | None = None,
        checkpoint: Path | None = None,
        weights: str | None = None,
        depth: int | None = None,
    ) -> None:
        size = feature_count(game)
        if (checkpoint is None) == (weights is None):
            raise BoardgymError(
                "the coevolved agent needs checkpoint=PATH (evolved by `boardgym train coevolve --game rastros`) "
                "or weights=W1/W2/... or weights=random, not both"
            )
        self.redraw = weights == "random"
        if checkpoint is not None:
            payload = load_checkpoint(
                checkpoint, format=FORMAT, game=game, required=("best", "depth"), method="coevolve"
            )
            with checkpoint_content(checkpoint, method="coevolve", game=game):
                if depth is None:
                    depth = int(payload["depth"])
                check_finite(payload["best"], "best")
                chosen = [float(w) for w in payload["best"].tolist()]
                if len(chosen) != size:
                    raise ValueError(f"best holds {len(chosen)} weights, the game has {size} features")
        elif self.redraw:
            chosen = [0.0] * size
        else:
            chosen = _parse_weights(str(weights), size)
        super().__init__(game, seed=seed, depth=2 if depth is None else depth, eval="features")
        self.weights = chosen if not self.redraw else self.rng.uniform(-1, 1, size).tolist()
        self.heuristic.weights = list(self.weights)  # type: ignore[attr-defined]

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.redraw:
            self.weights = self.rng.uniform(-1, 1, len(self.weights)).tolist()
            self.heuristic.weights = list(self.weights)  # type: ignore[attr-defined]


def _parse_weights(text: str, size: int) -> list[float]:
    try:
        values = [float(part) for part in text.split("/")]
    except ValueError:
        raise BoardgymError(f"weights={text!r} must be numbers separated by '/', e.g. weights=0/-1/1/0") from None
    if not all(math.isfinite(v) for v in values):
        raise BoardgymError(f"weights={text!r} must be finite numbers (no nan or inf), e.g. weights=0/-1/1/0")
    if len(values) != size:
        raise BoardgymError(f"weights={text!r} has {len(values)} numbers but the game has {size} features")
    return values
