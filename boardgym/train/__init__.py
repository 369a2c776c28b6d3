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

from boardgym.registry import CommandEntry


@dataclass(frozen=True)
class MethodEntry(CommandEntry):
    """``target``: the method's ``main``; ``options``: its ``Config``; ``agent``: the agent name
    that loads its checkpoints (``make_agent(f"{agent}:checkpoint=...", game)``)."""

    agent: str = ""


def _method(module: str, summary: str, agent: str) -> MethodEntry:
    return MethodEntry(f"boardgym.train.{module}:main", summary, f"boardgym.train.{module}:Config", agent)


METHODS: dict[str, MethodEntry] = {
    "qlearning": _method("qlearning", "tabular Q-learning, self-play or vs a fixed agent (small games)", "qlearning"),
    "montecarlo": _method("montecarlo", "tabular Monte Carlo control, self-play or vs a fixed agent", "montecarlo"),
    "ppo": _method("ppo", "MaskablePPO on the gym envs, vs a fixed agent or a pool of past selves", "ppo"),
    "es": _method("es", "evolution strategy / GA for Nim players (seed rules or nim-sum-capable weights)", "es"),
    "coevolve": _method("coevolve", "coevolution of alpha-beta evaluation weights by cup tournaments", "coevolved"),
    "neat": _method("neat", "NEAT networks (neat-python) vs random, shallow minimax and each other", "neat"),
    "alphazero": _method("alphazero", "AlphaZero: batched PUCT self-play, ResNet, CUDA when there", "alphazero"),
}

__all__ = ["METHODS", "MethodEntry"]
