"""Where one batched self-play process spends its time on a CPU: a cProfile of the batched
self-play of one worker's share of Connect Four games, each part's cumulative time.

    python benchmarks/batched_selfplay_profile.py BLOCKS CHANNELS SIMULATIONS GAMES
    python benchmarks/batched_selfplay_profile.py 3 48 48 24    # the README's settings, 2 workers
    python benchmarks/batched_selfplay_profile.py 5 64 200 16   # 200 simulations, 5 x 64, 2 workers

A random network of that size, 1 torch thread (as in a worker process), the trainer's other
self-play settings; the profiler itself slows the Python parts, so the network's share is a
little lower here than the bench's ``in the network`` column.

Last, the tensor operations of one search walked as on a GPU (every walk as deep as the
deepest tree, the depth read without waiting, no cache), per simulation: on a GPU each is a
kernel launch, which the host issues whatever the batch.
"""

from __future__ import annotations

import collections
import cProfile
import pstats
import sys
from typing import Any

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from boardgym.agents.alphazero.network import AlphaZeroNet, inference_copy
from boardgym.agents.alphazero.network_leaf import NetworkBatchEvaluator
from boardgym.agents.batched_search import BatchedMCTS, LaggedDepthReader
from boardgym.batch import batched
from boardgym.games import make_game
from boardgym.train.alphazero.batched_selfplay import play_batched_games
from boardgym.train.alphazero.selfplay import SelfPlaySettings


def main(argv: list[str]) -> None:
    blocks, channels, simulations, games = (int(word) for word in argv)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    game = make_game("connect_four")
    network = AlphaZeroNet(game.observation_shape, game.num_actions, blocks=blocks, channels=channels).eval()
    settings = SelfPlaySettings(simulations=simulations)
    play_batched_games(game, network, 4, parallel=4, settings=settings, rng=np.random.default_rng(0))  # warm-up
    profile = cProfile.Profile()
    profile.enable()
    played = play_batched_games(game, network, games, parallel=games, settings=settings, rng=np.random.default_rng(1))
    profile.disable()
    cumulative: dict[tuple[str, str], float] = {}
    for (file, _, function), (_, _, _, seconds, _) in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
        cumulative[file, function] = cumulative.get((file, function), 0.0) + seconds

    def part(path: str, function: str) -> float:
        return sum(seconds for (file, name), seconds in cumulative.items() if file.endswith(path) and name == function)

    total = part("alphazero/batched_selfplay.py", "play_batched_games")
    parts = {
        "network (NetworkBatchEvaluator.__call__)": part("alphazero/network_leaf.py", "__call__"),
        "rules: step": part("batch/core.py", "step"),
        "rules: legal moves": part("batch/connect_four.py", "legal_mask"),
        "observation planes": part("batch/core.py", "observation"),
        "evaluation cache look-up": part("agents/batched_tactics.py", "fill"),
        "normalising priors": part("agents/batched_tree.py", "normalised"),
    }
    search = part("agents/batched_search.py", "search")
    parts["walk, backup, node writes (the rest of the search)"] = search - sum(parts.values())
    parts["self-play outside the search (moves, records)"] = total - search
    for name, seconds in parts.items():
        print(f"{name:52s} {seconds:6.2f} s {seconds / total:6.1%}")
    print(f"{'total':52s} {total:6.2f} s, {played.positions_count} positions")
    print_operations(game, network, simulations, games)


VIEWS = {"alias", "detach", "expand", "permute", "reshape", "select", "slice", "squeeze", "t", "transpose"}
VIEWS |= {"unsqueeze", "view", "_unsafe_view"}


class Operations(TorchDispatchMode):
    """Counts the tensor operations run under it, by name."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: collections.Counter[str] = collections.Counter()

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        self.counts[func.overloadpacket.__name__] += 1
        return func(*args, **(kwargs or {}))


def print_operations(game: Any, network: AlphaZeroNet, simulations: int, games: int) -> None:
    rules = batched(game)
    evaluator = NetworkBatchEvaluator(inference_copy(network))
    search = BatchedMCTS(rules, evaluator, simulations=simulations, dirichlet_alpha=1.0)
    search.early_exit, search.depth_reader, search.evaluate_all = False, LaggedDepthReader(), True
    rng = np.random.default_rng(0)
    state = rules.init(games)
    for _ in range(4):  # past the opening (no game of the batch can be over yet)
        state = rules.step(state, search.search(state, rng).action)
    with Operations() as counted:
        search.search(state, rng)
    kernels = sum(count for name, count in counted.counts.items() if name not in VIEWS)
    in_network = sum(counted.counts[name] for name in ("conv2d", "relu", "linear", "tanh", "softmax", "addmm"))
    levels = counted.counts["argmax"] / simulations  # one choice a level
    print(
        f"tensor operations a simulation, walked as on a GPU: {kernels / simulations:.0f}, "
        f"{in_network / simulations:.0f} of them in the network's layers; {levels:.1f} levels a walk"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
