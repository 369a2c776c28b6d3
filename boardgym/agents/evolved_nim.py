"""Evolved Nim players: two genomes and the agent that plays a saved one.

``rules`` — the seed report's parameterised rule policy (000), three genes in [0, 1]:

- ``odd``: if the share of heaps holding an odd number of objects exceeds ``odd``, move in
  the first odd heap; otherwise move in the first non-empty heap with probability
  ``first_last``, else the last one;
- ``take_all``: take the whole heap with probability ``take_all``, else one object.

It is stochastic and cannot express nim-sum play.

``weights`` — a linear evaluation of the position a move leaves to the opponent, with one
weight per feature (``FEATURES``): each bit of the nim-sum, the share of non-empty and of
odd heaps, the parity of non-empty heaps, the share of objects left, and two misère
end-game flags. The move with the highest score is played (ties at random). Negative
weights on every nim-sum bit, and nothing much elsewhere, is Bouton's perfect normal play;
the end-game flags let it express misère play too. Evolution has to find that.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np

from boardgym.agents.base import BaseAgent
from boardgym.checkpoints import check_finite, checkpoint_content, load_checkpoint
from boardgym.game import Game
from boardgym.games.nim import Nim, NimState
from boardgym.types import Action, BoardgymError

FORMAT = "boardgym.evolved_nim/1"
GENOMES = ("rules", "weights")
RULE_GENES = ("odd", "first_last", "take_all")


def feature_names(game: Nim) -> list[str]:
    bits = max(game.heaps).bit_length()
    return [f"nim_sum_bit{b}" for b in range(bits)] + [
        "nonempty_share",
        "nonempty_odd",
        "odd_heaps_share",
        "objects_left_share",
        "endgame_odd_ones",
        "endgame_even_ones",
    ]


def genome_size(game: Nim, kind: str) -> int:
    return len(RULE_GENES) if kind == "rules" else len(feature_names(game))


class NimPolicy:
    """A genome turned into a move chooser over Nim states; caches per state what it can."""

    def __init__(self, game: Nim, kind: str, genes: np.ndarray | list[float]) -> None:
        if kind not in GENOMES:
            raise BoardgymError(f"genome kind {kind!r} must be one of: {', '.join(GENOMES)}")
        self.game = game
        self.kind = kind
        self.genes = [float(g) for g in genes]
        if len(self.genes) != genome_size(game, kind):
            raise BoardgymError(
                f"a {kind} genome for {game!r} has {genome_size(game, kind)} genes, not {len(self.genes)}"
            )
        self._best: dict[tuple[int, ...], list[Action]] = {}
        self._total = sum(game.heaps)
        self._bits = max(game.heaps).bit_length()

    def act(self, state: NimState, rand: random.Random) -> Action:
        heaps = self.game.heaps_of(state)
        if self.kind == "rules":
            return self._rule_move(heaps, rand)
        best = self._best.get(heaps)
        if best is None:
            best = self._best[heaps] = self._best_moves(state)
        return best[int(rand.random() * len(best))] if len(best) > 1 else best[0]

    def features(self, heaps: tuple[int, ...]) -> list[float]:
        """The ``weights`` genome's features of a position (see the module docstring)."""
        nim_sum = 0
        for n in heaps:
            nim_sum ^= n
        count = len(heaps)
        nonempty = sum(1 for n in heaps if n)
        endgame = all(n <= 1 for n in heaps)
        return [float(nim_sum >> b & 1) for b in range(self._bits)] + [
            nonempty / count,
            float(nonempty % 2),
            sum(n % 2 for n in heaps) / count,
            sum(heaps) / self._total,
            float(endgame and nonempty % 2 == 1),
            float(endgame and nonempty % 2 == 0),
        ]

    def _best_moves(self, state: NimState) -> list[Action]:
        weights = self.genes
        scored = []
        for action in self.game.legal_actions(state):
            after = self.game.heaps_of(self.game.apply(state, action))
            scored.append((sum(w * f for w, f in zip(weights, self.features(after), strict=True)), action))
        top = max(score for score, _ in scored)
        return [action for score, action in scored if score >= top - 1e-12]

    def _rule_move(self, heaps: tuple[int, ...], rand: random.Random) -> Action:
        odd_gene, first_last, take_all = self.genes
        odd = [i for i, n in enumerate(heaps) if n % 2]
        if odd and len(odd) / len(heaps) > odd_gene:
            heap = odd[0]
        else:
            nonempty = [i for i, n in enumerate(heaps) if n]
            heap = nonempty[0] if rand.random() < first_last else nonempty[-1]
        take = min(heaps[heap], self.game.max_take) if rand.random() < take_all else 1
        return heap * self.game.max_take + take - 1


class EvolvedNimAgent(BaseAgent):
    """The best genome of a ``boardgym train es`` run."""

    def __init__(self, game: Game, *, seed: int | None = None, checkpoint: Path | None = None) -> None:
        super().__init__(game, seed=seed)
        if not isinstance(game, Nim):
            raise BoardgymError(f"the es agent plays Nim only, not {game.name}")
        payload = load_checkpoint(checkpoint, format=FORMAT, game=game, required=("genome_kind", "best"), method="es")
        with checkpoint_content(checkpoint, method="es", game=game):
            check_finite(payload["best"], "best")
            self.policy = NimPolicy(game, str(payload["genome_kind"]), payload["best"].tolist())
        self._rand = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None:
            self._rand = random.Random(seed)

    def act(self, game: Game, state: Any) -> Action:
        return self.policy.act(state, self._rand)
