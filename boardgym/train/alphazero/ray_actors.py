"""Self-play on Ray: ``actors`` long-lived Ray actors, on this machine or across a cluster,
play the batched self-play games of each iteration with the latest weights and send the
positions back to the learner (``boardgym train alphazero --backend ray --actors N``).

Per iteration the learner puts the network's state_dict into Ray's object store once
(``ray.put``); every actor receives that one object and plays its share of the games, as the
processes of ``SelfPlayPool`` do: the split, the seeds (actor ``w`` draws from
``SeedSequence([seed, iteration, w])``) and the merge are the same, so a run with N actors
plays the same games as one with ``--workers N``.

Each actor takes one CPU, and where the cluster has GPUs (with ``--worker-device auto`` or ``cuda``) an
even fraction of them, and then plays on CUDA; otherwise on its CPU. An actor that dies (its
process killed, its machine lost) is restarted by Ray (``max_restarts``), and the iteration
asks it again for the games it owed, with the same seeds, so the iteration's positions are
the same as without the loss. An actor whose restarts are used up is replaced by a new one.
The first share asked again is said once, on stderr. A Ray system process that dies (the
raylet, the GCS) is ``boardgym.cluster.RayLost``, one sentence; the run says how to resume.
"""

from __future__ import annotations

import os
import time
from typing import Any

import torch

from boardgym.agents.alphazero.agent import resolve_device
from boardgym.agents.alphazero.network import AlphaZeroNet
from boardgym.cluster import connect_ray, gpu_share, ray_system_errors, say_once
from boardgym.game import Game
from boardgym.games import make_game
from boardgym.train.alphazero.config import Config
from boardgym.train.alphazero.selfplay import SelfPlayResult, SelfPlaySettings
from boardgym.train.alphazero.workers import merge_results, play_share, split_games
from boardgym.types import BoardgymError

MAX_RESTARTS = 3
"""How often Ray restarts an actor that died."""


class SelfPlayActor:
    """One self-play actor (made a Ray actor by ``RaySelfPlayPool``): the game, built once, and
    its device: ``cuda`` when it was given a GPU share (``device="cuda"``), else ``cpu``."""

    def __init__(self, game_name: str, game_params: dict[str, Any], device: str, amp: bool) -> None:
        torch.set_num_threads(1)  # one CPU per actor; the search is Python-bound
        self.game = make_game(game_name, **game_params)
        # Given a GPU share, Ray has set CUDA_VISIBLE_DEVICES to it; a node whose torch has no
        # CUDA plays on its CPU rather than failing.
        self.device = str(resolve_device("auto")) if device == "cuda" else "cpu"
        self.amp = amp and self.device == "cuda"

    def play(
        self,
        weights: dict[str, torch.Tensor],
        architecture: dict[str, Any],
        num_games: int,
        parallel: int,
        settings: SelfPlaySettings,
        seed_words: list[int],
    ) -> SelfPlayResult:
        """``num_games`` self-play games with these weights (see ``workers.play_share``)."""
        return play_share(
            self.game, architecture, weights, self.device, self.amp, num_games, parallel, settings, seed_words
        )

    def where(self) -> dict[str, Any]:
        """The actor's process, device and the GPUs Ray handed it (for logs and tests)."""
        return {"pid": os.getpid(), "device": self.device, "cuda_visible": os.environ.get("CUDA_VISIBLE_DEVICES")}


