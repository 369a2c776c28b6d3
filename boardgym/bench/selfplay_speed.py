"""AlphaZero self-play speed, here and on Ray, and what it predicts beyond one machine.

For each game, in one run and with one network and one set of search settings:

- **self-play positions per second** of each source the trainer can use: this process (the
  local trainer's ``--workers 1``), two worker processes (``--workers 2``) and Ray actors
  (``--backend ray --actors 1`` and ``2``, on a Ray started here). Every source plays the same
  games per round, split as the trainer splits them; after a warm-up round the sources take
  turns, round after round, and each keeps its best of ``--rounds``;
- **the cost model's inputs** (docs/cluster.md): bytes of the pickled state_dict sent per
  iteration, bytes per position (observation planes + policy + value as float32, and as Ray
  actually sends them: the state, the visit policy and the result), and the learner's
  training speed in positions (samples) per second on this machine's CPU;
- **the model's prediction** for 1, 8 and 64 machines of ``--cores`` cores each (an actor per
  core but one), with a GPU learner assumed to train ``--gpu-samples-per-s`` samples per second
  (an assumption, not a measurement: no GPU here) and ``--gbit`` Gbit/s at the learner.

    boardgym bench selfplay [--games tictactoe connect_four] [--rounds 3] [--sources local workers2 ray1 ray2]
"""

from __future__ import annotations

import pickle
import time
from dataclasses import dataclass

import numpy as np
import torch

from boardgym.agents.alphazero.network import AlphaZeroNet, build_network
from boardgym.agents.alphazero.network_leaf import NetworkEvaluator
from boardgym.config import Options as BaseOptions
from boardgym.config import option, options_from_argv, seed_option
from boardgym.game import Game
from boardgym.games import make_game
from boardgym.train.alphazero import Config
from boardgym.train.alphazero.buffer import ReplayBuffer
from boardgym.train.alphazero.loop import _train_steps
from boardgym.train.alphazero.selfplay import SelfPlayResult, SelfPlaySettings, play_selfplay_games
from boardgym.train.alphazero.workers import SelfPlayPool, SelfPlaySource

SOURCES = ("local", "workers2", "ray1", "ray2")


@dataclass(frozen=True)
class CostInputs:
    """What the cost model reads, measured (or, for the GPU, assumed)."""

    weights_bytes: int
    """The pickled state_dict, put into the object store once per iteration."""
    position_bytes: float
    """One position as sent back (state, visit policy, result), pickled."""
    actor_positions_per_s: float
    """Self-play positions per second of one actor on a core of its own."""
    learner_samples_per_s: float
    """Training samples per second of the learner."""
    positions_per_game: float
    replay_ratio: float
    """Samples trained per position played (train_steps x batch_size / positions per iteration)."""
    games_per_actor: int = 16
    """Games each actor plays per iteration (enough to batch its network calls)."""
    gbit_per_s: float = 10.0
    """Network bandwidth at the learner."""


@dataclass(frozen=True)
class Prediction:
    machines: int
    actors: int
    selfplay_positions_per_s: float
    learner_positions_per_s: float
    bytes_per_iteration: float
    seconds_per_iteration: float
    positions_per_s: float
    """What the synchronous loop (self-play, then training, then new weights) delivers."""


def predict(inputs: CostInputs, machines: int, cores: int) -> Prediction:
    """The cost model of docs/cluster.md for ``machines`` machines of ``cores`` cores: an actor
    per core but one on each (Ray's own processes), one fewer on the learner's machine."""
    actors = max(1, machines * (cores - 1) - 1)
    positions = actors * inputs.games_per_actor * inputs.positions_per_game
    selfplay = actors * inputs.actor_positions_per_s
    learner = inputs.learner_samples_per_s / inputs.replay_ratio
    sent = inputs.weights_bytes * machines + positions * inputs.position_bytes  # weights: once per machine
    seconds = positions / selfplay + positions / learner + sent / (inputs.gbit_per_s * 1e9 / 8)
    return Prediction(machines, actors, selfplay, learner, sent, seconds, positions / seconds)


def actors_one_learner_feeds(inputs: CostInputs) -> float:
    """Actors whose positions one learner trains on at the replay ratio as fast as they come."""
    return inputs.learner_samples_per_s / (inputs.replay_ratio * inputs.actor_positions_per_s)


