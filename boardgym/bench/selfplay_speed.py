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

- **the batched search** (``--search batched``: every game of the round as tensors on
  ``--device``, one network call per simulation for all of them), with PUCT at
  ``--simulations`` (``batched``) and with Gumbel's root at ``--gumbel-simulations``
  (``gumbel``), ``--batch-games`` games in flight; and in two worker processes on the CPU,
  each a batched search over its half of the games (``batched2``, ``--search batched --workers 2``). Every row says its network calls per second,
  their mean batch, the share of the wall time spent in the network (the rest is the search's
  bookkeeping, the rules and the records) and, on CUDA, the GPU's utilisation sampled from
  ``nvidia-smi`` while it played (n/a on a CPU). The batched rows in this process keep their
  games in flight from round to round, as the trainer does in its own process (``--workers 1``,
  and on CUDA), so a round measures a batch that stays full; their warm-up lasts until half a
  batch of games has ended.

- **the peer** (``mctx``, ``mctx_gumbel``; where jax, pgx and mctx are installed): pgx's
  version of the game searched by ``mctx.muzero_policy`` at ``--simulations`` and by
  ``mctx.gumbel_muzero_policy`` at ``--gumbel-simulations``, the same network shape (random
  weights), games in flight and device, one jitted call a move
  (``boardgym.bench.mctx_selfplay``); its positions/s count a position a move of each game.

On CUDA the batched rows run captured (each simulation a CUDA graph, the network in float16
and channels_last; ``--no-capture``: eager), and then their "in the network" column is
n/a: the network runs inside the graph.

    boardgym bench selfplay [--games tictactoe connect_four] [--rounds 3]
        [--sources local workers2 ray1 ray2 batched gumbel mctx mctx_gumbel] [--device cuda --batch-games 4096]
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from boardgym.agents.alphazero.agent import load_network, resolve_device
from boardgym.agents.alphazero.network import AlphaZeroNet, build_network
from boardgym.agents.alphazero.network_leaf import NetworkEvaluator
from boardgym.agents.alphazero.pretrained import pretrained_file
from boardgym.config import Options as BaseOptions
from boardgym.config import option, options_from_argv, seed_option
from boardgym.game import Game
from boardgym.games import make_game
from boardgym.train.alphazero import Config
from boardgym.train.alphazero.batched_selfplay import BatchedSelfPlay
from boardgym.train.alphazero.buffer import ReplayBuffer, symmetry_maps
from boardgym.train.alphazero.loop import _train_steps
from boardgym.train.alphazero.selfplay import SelfPlayResult, SelfPlaySettings
from boardgym.train.alphazero.tree_selfplay import play_selfplay_games
from boardgym.train.alphazero.workers import SelfPlayPool

if TYPE_CHECKING:
    from boardgym.bench.mctx_selfplay import MctxSelfPlay
    from boardgym.train.alphazero.ray_actors import RaySelfPlayPool

SOURCES = ("local", "workers2", "ray1", "ray2", "batched", "batched2", "gumbel", "mctx", "mctx_gumbel")
MCTX_SOURCES = ("mctx", "mctx_gumbel")
"""The peer's rows: pgx's rules searched by mctx (``boardgym.bench.mctx_selfplay``)."""


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
    device: str = option("cpu", "where the batched rows run: cpu, cuda or auto (the per-process rows: the CPU)")
    batch_games: int = option(0, "games in flight in the batched rows (0: --games-per-round)", minimum=0)
    gumbel_simulations: int = option(32, "simulations per move of the Gumbel row", minimum=1)
    pretrained: bool = option(
        False, "play with the network shipped for each game (alphazero:pretrained=true) instead of a random one"
    )
    capture: bool = option(
        True, "on CUDA, the batched rows' simulations as CUDA graphs and their network in float16 (false: eager)"
    )
    threads: int = option(Config.threads, "torch CPU threads of this process (the batched rows on a CPU)", minimum=1)
    seed: int = seed_option(0)

    def check(self) -> None:
        for name in self.games:
            make_game(name)


