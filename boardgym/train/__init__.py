"""Training scripts, one module per method. Each module offers a frozen ``Config``
dataclass, ``train(config) -> Path`` (the final checkpoint) and ``main(argv)``; it runs as
``boardgym train METHOD --game GAME`` and as ``python -m boardgym.train.METHOD``.

METHODS maps a method name to its module and a one-line summary; adding a method means
adding its line here.
"""

from __future__ import annotations

METHODS: dict[str, tuple[str, str]] = {
    "qlearning": ("boardgym.train.qlearning", "tabular Q-learning, self-play or vs a fixed agent (small games)"),
    "montecarlo": ("boardgym.train.montecarlo", "tabular Monte Carlo control, self-play or vs a fixed agent"),
    "ppo": ("boardgym.train.ppo", "MaskablePPO on the gym envs, vs a fixed agent or a pool of past selves"),
    "es": ("boardgym.train.es", "evolution strategy / GA for Nim players (seed rules or nim-sum-capable weights)"),
    "coevolve": ("boardgym.train.coevolve", "coevolution of alpha-beta evaluation weights by cup tournaments"),
    "neat": ("boardgym.train.neat", "NEAT networks (neat-python) vs random, shallow minimax and each other"),
    "alphazero": ("boardgym.train.alphazero", "AlphaZero: batched PUCT self-play, ResNet, CUDA when there"),
}

__all__ = ["METHODS"]
