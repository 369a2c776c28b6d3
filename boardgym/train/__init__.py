"""Training scripts, one module per method (or a package, one concern a module, where a method
has grown several: ``alphazero``). Each offers a frozen ``Config`` dataclass
(extending ``boardgym.train.training_run.RunConfig``), ``train(config) -> Path`` (the final checkpoint)
and ``main(argv)``; it runs as ``boardgym train METHOD --game GAME`` and as
``python -m boardgym.train.METHOD``. The steps every method shares (run folder, lock, resume,
config.json, TensorBoard, progress bar, measurement, checkpoints) are ``TrainingRun``'s
(``boardgym.train.training_run``); a method's module holds only its own loop.

METHODS maps a method name to its ``main``, a one-line summary and the agent that plays its
``final.pt``; adding a method means adding its line here.
"""

from __future__ import annotations

from dataclasses import dataclass

from boardgym.registry import Entry


@dataclass(frozen=True)
class MethodEntry(Entry):
    """``target``: the method's ``main``; ``agent``: the agent name that loads its checkpoints
    (``make_agent(f"{agent}:checkpoint=...", game)``)."""

    agent: str = ""


METHODS: dict[str, MethodEntry] = {
    "qlearning": MethodEntry(
        "boardgym.train.qlearning:main",
        "tabular Q-learning, self-play or vs a fixed agent (small games)",
        "qlearning",
    ),
    "montecarlo": MethodEntry(
        "boardgym.train.montecarlo:main", "tabular Monte Carlo control, self-play or vs a fixed agent", "montecarlo"
    ),
    "ppo": MethodEntry(
        "boardgym.train.ppo:main", "MaskablePPO on the gym envs, vs a fixed agent or a pool of past selves", "ppo"
    ),
    "es": MethodEntry(
        "boardgym.train.es:main",
        "evolution strategy / GA for Nim players (seed rules or nim-sum-capable weights)",
        "es",
    ),
    "coevolve": MethodEntry(
        "boardgym.train.coevolve:main",
        "coevolution of alpha-beta evaluation weights by cup tournaments",
        "coevolved",
    ),
    "neat": MethodEntry(
        "boardgym.train.neat:main", "NEAT networks (neat-python) vs random, shallow minimax and each other", "neat"
    ),
    "alphazero": MethodEntry(
        "boardgym.train.alphazero:main", "AlphaZero: batched PUCT self-play, ResNet, CUDA when there", "alphazero"
    ),
}

__all__ = ["METHODS", "MethodEntry"]