def main(argv: list[str] | None = None, prog: str = "boardgym bench selfplay") -> int:
    args = options_from_argv(Options, argv, prog)
    torch.set_num_threads(args.threads)  # the trainer's default --threads unless told
    for name in args.games:
        game = make_game(name)
        torch.manual_seed(args.seed)
        if args.pretrained:
            network = load_network(pretrained_file(game), game)
        else:
            network = build_network(
                game, blocks=args.blocks, channels=args.channels, value_hidden=Config.value_hidden
            ).eval()
        settings = SelfPlaySettings.from_config(Config(simulations=args.simulations))  # the trainer's otherwise
        print(
            f"\n## {name}: {args.games_per_round} games a round, {args.simulations} simulations a move, "
            f"network {network.blocks}x{network.channels}{' (shipped)' if args.pretrained else ''}"
        )
        speeds, sample, rows = _selfplay_speeds(game, network, settings, args)
        print(
            "  | source | positions/s | per CPU-second | network calls/s | mean batch | in the network | GPU busy "
            "| host µs a position |"
        )
        print("  |---|---:|---:|---:|---:|---:|---:|---:|")
        for source, (speed, per_cpu) in speeds.items():
            row = rows[source]
            share = f"{row.network_share:.0%}" if row.network_share is not None else "n/a"
            busy = f"{row.gpu_busy:.0%}" if row.gpu_busy is not None else "n/a"
            host = f"{row.host_us:,.1f}" if row.host_us is not None else "n/a"
            print(
                f"  | {source} | {speed:,.0f} | {per_cpu:,.0f} | {row.calls_per_s:,.0f} | {row.mean_batch:,.1f} | "
                f"{share} | {busy} | {host} |"
            )
        inputs = _cost_inputs(game, network, sample, speeds, args)
        _print_model(inputs, args)
    return 0


# -- measuring -----------------------------------------------------------------------------------
@dataclass
class RowDetails:
    """What a row says besides its speed, from its fastest round."""

    calls_per_s: float = 0.0
    mean_batch: float = 0.0
    network_share: float | None = None
    """Share of the round's wall time inside the network (None where it was not timed)."""
    gpu_busy: float | None = None
    """Mean GPU utilisation over the round (None: no GPU used, or none readable)."""
    host_us: float | None = None
    """The host's microseconds a position outside the search and the network: choosing and
    recording moves, collecting finished games, and adding their rows (symmetries included) to
    a replay buffer on the device (``host_microseconds``); None where self-play ran in other
    processes."""