@dataclass(frozen=True)
class Options(BaseOptions):
    """AlphaZero self-play positions per second here and on Ray actors; the cluster cost model."""

    games: tuple[str, ...] = option(("tictactoe", "connect_four"), "games to measure", many=True, metavar="GAME")
    sources: tuple[str, ...] = option(SOURCES, "self-play sources", many=True, choices=SOURCES, metavar="SOURCE")
    rounds: int = option(3, "timed rounds per source (after a warm-up round)", minimum=1)
    games_per_round: int = option(32, "self-play games per round, split over workers", minimum=2)
    simulations: int = option(Config.simulations, "PUCT simulations per move (the trainer's default)", minimum=1)
    blocks: int = option(Config.blocks, "residual blocks (the trainer's default)", minimum=1)
    channels: int = option(Config.channels, "channels (the trainer's default)", minimum=1)
    train_steps: int = option(20, "training steps timed for the learner's speed", minimum=1)
    cores: int = option(16, "cores per machine in the prediction", minimum=1)
    gbit: float = option(10.0, "network Gbit/s at the learner in the prediction", above=0)
    gpu_samples_per_s: float = option(
        40_000.0, "assumed training samples/s of a GPU learner (not measured here; see docs/cluster.md)", above=0
    )
    seed: int = seed_option(0)

    def check(self) -> None:
        for name in self.games:
            make_game(name)


def main(argv: list[str] | None = None, prog: str = "boardgym bench selfplay") -> int:
    args = options_from_argv(Options, argv, prog)
    torch.set_num_threads(Config.threads)  # the trainer's default --threads
    for name in args.games:
        game = make_game(name)
        torch.manual_seed(args.seed)
        network = build_network(
            game, blocks=args.blocks, channels=args.channels, value_hidden=Config.value_hidden
        ).eval()
        settings = SelfPlaySettings.from_config(Config(simulations=args.simulations))  # the trainer's otherwise
        print(
            f"\n## {name}: {args.games_per_round} games a round, {args.simulations} simulations a move, "
            f"network {args.blocks}x{args.channels}"
        )
        speeds, sample = _selfplay_speeds(game, network, settings, args)
        for source, (speed, per_cpu) in speeds.items():
            print(f"  {source:<26} {speed:10.0f} positions/s  ({per_cpu:,.0f} per CPU-second of the players)")
        inputs = _cost_inputs(game, network, sample, speeds, args)
        _print_model(inputs, args)
    return 0


# -- measuring -----------------------------------------------------------------------------------
def _selfplay_speeds(
    game: Game, network: AlphaZeroNet, settings: SelfPlaySettings, args: Options
) -> tuple[dict[str, tuple[float, float]], SelfPlayResult]:
    """Best positions per second and per CPU-second of each source over alternating rounds (a
    burst of load elsewhere on the machine then lands on every source alike), and one round's
    result (for the bytes)."""
    labels = {
        "local": "local --workers 1",
        "workers2": "local --workers 2",
        "ray1": "ray --actors 1",
        "ray2": "ray --actors 2",
    }
    ray_cpus = sum(int(source[3:]) for source in args.sources if source.startswith("ray"))
    pools: dict[str, SelfPlaySource | None] = {}
    best = dict.fromkeys(args.sources, 0.0)
    per_cpu = dict.fromkeys(args.sources, 0.0)
    sample = SelfPlayResult()
    try:
        for source in args.sources:
            pools[source] = _source(source, game, ray_cpus)
        for round_ in range(args.rounds + 1):  # round 0 warms up
            for source, pool in pools.items():
                played = _play(pool, game, network, settings, args.games_per_round, (args.seed, round_))
                if round_ > 0:
                    best[source] = max(best[source], len(played.positions) / max(played.seconds, 1e-9))
                    per_cpu[source] = max(per_cpu[source], len(played.positions) / max(played.cpu_seconds, 1e-9))
                sample = played
    finally:
        for pool in reversed(pools.values()):  # the Ray pool that started Ray closes last
            if pool is not None:
                pool.close()
    return {labels[source]: (best[source], per_cpu[source]) for source in best}, sample


def _source(source: str, game: Game, ray_cpus: int) -> SelfPlaySource | None:
    if source == "workers2":
        return SelfPlayPool(2, game, "cpu", False)
    if source.startswith("ray"):
        from boardgym.train.alphazero.ray_actors import RaySelfPlayPool

        return RaySelfPlayPool(int(source[3:]), game, device="cpu", amp=False, num_cpus=ray_cpus)
    return None


def _play(
    pool: SelfPlaySource | None,
    game: Game,
    network: AlphaZeroNet,
    settings: SelfPlaySettings,
    games: int,
    seed: tuple[int, ...],
) -> SelfPlayResult:
    if pool is not None:
        return pool.play(network, games, parallel=games, settings=settings, seed=seed)
    evaluator = NetworkEvaluator(network)
    rng = np.random.default_rng(np.random.SeedSequence(list(seed)))
    return play_selfplay_games(game, evaluator, games, parallel=games, settings=settings, rng=rng)


