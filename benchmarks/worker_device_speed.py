"""Self-play speed of ``--workers`` processes with their network on CPU and on CUDA, side by side.

    python benchmarks/worker_device_speed.py [--game connect_four] [--workers 15] [--games 150] [--simulations 200]

The game's shipped network (``alphazero:pretrained=true``) plays ``--games`` self-play games from
random starts (0-16 random moves, then 8 moves drawn by visits) split over ``--workers``
processes, all of a worker's games at once: one warm-up round, then one timed round per
setting. Settings: the workers' network on CPU (``--worker-device cpu``, the trainer's
default), and where CUDA is available on CUDA with one leaf per game per network call and
with ``--leaves-per-game 4``. Where CUDA is not available, it says so and measures CPU alone.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import torch

from boardgym.agents.alphazero.agent import load_network
from boardgym.agents.alphazero.pretrained import pretrained_file
from boardgym.config import Options, option, options_from_argv
from boardgym.games import make_game
from boardgym.train.alphazero.selfplay import SelfPlaySettings
from boardgym.train.alphazero.workers import SelfPlayPool
from boardgym.types import BoardgymError


@dataclass(frozen=True)
class WorkerDeviceOptions(Options):
    """Self-play speed of --workers processes with their network on CPU and on CUDA, side by side."""

    game: str = option("connect_four", "a game with a shipped network")
    workers: int = option(15, "self-play processes", minimum=1)
    games: int = option(150, "games in the timed round", minimum=1)
    simulations: int = option(200, "PUCT simulations per move", minimum=1)


def main(argv: list[str] | None = None) -> int:
    try:
        args = options_from_argv(WorkerDeviceOptions, argv, "python benchmarks/worker_device_speed.py")
        game = make_game(args.game)
        network = load_network(pretrained_file(game), game)
    except BoardgymError as error:
        print(f"worker_device_speed: error: {error}", file=sys.stderr)
        return 2
    settings = [("cpu", 1)]
    if torch.cuda.is_available():
        settings += [("cuda", 1), ("cuda", 4)]
    else:
        print("CUDA is not available here: the workers' network on CPU only")
    print(f"{args.game}, {args.workers} workers, {args.games} games, {args.simulations} simulations a move")
    print("| workers' network on | leaves per game | positions | seconds | positions/s |")
    print("|---|---:|---:|---:|---:|")
    for device, leaves in settings:
        pool = SelfPlayPool(args.workers, game, device, device == "cuda")
        try:
            warm_up = SelfPlaySettings(simulations=8, random_opening_moves=0)
            pool.play_seeded(network, args.workers, parallel=1, settings=warm_up, seed=(1,))
            timed = SelfPlaySettings(
                simulations=args.simulations,
                temperature_moves=8,
                random_opening_moves=0,
                random_start_moves=16,
                leaves_per_game=leaves,
            )
            started = time.perf_counter()
            played = pool.play_seeded(
                network, args.games, parallel=-(-args.games // args.workers), settings=timed, seed=(2,)
            )
            seconds = time.perf_counter() - started
        finally:
            pool.close()
        rate = played.positions_count / seconds
        print(f"| {device} | {leaves} | {played.positions_count} | {seconds:.1f} | {rate:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