def _selfplay_speeds(
    game: Game, network: AlphaZeroNet, settings: SelfPlaySettings, args: Options
) -> tuple[dict[str, tuple[float, float]], SelfPlayResult, dict[str, RowDetails]]:
    """Best positions per second and per CPU-second of each source over alternating rounds (a
    burst of load elsewhere on the machine then lands on every source alike), and one round's
    result (for the bytes)."""
    labels = {
        "local": "local --workers 1",
        "workers2": "local --workers 2",
        "ray1": "ray --actors 1",
        "ray2": "ray --actors 2",
        "batched": f"batched --device {args.device} ({args.simulations} sims)",
        "batched2": f"batched --workers 2 ({args.simulations} sims)",
        "gumbel": f"batched --gumbel --device {args.device} ({args.gumbel_simulations} sims)",
        "mctx": f"pgx + mctx muzero_policy --device {args.device} ({args.simulations} sims)",
        "mctx_gumbel": f"pgx + mctx gumbel_muzero_policy --device {args.device} ({args.gumbel_simulations} sims)",
    }
    sources = _available(args.sources, game)
    device = resolve_device(args.device, "--device")
    batched_network = copy.deepcopy(network).to(device).eval()
    ray_cpus = sum(int(source[3:]) for source in args.sources if source.startswith("ray"))
    pools: dict[str, SelfPlayPool | RaySelfPlayPool | None] = {}
    best = dict.fromkeys(sources, 0.0)
    per_cpu = dict.fromkeys(sources, 0.0)
    details = {source: RowDetails() for source in sources}
    sample = SelfPlayResult()
    peers = {source: _mctx(source, game, network, args) for source in sources if source in MCTX_SOURCES}
    try:
        for source in sources:
            pools[source] = _source(source, game, ray_cpus)
        # the batched rows' games in flight, from round to round
        kept = {source: BatchedSelfPlay(game) for source in ("batched", "gumbel")}
        for round_ in range(args.rounds + 1):  # round 0 warms up
            for source, pool in pools.items():
                seed = (args.seed, round_)
                busy: float | None = None
                if source in peers:
                    with GpuSampler(device) as sampler:
                        peer = peers[source].play()
                    if round_ > 0 and peer.positions / peer.seconds > best[source]:
                        best[source] = peer.positions / peer.seconds
                        per_cpu[source] = peer.positions / max(peer.cpu_seconds, 1e-9)
                        calls = peer.positions / peers[source].batch * (peers[source].simulations + 1)
                        details[source] = RowDetails(calls / peer.seconds, peers[source].batch, None, sampler.mean())
                    continue
                if source in ("batched", "gumbel"):
                    with GpuSampler(device) as sampler:
                        played = _play_batched(source, kept[source], batched_network, settings, args, seed, round_ == 0)
                    busy = sampler.mean()
                elif source == "batched2":
                    batched = dataclasses.replace(settings, search="batched")
                    played = _play(pool, game, network, batched, args.games_per_round, seed)
                else:
                    played = _play(pool, game, network, settings, args.games_per_round, seed)
                # positions searched in the round (with the batched rows' games kept from round to
                # round, the games that end in a round began in earlier ones)
                speed = played.searched / max(played.seconds, 1e-9)
                if round_ > 0 and speed > best[source]:
                    best[source] = speed
                    per_cpu[source] = max(per_cpu[source], played.searched / max(played.cpu_seconds, 1e-9))
                    details[source] = RowDetails(
                        calls_per_s=played.network_calls / max(played.seconds, 1e-9),
                        mean_batch=played.mean_batch,
                        network_share=played.network_seconds / played.seconds if played.network_seconds else None,
                        gpu_busy=busy,
                        host_us=host_microseconds(game, played, device) if pool is None else None,
                    )
                if source not in ("batched", "batched2", "gumbel") or not sample.positions_count:
                    sample = played  # the bytes of a position as the tree self-play sends it, where measured
    finally:
        for pool in reversed(pools.values()):  # the Ray pool that started Ray closes last
            if pool is not None:
                pool.close()
    speeds = {labels[source]: (best[source], per_cpu[source]) for source in best}
    return speeds, sample, {labels[source]: details[source] for source in best}


def host_microseconds(game: Game, played: SelfPlayResult, device: torch.device) -> float:
    """The host's microseconds a position of ``played`` outside its searches (``seconds`` less
    ``search_seconds``, over the positions searched), with the time a position to add its rows
    to a replay buffer on ``device`` with the game's symmetries, as the trainer does."""
    if not played.positions_count or not played.searched or played.rows is None:
        return float("nan")
    buffer = ReplayBuffer(
        Config.buffer_size, game.observation_shape, game.num_actions, device=device, symmetries=symmetry_maps(game)
    )
    rows = played.rows.to(device)
    _synchronize(device)
    started = time.perf_counter()
    buffer.add_rows(rows)
    _synchronize(device)
    adding = time.perf_counter() - started
    return 1e6 * ((played.seconds - played.search_seconds) / played.searched + adding / played.positions_count)


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _available(sources: tuple[str, ...], game: Game) -> tuple[str, ...]:
    """``sources`` without the mctx rows where they cannot run here (saying why)."""
    from boardgym.bench.mctx_selfplay import PGX_NAMES, missing

    if not any(source in MCTX_SOURCES for source in sources):
        return sources
    reason = missing() or (None if game.name in PGX_NAMES else f"pgx has no {game.name}")
    if reason is None:
        return sources
    print(f"  (no pgx + mctx rows: {reason})")
    return tuple(source for source in sources if source not in MCTX_SOURCES)