def _cost_inputs(
    game: Game,
    network: AlphaZeroNet,
    sample: SelfPlayResult,
    speeds: dict[str, tuple[float, float]],
    args: Options,
) -> CostInputs:
    weights = {k: v.detach().cpu() for k, v in network.state_dict().items()}
    weights_bytes = len(pickle.dumps(weights, protocol=5))
    planes = int(np.prod(game.observation_shape))
    float_bytes = 4 * (planes + game.num_actions + 1)
    sent = len(pickle.dumps(sample.positions, protocol=5)) / max(len(sample.positions), 1)
    per_game = len(sample.positions) / max(sample.games, 1)
    defaults = Config()
    replay_ratio = defaults.train_steps * defaults.batch_size / (defaults.games_per_iteration * per_game)
    learner_cpu = _learner_samples_per_s(game, network, sample, args.train_steps)
    # One actor's speed is that of one core: positions per CPU-second of the one-actor source
    # (or of the first measured), which the other work on a shared machine does not change.
    actor = (speeds.get("ray --actors 1") or next(iter(speeds.values())))[1]
    print(f"  weights (pickled state_dict)  {weights_bytes:10,d} bytes per iteration and machine")
    print(
        f"  a position as float32        {float_bytes:10,d} bytes ({planes} plane values, "
        f"{game.num_actions} policy, 1 value)"
    )
    print(f"  a position as sent           {sent:10,.0f} bytes (state, visit policy, result; pickled)")
    print(f"  positions per game           {per_game:10.1f}")
    print(f"  learner on one core          {learner_cpu:10,.0f} samples/s (batch {defaults.batch_size}, 1 thread)")
    print(f"  one actor (one core)         {actor:10,.0f} positions/s")
    print(f"  replay ratio (defaults)      {replay_ratio:10.2f} samples trained per position played")
    return CostInputs(
        weights_bytes=weights_bytes,
        position_bytes=sent,
        actor_positions_per_s=actor,
        learner_samples_per_s=learner_cpu,
        positions_per_game=per_game,
        replay_ratio=replay_ratio,
        gbit_per_s=args.gbit,
    )


def _learner_samples_per_s(game: Game, network: AlphaZeroNet, sample: SelfPlayResult, steps: int) -> float:
    """The trainer's own training step on this CPU: samples per CPU-second of one thread."""
    learner = AlphaZeroNet.from_architecture(network.architecture())
    learner.load_state_dict(network.state_dict())
    config = Config(train_steps=steps)
    buffer = ReplayBuffer(config.buffer_size, game.observation_shape, game.num_actions)
    buffer.add_positions(game, sample.positions)
    optimizer = torch.optim.AdamW(learner.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    scaler = torch.amp.GradScaler("cuda", enabled=False)
    rng = np.random.default_rng(0)
    device = torch.device("cpu")
    _train_steps(learner, optimizer, scaler, buffer, Config(train_steps=2), rng, device, False)  # warm-up
    started = time.process_time()  # one thread: CPU time is the speed of one core, whatever else runs
    _train_steps(learner, optimizer, scaler, buffer, config, rng, device, False)
    return steps * config.batch_size / max(time.process_time() - started, 1e-9)


def _print_model(inputs: CostInputs, args: Options) -> None:
    gpu = CostInputs(**{**inputs.__dict__, "learner_samples_per_s": args.gpu_samples_per_s})
    print(
        f"  one learner feeds            {actors_one_learner_feeds(inputs):10.1f} actors on this CPU, "
        f"{actors_one_learner_feeds(gpu):.0f} on a GPU (assumed {args.gpu_samples_per_s:,.0f} samples/s)"
    )
    print(
        f"\n  prediction, {args.cores}-core machines, GPU learner, {inputs.games_per_actor} games per actor "
        f"and iteration, {args.gbit:g} Gbit/s:"
    )
    print("  | machines | actors | self-play pos/s | learner pos/s | MB per iteration | s per iteration | pos/s |")
    print("  |---:|---:|---:|---:|---:|---:|---:|")
    for machines in (1, 8, 64):
        p = predict(gpu, machines, args.cores)
        print(
            f"  | {machines} | {p.actors} | {p.selfplay_positions_per_s:,.0f} | {p.learner_positions_per_s:,.0f} | "
            f"{p.bytes_per_iteration / 1e6:,.1f} | {p.seconds_per_iteration:,.2f} | {p.positions_per_s:,.0f} |"
        )
