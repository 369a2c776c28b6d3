"""Training scripts, one module per method. Each module offers a frozen ``Config``
dataclass, ``train(config) -> Path`` (the final checkpoint) and ``main(argv)``; it runs as
``boardgym train METHOD --game GAME`` and as ``python -m boardgym.train.METHOD``.

METHODS maps a method name to its ``main`` and a one-line summary; adding a method means
adding its line here.
"""

from __future__ import annotations

from boardgym.registry import Entry

METHODS: dict[str, Entry] = {
    "qlearning": Entry(
        "boardgym.train.qlearning:main", "tabular Q-learning, self-play or vs a fixed agent (small games)"
    ),
    "montecarlo": Entry("boardgym.train.montecarlo:main", "tabular Monte Carlo control, self-play or vs a fixed agent"),
    "ppo": Entry("boardgym.train.ppo:main", "MaskablePPO on the gym envs, vs a fixed agent or a pool of past selves"),
    "es": Entry(
        "boardgym.train.es:main", "evolution strategy / GA for Nim players (seed rules or nim-sum-capable weights)"
    ),
    "coevolve": Entry(
        "boardgym.train.coevolve:main", "coevolution of alpha-beta evaluation weights by cup tournaments"
    ),
    "neat": Entry("boardgym.train.neat:main", "NEAT networks (neat-python) vs random, shallow minimax and each other"),
    "alphazero": Entry("boardgym.train.alphazero:main", "AlphaZero: batched PUCT self-play, ResNet, CUDA when there"),
}

__all__ = ["METHODS"]
