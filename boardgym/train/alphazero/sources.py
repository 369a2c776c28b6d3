"""Where the trainer's self-play runs, chosen once from its config (``make_selfplay``): in this
process (``LocalSelfPlay``), in worker processes (``workers.SelfPlayPool``) or on Ray actors
(``ray_actors.RaySelfPlayPool``); each a ``selfplay.SelfPlay``."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import torch

from boardgym.agents.alphazero.network import AlphaZeroNet
from boardgym.game import Game
from boardgym.train.alphazero.config import resolve_worker_device, worker_device_name
from boardgym.train.alphazero.selfplay import SelfPlay, SelfPlayResult, SelfPlaySettings, engine_for
from boardgym.train.alphazero.workers import SelfPlayPool


class LocalSelfPlay:
    """Self-play in this process, with the engine of the settings' search. The batched
    engine's games in flight go on from one call to the next (``keep``), so its batch stays
    full; the tree engine plays each call's games to their end."""

    def __init__(self, game: Game, settings: SelfPlaySettings, parallel: int, amp: bool = False) -> None:
        self.settings = settings
        self.parallel = parallel
        self.amp = amp
        self.engine = engine_for(game, settings)

    def play(self, network: AlphaZeroNet, num_games: int, *, step: int, rng: np.random.Generator) -> SelfPlayResult:
        return self.engine.play(
            network, num_games, parallel=self.parallel, settings=self.settings, rng=rng, amp=self.amp, keep=True
        )

    def close(self) -> None:
        pass


def make_selfplay(config: Any, game: Game, device: torch.device, workers: int, amp: bool) -> SelfPlay:
    """The trainer's self-play, chosen once from its config: Ray actors (``--backend ray``),
    worker processes (``--workers`` > 1) or this process on ``device``."""
    settings = SelfPlaySettings.from_config(config)
    if config.backend == "ray":
        from boardgym.train.alphazero.ray_actors import RaySelfPlayPool  # Ray is an optional extra

        return RaySelfPlayPool(
            config.actors,
            game,
            settings=settings,
            parallel=config.parallel_games,
            seed=config.seed,
            device=worker_device_name(config.worker_device),
            amp=config.amp,
            address=config.address,
            num_cpus=max(config.actors, os.cpu_count() or 1),
        )
    if workers > 1:
        worker_device = resolve_worker_device(config.worker_device)
        return SelfPlayPool(
            workers,
            game,
            str(worker_device),
            config.amp and worker_device.type == "cuda",
            settings=settings,
            parallel=config.parallel_games,
            seed=config.seed,
        )
    return LocalSelfPlay(game, settings, config.parallel_games, amp=amp and device.type == "cuda")