def _mctx(source: str, game: Game, network: AlphaZeroNet, args: Options) -> MctxSelfPlay:
    """The pgx + mctx self-play of a row: the same game, network shape, simulations, games in
    flight and device as the batched rows."""
    from boardgym.bench.mctx_selfplay import MctxSelfPlay

    gumbel = source == "mctx_gumbel"
    return MctxSelfPlay(
        game.name,
        batch=args.batch_games or args.games_per_round,
        simulations=args.gumbel_simulations if gumbel else args.simulations,
        gumbel=gumbel,
        blocks=network.blocks,
        channels=network.channels,
        value_hidden=network.value_hidden,
        device=args.device if args.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu"),
        seed=args.seed,
    )


def _play_batched(
    source: str,
    selfplay: BatchedSelfPlay,
    network: AlphaZeroNet,
    settings: SelfPlaySettings,
    args: Options,
    seed: tuple[int, ...],
    warm_up: bool = False,
) -> SelfPlayResult:
    """One round of the batched search, timed: PUCT (``batched``) or Gumbel's root (``gumbel``),
    its games in flight kept for the next round as the trainer's own process keeps them
    (``BatchedSelfPlay.play(keep=True)``), so that a round measures a batch that stays full.
    ``warm_up``: the first round, until half a batch of games has ended (the games in flight
    then of every age, as in a run)."""
    if source == "gumbel":
        settings = dataclasses.replace(settings, search="batched", gumbel=True, simulations=args.gumbel_simulations)
    else:
        settings = dataclasses.replace(settings, search="batched")
    rng = np.random.default_rng(np.random.SeedSequence(list(seed)))
    parallel = args.batch_games or args.games_per_round
    games = max(1, parallel // 2) if warm_up else args.games_per_round
    cuda = next(network.parameters()).device.type == "cuda"
    settings = dataclasses.replace(settings, capture=args.capture)
    # a captured simulation runs the network inside its graph: its time is not the network's alone
    timed = not (cuda and args.capture)
    return selfplay.play(
        network, games, parallel=parallel, settings=settings, rng=rng, amp=cuda, timed=timed, keep=True
    )


class GpuSampler:
    """The GPU's utilisation (percent busy) read from ``nvidia-smi`` every 0.2 s in a thread
    while the block runs; ``mean()`` is None on a CPU or where ``nvidia-smi`` cannot be read."""

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> GpuSampler:
        if self.device.type == "cuda" and shutil.which("nvidia-smi"):
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        index = str(self.device.index or 0)
        query = ["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits", "-i", index]
        while not self._stop.wait(0.2):
            try:
                out = subprocess.run(query, capture_output=True, text=True, timeout=5, check=True).stdout
                self.samples.append(float(out.strip().splitlines()[0]) / 100)
            except (OSError, subprocess.SubprocessError, ValueError, IndexError):
                return

    def mean(self) -> float | None:
        return sum(self.samples) / len(self.samples) if self.samples else None


def _source(source: str, game: Game, ray_cpus: int) -> SelfPlayPool | RaySelfPlayPool | None:
    if source in ("workers2", "batched2"):
        return SelfPlayPool(2, game, "cpu", False)
    if source.startswith("ray"):
        from boardgym.train.alphazero.ray_actors import RaySelfPlayPool

        return RaySelfPlayPool(int(source[3:]), game, device="cpu", amp=False, num_cpus=ray_cpus)
    return None


def _play(
    pool: SelfPlayPool | RaySelfPlayPool | None,
    game: Game,
    network: AlphaZeroNet,
    settings: SelfPlaySettings,
    games: int,
    seed: tuple[int, ...],
) -> SelfPlayResult:
    if pool is not None:
        return pool.play_seeded(network, games, parallel=games, settings=settings, seed=seed)
    evaluator = NetworkEvaluator(network)
    rng = np.random.default_rng(np.random.SeedSequence(list(seed)))
    played = play_selfplay_games(game, evaluator, games, parallel=games, settings=settings, rng=rng)
    played.network_seconds = evaluator.seconds
    return played


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
    count = max(sample.positions_count, 1)
    sent = len(pickle.dumps((sample.rows, sample.records), protocol=5)) / count
    per_game = sample.positions_count / max(sample.games, 1)
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
    print(f"  a position as sent           {sent:10,.0f} bytes (replay row and its move in the record; pickled)")
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
    if sample.rows is not None:
        buffer.add_rows(sample.rows)
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
