"""What adding a position to the AlphaZero replay buffer costs, symmetries included.

    python benchmarks/replay_add.py --game connect_four --positions 2000 --repeats 20

Three ways, on the same positions of seeded random play, into a buffer on the CPU:

- ``scalar augment``: each ``(state, policy, value)`` triple through the scalar ``augment``
  (its images built one position at a time in numpy), then ``add`` (the buffer's path before
  the tensor buffer);
- ``add_positions``: the same triples through ``rows_from_positions`` (planes and masks of
  each position) and the batched symmetries;
- ``add_rows``: ``Rows`` already made (what batched self-play hands over), augmented by the
  index maps and written into the ring.

Each line is the best of ``--repeats`` runs, in microseconds per position (not per row: a
Connect Four position makes two rows), with the ratio of the scalar augment's time to each.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from boardgym.games import make_game
from boardgym.train.alphazero.buffer import ReplayBuffer, augment, rows_from_positions, symmetry_maps


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/replay_add.py", description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="connect_four", help="a game name (default connect_four)")
    parser.add_argument("--positions", type=int, default=2000, help="positions added at a time (default 2000)")
    parser.add_argument("--repeats", type=int, default=20, help="runs of each way; the best counts (default 20)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1, as a worker process)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    game = make_game(args.game)
    positions = _positions(game, args.positions, np.random.default_rng(0))
    maps = symmetry_maps(game)
    images = 1 if maps is None else maps.count
    capacity = 4 * args.positions * images
    buffer = ReplayBuffer(capacity, game.observation_shape, game.num_actions, symmetries=maps)
    rows = rows_from_positions(game, positions)

    def scalar() -> None:
        triples = [image + (value,) for state, policy, value in positions for image in augment(game, state, policy)]
        planes, policy, legal, value = zip(*triples, strict=True)
        buffer.add(np.stack(planes), np.stack(policy), np.stack(legal), np.asarray(value, dtype=np.float32))

    timings = {
        "scalar augment": _best(scalar, args.repeats),
        "add_positions": _best(lambda: buffer.add_positions(game, positions), args.repeats),
        "add_rows": _best(lambda: buffer.add_rows(rows), args.repeats),
    }
    print(
        f"{args.game}: {args.positions} positions a batch, {images} rows a position, best of {args.repeats}, "
        f"{torch.get_num_threads()} torch thread(s)"
    )
    before = timings["scalar augment"]
    for name, seconds in timings.items():
        micros = seconds / args.positions * 1e6
        print(f"  {name:15s} {micros:8.2f} us a position   {before / seconds:6.1f}x")
    return 0


def _positions(game: Any, count: int, rng: np.random.Generator) -> list[tuple[Any, np.ndarray, float]]:
    """``count`` (state, policy over the legal moves, value) triples of seeded random play."""
    positions: list[tuple[Any, np.ndarray, float]] = []
    while len(positions) < count:
        state = game.initial_state()
        while not game.is_terminal(state) and len(positions) < count:
            mask = game.legal_mask(state).astype(np.float32)
            policy = (rng.random(game.num_actions).astype(np.float32) * mask) / mask.sum()
            positions.append((state, policy, float(rng.choice((-1.0, 0.0, 1.0)))))
            legal = np.flatnonzero(mask)
            state = game.apply(state, int(legal[rng.integers(len(legal))]))
    return positions


def _best(run: Callable[[], Any], repeats: int) -> float:
    run()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