class RaySelfPlayPool:
    """``actors`` Ray actors playing self-play games with the weights they are given; the same
    ``play``/``close`` as ``SelfPlayPool``. ``device`` (default: ``--worker-device``'s): ``auto``
    or ``cuda`` gives each actor a GPU share where the cluster has GPUs, ``cpu`` never;
    ``address`` and ``num_cpus`` (of a Ray started here) as ``boardgym.cluster`` reads them.
    ``actor_class`` replaces ``SelfPlayActor`` (a subclass, e.g. one that fails on purpose in a
    test). The pool is ready when every actor has started; one still waiting for a free CPU
    after ``start_timeout`` seconds is an error."""

    def __init__(
        self,
        actors: int,
        game: Game,
        *,
        settings: SelfPlaySettings | None = None,
        parallel: int = Config.parallel_games,
        seed: int = 0,
        device: str = Config.worker_device,
        amp: bool = Config.amp,
        address: str | None = None,
        num_cpus: int | None = None,
        max_restarts: int = MAX_RESTARTS,
        actor_class: type[SelfPlayActor] = SelfPlayActor,
        start_timeout: float = 600.0,
    ) -> None:
        if actors < 1:
            raise BoardgymError(f"--actors {actors} must be at least 1")
        self.game = game
        self.settings = SelfPlaySettings() if settings is None else settings
        self.parallel, self.seed = parallel, seed
        self.max_restarts = max_restarts
        self.reasked = 0
        """Shares asked again because their actor died, over the pool's life."""
        self._said: set[str] = set()
        self.actors: list[Any] = []
        self.session = connect_ray(address, num_cpus=num_cpus)
        self.ray = self.session.ray
        try:
            with ray_system_errors(self.ray):
                self._start(actors, game, device, amp, max_restarts, actor_class, start_timeout)
        except BaseException:
            self.close()
            raise

    def _start(
        self,
        actors: int,
        game: Game,
        device: str,
        amp: bool,
        max_restarts: int,
        actor_class: type[SelfPlayActor],
        start_timeout: float,
    ) -> None:
        resources = self.session.resources()
        cpus = resources.get("CPU", 0.0)
        if cpus < actors:
            raise BoardgymError(
                f"--actors {actors} needs {actors} CPUs, but the Ray cluster has {cpus:g}; ask for fewer actors "
                "or add machines (docs/cluster.md)"
            )
        self.gpu_share = gpu_share(resources.get("GPU", 0.0), actors, device)
        actor_device = "cuda" if self.gpu_share > 0 else "cpu"
        remote = self.ray.remote(actor_class).options(
            num_cpus=1, num_gpus=self.gpu_share, max_restarts=max_restarts, max_task_retries=0
        )
        self._new_actor = lambda: remote.remote(game.name, game.params(), actor_device, amp)
        self.actors = [self._new_actor() for _ in range(actors)]
        self._wait_until_started(start_timeout)

    def _wait_until_started(self, timeout: float) -> None:
        started, waiting = self.ray.wait(
            [actor.where.remote() for actor in self.actors], num_returns=len(self.actors), timeout=timeout
        )
        if waiting:
            free = self.ray.available_resources().get("CPU", 0.0)
            raise BoardgymError(
                f"{len(waiting)} of {len(self.actors)} self-play actors did not start within {timeout:g} s; the Ray "
                f"cluster has {free:g} CPUs free (other jobs may hold the rest): ask for fewer --actors or free them"
            )
        for ref in started:
            self.ray.get(ref)  # an actor that failed to start says why

    def play(self, network: AlphaZeroNet, num_games: int, *, step: int, rng: Any = None) -> SelfPlayResult:
        """``num_games`` games split over the actors (``selfplay.SelfPlay``); actor ``w`` draws
        its randomness from ``SeedSequence([seed, step, w])`` (``rng`` is not used)."""
        return self.play_seeded(
            network, num_games, parallel=self.parallel, settings=self.settings, seed=(self.seed, step)
        )

    def play_seeded(
        self, network: AlphaZeroNet, num_games: int, *, parallel: int, settings: SelfPlaySettings, seed: tuple[int, ...]
    ) -> SelfPlayResult:
        """``num_games`` games split over the actors, ``parallel`` at a time in each; actor
        ``w`` draws its randomness from ``SeedSequence([*seed, w])``."""
        with ray_system_errors(self.ray):
            return self._play(network, num_games, parallel=parallel, settings=settings, seed=seed)

    def _play(
        self, network: AlphaZeroNet, num_games: int, *, parallel: int, settings: SelfPlaySettings, seed: tuple[int, ...]
    ) -> SelfPlayResult:
        ray = self.ray
        started = time.perf_counter()
        weights = ray.put({k: v.detach().cpu() for k, v in network.state_dict().items()})
        architecture = network.architecture()
        shares = dict(enumerate(split_games(num_games, len(self.actors))))

        def ask(w: int) -> Any:
            share = shares[w]
            return self.actors[w].play.remote(
                weights, architecture, share, max(1, min(parallel, share)), settings, [*seed, w]
            )

        calls = {ask(w): w for w, share in shares.items() if share}
        failures = dict.fromkeys(shares, 0)
        parts: dict[int, SelfPlayResult] = {}
        while calls:
            ready, _ = ray.wait(list(calls), num_returns=1)
            w = calls.pop(ready[0])
            try:
                parts[w] = ray.get(ready[0])
            except ray.exceptions.RayActorError:
                failures[w] += 1
                if failures[w] > 2 * (self.max_restarts + 1):
                    raise BoardgymError(
                        f"self-play actor {w} died {failures[w]} times in one iteration; the Ray logs "
                        "(/tmp/ray/session_latest/logs on each node) say why"
                    ) from None
                if failures[w] > self.max_restarts + 1:  # its restarts are used up: a new actor
                    self.actors[w] = self._new_actor()
                say_once(
                    self._said,
                    "reask",
                    f"self-play actor {w} died mid-iteration; Ray restarts it (or a new one takes its place) and it "
                    "plays its games again with the same seeds, so the iteration's games are the same",
                )
                self.reasked += 1
                calls[ask(w)] = w
        merged = merge_results([parts[w] for w in sorted(parts)])
        merged.seconds = time.perf_counter() - started
        return merged

    def where(self) -> list[dict[str, Any]]:
        """Each actor's process, device and GPUs."""
        return list(self.ray.get([actor.where.remote() for actor in self.actors]))

    def close(self) -> None:
        """Stop the actors and leave Ray (stopping it if this pool started it)."""
        if self.ray.is_initialized():
            for actor in self.actors:
                try:
                    self.ray.kill(actor)
                except self.ray.exceptions.RayError:  # Ray itself is gone: nothing left to stop
                    break
        self.actors = []
        self.session.close()

    def __enter__(self) -> RaySelfPlayPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
