"""Self-play in several processes (``--workers N``): one per CPU core where the search, which
is Python, is the bottleneck. Each worker keeps its own copy of the network (sent as a
state_dict at every round, so it plays with the latest weights) and plays its share of the
games with the engine of the settings' search (``selfplay.engine_for``), as the main process
would; the replay rows and records come back to the trainer.

Workers start with ``spawn`` (safe with CUDA and with torch's thread pools) and use one torch
thread each; they are a ``boardgym.procs.WorkerPool``, so they end with the trainer however it
ends (an error, Ctrl-C, SIGTERM, ``kill -9``). Seeds: the trainer passes ``(seed, iteration)``
and worker ``w`` draws from ``SeedSequence([seed, iteration, w])``, so a run is reproducible
for a given number of workers.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import torch

from boardgym.agents.alphazero.network import AlphaZeroNet
from boardgym.game import Game
from boardgym.games import make_game
from boardgym.procs import WorkerPool
from boardgym.train.alphazero.config import Config
from boardgym.train.alphazero.selfplay import SelfPlayResult, SelfPlaySettings, engine_for


class SelfPlayPool:
    """``workers`` processes playing self-play games with the weights they are given
    (``selfplay.SelfPlay``); ``settings``, ``parallel`` (games at once in each) and ``seed``
    are the run's."""

    def __init__(
        self,
        workers: int,
        game: Game,
        device: str,
        amp: bool,
        *,
        settings: SelfPlaySettings | None = None,
        parallel: int = Config.parallel_games,
        seed: int = 0,
    ) -> None:
        self.workers = workers
        self.game = game
        self.settings = SelfPlaySettings() if settings is None else settings
        self.parallel, self.seed = parallel, seed
        self._setup = (game.name, game.params(), device, amp)
        self._pool = WorkerPool(workers, start_method="spawn", initializer=_init_worker)

    def play(
        self, network: AlphaZeroNet, num_games: int, *, step: int, rng: np.random.Generator | None = None
    ) -> SelfPlayResult:
        """``num_games`` games split over the workers; worker ``w`` draws its randomness from
        ``SeedSequence([seed, step, w])`` (``rng`` is not used)."""
        return self.play_seeded(
            network, num_games, parallel=self.parallel, settings=self.settings, seed=(self.seed, step)
        )

    def play_seeded(
        self, network: AlphaZeroNet, num_games: int, *, parallel: int, settings: SelfPlaySettings, seed: tuple[int, ...]
    ) -> SelfPlayResult:
        """``num_games`` games split over the workers, ``parallel`` at a time in each; worker
        ``w`` draws its randomness from ``SeedSequence([*seed, w])``."""
        started = time.perf_counter()
        weights = {k: v.detach().cpu() for k, v in network.state_dict().items()}
        architecture = network.architecture()
        jobs = [
            self._pool.submit(
                _play_share,
                self._setup,
                architecture,
                weights,
                share,
                max(1, min(parallel, share)),
                settings,
                [*seed, w],
            )
            for w, share in enumerate(split_games(num_games, self.workers))
            if share
        ]
        merged = merge_results([job.result() for job in jobs])
        merged.seconds = time.perf_counter() - started
        return merged

    def close(self) -> None:
        """End the workers: at once when called with games still being played (an error,
        Ctrl-C, SIGTERM), else once they are idle (``WorkerPool.close``)."""
        self._pool.close()


def split_games(num_games: int, workers: int) -> list[int]:
    """How many of ``num_games`` each of ``workers`` plays: as even as can be, the first ones
    one more."""
    return [num_games // workers + (w < num_games % workers) for w in range(workers)]


def merge_results(parts: list[SelfPlayResult]) -> SelfPlayResult:
    """The workers' results as one, in the order given (rows, records, outcomes and counts)."""
    merged = SelfPlayResult()
    for part in parts:
        merged.add(part)
    return merged


def play_share(
    game: Game,
    architecture: dict[str, Any],
    weights: dict[str, torch.Tensor],
    device: str,
    amp: bool,
    num_games: int,
    parallel: int,
    settings: SelfPlaySettings,
    seed_words: list[int],
) -> SelfPlayResult:
    """One worker's share of an iteration: ``num_games`` games with the network that
    ``architecture`` and ``weights`` describe, randomness from ``SeedSequence(seed_words)``."""
    network = AlphaZeroNet.from_architecture(architecture)
    network.load_state_dict(weights)
    network.to(device).eval()
    rng = np.random.default_rng(np.random.SeedSequence(seed_words))
    played = engine_for(game, settings).play(network, num_games, parallel=parallel, settings=settings, rng=rng, amp=amp)
    if played.rows is not None:  # sent back through a pipe: on the CPU
        played.rows = played.rows.to("cpu")
    return played


_WORKER_GAME: dict[tuple, Game] = {}
"""The games a worker process has built, by name and parameters (one per run, built once)."""


def _init_worker() -> None:
    torch.set_num_threads(1)


def _play_share(
    setup: tuple[str, dict[str, Any], str, bool],
    architecture: dict[str, Any],
    weights: dict[str, torch.Tensor],
    num_games: int,
    parallel: int,
    settings: SelfPlaySettings,
    seed_words: list[int],
) -> SelfPlayResult:
    name, params, device, amp = setup
    key = (name, repr(params))
    if key not in _WORKER_GAME:
        _WORKER_GAME[key] = make_game(name, **params)
    return play_share(_WORKER_GAME[key], architecture, weights, device, amp, num_games, parallel, settings, seed_words)
