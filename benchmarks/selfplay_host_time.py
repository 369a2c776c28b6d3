"""The host's time a position of batched self-play outside the search and the network, with
adding the positions to the replay buffer (symmetries included), for the checkout on
PYTHONPATH. Run it on two checkouts in one command to compare them:

    for tree in ../before .; do PYTHONPATH=$tree python benchmarks/selfplay_host_time.py; done

It times ``BatchedSelfPlay.play(keep=True)`` rounds (the positions searched a second: every root of
every search) at the README's Connect Four settings (a
3 x 48 network, 48 simulations, 48 games in flight, on the CPU), the time inside
``BatchedMCTS.search`` and making the network's inference copy for it taken out, then the buffer's add of the round's positions: from replay
rows where self-play hands those over, else from the scalar states it handed over before.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import torch

import boardgym
from boardgym import make_game
from boardgym.agents.alphazero.network import build_network
from boardgym.agents.batched_search import BatchedMCTS
from boardgym.train.alphazero import buffer as replay
from boardgym.train.alphazero.batched_selfplay import BatchedSelfPlay, rules_for
from boardgym.train.alphazero.selfplay import SelfPlaySettings
from boardgym.types import BoardgymError


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="connect_four", help="a game with batched rules")
    parser.add_argument("--blocks", type=_positive, default=3)
    parser.add_argument("--channels", type=_positive, default=48)
    parser.add_argument("--simulations", type=_positive, default=48)
    parser.add_argument("--parallel", type=_positive, default=48, help="games in flight")
    parser.add_argument("--rounds", type=_positive, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    try:
        game = make_game(args.game)
        rules_for(game, torch.device("cpu"))
    except BoardgymError as error:
        parser.error(str(error))
    torch.manual_seed(0)
    network = build_network(game, blocks=args.blocks, channels=args.channels).eval()
    settings = SelfPlaySettings(simulations=args.simulations, search="batched")
    searching, stepping = [0.0, 0.0], [0.0, 0.0]  # wall and CPU seconds
    inside = [False]
    searched = [0]  # positions searched (roots of every search)
    search = BatchedMCTS.search

    def counted(self: BatchedMCTS, roots: Any, *a: Any, **k: Any) -> Any:
        searched[0] += len(roots.current_player)
        return search(self, roots, *a, **k)

    BatchedMCTS.search = counted  # type: ignore[method-assign]
    _timed(BatchedMCTS, "search", searching, inside)  # the search, the network inside it
    _timed(BatchedSelfPlay, "_search_for", searching)  # and the network's inference copy it searches with
    rules = rules_for(game, torch.device("cpu"))
    for name in ("step", "step_unchecked"):  # the rules' step of the moves played (not the search's)
        if hasattr(rules, name):  # an older checkout, timed against this one, has no step_unchecked
            _timed(type(rules), name, stepping, skip=inside)
    selfplay = BatchedSelfPlay(game)
    rng = np.random.default_rng(0)
    play = dict(parallel=args.parallel, settings=settings, rng=rng, keep=True)
    selfplay.play(network, args.parallel // 2, **play)  # warm-up: games in flight of every age
    rows = hasattr(replay, "Rows")
    print(f"checkout {boardgym.__file__.rsplit('/boardgym/', 1)[0]} ({'replay rows' if rows else 'scalar states'})")
    print(
        "| round | positions searched | searched a second | wall s | in the search s | host µs a position "
        "| of which the buffer's add | of which the rules' step | host CPU µs a position | without the rules' step |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for round_ in range(1, args.rounds + 1):
        searching[:] = stepping[:] = [0.0, 0.0]
        searched[0] = 0
        started, cpu = time.perf_counter(), time.process_time()
        played = selfplay.play(network, args.parallel, **play)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        buffer = replay.ReplayBuffer(20_000, game.observation_shape, game.num_actions, **_buffer_options(game, rows))
        added, added_cpu = time.perf_counter(), time.process_time()
        if rows:
            buffer.add_rows(played.rows)
            count = played.positions_count
        else:
            buffer.add_positions(game, played.positions)
            count = len(played.positions)
        adding, adding_cpu = time.perf_counter() - added, time.process_time() - added_cpu
        # the host's time a position played (searched), the buffer's a position added
        done = searched[0]
        host = 1e6 * ((wall - searching[0]) / done + adding / count)
        host_cpu = 1e6 * ((cpu - searching[1]) / done + adding_cpu / count)
        print(
            f"| {round_} | {done} | {done / wall:.1f} | {wall:.2f} | {searching[0]:.2f} | {host:.1f} "
            f"| {1e6 * adding / count:.1f} | {1e6 * stepping[0] / done:.1f} | {host_cpu:.1f} "
            f"| {host_cpu - 1e6 * stepping[1] / done:.1f} |"
        )


def _positive(text: str) -> int:
    """A whole number, at least 1 (an argparse type)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def _timed(
    owner: type, name: str, total: list[float], inside: list[bool] | None = None, skip: list[bool] | None = None
) -> None:
    """``owner.name`` adding its wall and CPU time to ``total``, unless ``skip[0]``; ``inside[0]``
    is true while it runs."""
    method = getattr(owner, name)

    def timed(*a: Any, **k: Any) -> Any:
        if skip is not None and skip[0]:
            return method(*a, **k)
        started, cpu = time.perf_counter(), time.process_time()
        if inside is not None:
            inside[0] = True
        try:
            return method(*a, **k)
        finally:
            if inside is not None:
                inside[0] = False
            total[0] += time.perf_counter() - started
            total[1] += time.process_time() - cpu

    setattr(owner, name, timed)


def _buffer_options(game: Any, rows: bool) -> dict[str, Any]:
    return {"symmetries": replay.symmetry_maps(game)} if rows else {}


if __name__ == "__main__":
    main()
