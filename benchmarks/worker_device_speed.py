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

import argparse
import sys
import time

import torch

from boardgym.agents.alphazero.agent import load_network
from boardgym.agents.alphazero.pretrained import pretrained_file
from boardgym.config import positive_int
from boardgym.games import make_game
from boardgym.train.alphazero.selfplay import SelfPlaySettings
from boardgym.train.alphazero.workers import SelfPlayPool
from boardgym.types import BoardgymError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python benchmarks/worker_device_speed.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--game", default="connect_four", help="a game with a shipped network")
    parser.add_argument("--workers", type=positive_int, default=15, help="self-play processes")
    parser.add_argument("--games", type=positive_int, default=150, help="games in the timed round")
    parser.add_argument("--simulations", type=positive_int, default=200, help="PUCT simulations per move")
    args = parser.parse_args(argv)
    try:
        game = make_game(args.game)
        network = load_network(pretrained_file(game), game)
    except BoardgymError as error:
        parser.error(str(error))
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
            pool.play(network, args.workers, parallel=1, settings=warm_up, seed=(1,))
            timed = SelfPlaySettings(
                simulations=args.simulations,
                temperature_moves=8,
                random_opening_moves=0,
                random_start_moves=16,
                leaves_per_game=leaves,
            )
            started = time.perf_counter()
            played = pool.play(network, args.games, parallel=-(-args.games // args.workers), settings=timed, seed=(2,))
            seconds = time.perf_counter() - started
        finally:
            pool.close()
        rate = len(played.positions) / seconds
        print(f"| {device} | {leaves} | {len(played.positions)} | {seconds:.1f} | {rate:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
