"""AlphaZero: self-play with PUCT search, a replay buffer, and a residual policy/value network.

    boardgym train alphazero --game tictactoe
    python -m boardgym.train.alphazero --game connect_four --blocks 3 --channels 48 --simulations 48
        --games-per-iteration 96 --parallel-games 48 --temperature-moves 10 --max-minutes 120   (one line)

Each iteration: ``games_per_iteration`` self-play games, ``parallel_games`` at a time with all
their leaves evaluated in one network call (``boardgym.agents.alphazero.selfplay``); their
positions (with the game's symmetries) go into a bounded replay buffer; ``train_steps``
minibatches of policy cross-entropy + value squared error; every ``eval_every`` iterations a
few games against fixed opponents and against the network of the previous evaluation (an
Elo curve). Silver et al. 2018 is the model; defaults are sized for Tic-Tac-Toe on a CPU.

Writes ``<root>/<game>/alphazero/<run-name>/`` (``TrainingRun``: an existing run is never
overwritten; ``--resume`` continues it): ``config.json``, TensorBoard events, ``checkpoint.pt``
(the latest state, for ``--resume``) with ``replay-<iteration>.pt`` (the replay buffer of
that iteration: written first, then ``checkpoint.pt`` naming it, then the older replay files
removed, so that a run killed anywhere leaves a checkpoint whose replay file is there) and, at
the end, ``final.pt`` (what ``alphazero:checkpoint=PATH`` loads; ``checkpoint.pt`` loads too).
``--device auto`` uses CUDA when available, with float16 autocast there; ``--workers N`` plays
self-play in N processes (default ``auto``: one per CPU core this process may use, at most 8;
``config.json`` records the number as ``workers_used``), each running its copy of the network on
``--worker-device`` (default ``cpu``: faster than many processes sharing one GPU); ``--backend ray --actors N [--address ADDR]`` plays it in N Ray
actors, here or across a cluster (``boardgym.agents.alphazero.ray_selfplay``; the same loop,
files, tags and ``--resume``; docs/cluster.md); ``--max-minutes`` bounds the wall time.
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from boardgym.agents.alphazero.agent import (
    FORMAT,
    NETWORK_KEYS,
    AlphaZeroAgent,
    checkpoint_payload,
    load_network,
    network_from_payload,
    resolve_device,
)
from boardgym.agents.alphazero.network import AlphaZeroNet, build_network, masked_log_policy
from boardgym.agents.alphazero.network_leaf import NetworkEvaluator
from boardgym.agents.alphazero.pretrained import pretrained_file
from boardgym.agents.alphazero.replay import ReplayBuffer
from boardgym.agents.alphazero.selfplay import (
    SelfPlaySettings,
    default_dirichlet_alpha,
    play_selfplay_games,
    random_start,
)
from boardgym.agents.alphazero.workers import SelfPlayPool, SelfPlaySource
from boardgym.agents.registry import AGENTS, make_agent, parse_spec
from boardgym.cluster import check_address
from boardgym.config import option
from boardgym.evaluate.grade_sets import read_connect_four_set
from boardgym.game import Game
from boardgym.runs import load_checkpoint, save_checkpoint
from boardgym.train.solver_targets import LabelStats, SolverTargets, varied_positions
from boardgym.train.training_run import RunConfig, TrainingRun, check_at_least, run_main
from boardgym.types import BoardgymError

METHOD = "alphazero"
REPLAY_FORMAT = "boardgym.alphazero-replay/1"
REPLAY_NAME = re.compile(r"replay-\d+\.pt")
LEGACY_REPLAY = "replay.pt"  # the one replay file of runs written before the pairs were named
LR_SCHEDULES = ("constant", "cosine")
RESUME_KEYS = (*NETWORK_KEYS, "optimizer", "previous_state_dict", "history", "rng")
SELFPLAY_BACKENDS: dict[str, str] = {
    "local": "self-play in this process, or in --workers processes",
    "ray": "self-play in --actors Ray actors, here or on the cluster at --address (pip install 'boardgym[ray]')",
}


@dataclass(frozen=True)
class Config(RunConfig):
    """AlphaZero self-play training (defaults: Tic-Tac-Toe on a CPU)."""

    seed: int = option(0, "seed of every random choice (self-play, noise, minibatches, measurement)")
    eval_every: int = option(5, "measure every N iterations (0: never; with N, the last iteration always)")
    eval_games: int = option(20, "games per opponent per measurement, seats alternated")
    resume: bool = option(False, "continue the run named --run-name from its checkpoint.pt and replay.pt")
    device: str = option("auto", "auto (CUDA when available), cpu or cuda")
    amp: bool = option(True, "float16 autocast for network calls and training (CUDA only)")
    threads: int = option(1, "torch CPU threads (self-play is Python-bound; 1 is best on small machines)")
    workers: str | int = option(
        "auto", "self-play processes: auto (one per CPU core, at most 8) or N (1: self-play in this process)"
    )
    backend: str = option(
        "local", "where self-play runs: local (this process, or --workers processes) or ray (--actors Ray actors)"
    )
    actors: int = option(
        2,
        "self-play Ray actors with --backend ray (a CPU each, and with --worker-device auto or cuda a GPU share "
        "where there are GPUs)",
    )
    worker_device: str = option(
        "cpu",
        "where --workers processes and Ray actors run the network: cpu, auto (CUDA when available) or cuda; "
        "small board-game networks play faster on CPU (docs/pretrained.md)",
    )
    address: str | None = option(
        None,
        "with --backend ray: the Ray cluster (auto, HOST:PORT of the head, ray://HOST:10001); default: "
        "$RAY_ADDRESS, else a Ray started on this machine (docs/cluster.md)",
    )
    iterations: int = option(60, "self-play / training iterations")
    max_minutes: float = option(0.0, "stop after the iteration that would end past this many minutes (0: no limit)")
    games_per_iteration: int = option(64, "self-play games per iteration")
    parallel_games: int = option(64, "self-play games played at once (their leaves share each network call)")
    simulations: int = option(48, "PUCT simulations per self-play move")
    leaves_per_game: int = option(1, "leaves per game per network call (virtual loss when > 1)")
    c_puct: float = option(1.5, "PUCT exploration constant")
    dirichlet_alpha: float = option(0.0, "root Dirichlet noise alpha in self-play (0: 10 / num_actions, at most 1)")
    dirichlet_fraction: float = option(0.25, "weight of the root noise")
    temperature_moves: int = option(4, "moves drawn in proportion to visits at the start of a game; then greedy")
    random_opening_moves: int = option(2, "uniformly random first moves of every self-play game (explores openings)")
    random_start_moves: int = option(
        0,
        "start every self-play game after k uniformly random moves, k drawn per game from 0 to N (those moves are "
        "not searched or recorded): positions beyond the network's own openings",
    )
    max_moves: int = option(0, "score a self-play game as a draw after this many moves (0: no limit)")
    blocks: int = option(2, "residual blocks")
    channels: int = option(32, "channels per convolution")
    value_hidden: int = option(64, "hidden units of the value head")
    init: str | None = option(
        None,
        "start from these weights instead of random ones: 'pretrained' (the network shipped for this game) or "
        "the path of an alphazero checkpoint; --blocks/--channels/--value-hidden must match it (--resume continues "
        "from the run's own checkpoint instead)",
    )
    buffer_size: int = option(20_000, "replay buffer capacity in positions (symmetric copies included)")
    replay: str | None = option(
        None,
        "start the replay buffer from this replay file (a run's replay-N.pt; its newest --buffer-size rows); with "
        "--games-per-iteration 0 the run only trains on it (--resume restores the run's own buffer instead)",
    )
    solver_targets: int = option(
        0,
        "Connect Four: positions with at least N stones train on the solver's win/draw/loss and the moves that "
        "keep it, not on the self-play result and visits (0: off; docs/pretrained.md)",
    )
    solver_limit: float = option(
        5.0, "CPU seconds per position for --solver-targets; a position that takes longer keeps its self-play targets"
    )
    solved_positions: int = option(
        0,
        "Connect Four: before the first iteration, put N positions of careful-random play at --solved-plies into "
        "the replay buffer, with the solver's win/draw/loss and a policy uniform over the moves that keep it "
        "(positions the network's own games rarely reach; none of the shipped grading set; 0: off)",
    )
    solved_plies: str = option("20-40", "stones on the board of the --solved-positions positions, FIRST-LAST")
    batch_size: int = option(128, "training minibatch size")
    train_steps: int = option(80, "training minibatches per iteration")
    lr: float = option(2e-3, "AdamW learning rate (with --resume too: the optimizer resumes its moments at this rate)")
    lr_schedule: str = option(
        "constant",
        "constant (--lr throughout) or cosine (from --lr down to 0 over this command's --iterations, step by "
        "step; with --resume, over the iterations still to run)",
    )
    weight_decay: float = option(1e-4, "AdamW weight decay")
    eval_simulations: int = option(48, "simulations per move of the measured network (and of a bare 'mcts')")
    eval_opponents: str = option(
        "random;mcts;minimax;perfect",
        "';'-separated agent specs to measure against ('mcts' alone gets --eval-simulations); "
        "specs not registered or not playable on this game are skipped",
    )


def train(config: Config) -> Path:
    """Run the training described by ``config``; returns the final checkpoint's path."""
    _check(config)
    workers = resolve_workers(config.workers)
    device = resolve_device(config.device, "--device")
    amp = config.amp and device.type == "cuda"
    run = TrainingRun(
        config,
        METHOD,
        format=FORMAT,
        total=config.iterations,
        unit="it",
        resume_keys=RESUME_KEYS,
        notes={"device": str(device), "workers_used": workers},
    )
    game = run.game
    if game.num_players != 2:
        raise BoardgymError(
            f"AlphaZero self-play trains two-player games; {game.name} has {game.num_players} player(s): "
            "pick a two-player game (boardgym list games)"
        )
    if config.random_start_moves:  # a start count longer than random games last fails here, not in a worker
        random_start(game, config.random_start_moves, np.random.default_rng(config.seed))
    opponents = _usable_opponents(game, config)
    # Read before the run folder opens, so that a wrong --init leaves no folder behind.
    initial = _initial_weights(config, game, device) if config.init is not None and not config.resume else None
    seed_rows = _replay_rows(config, game) if config.replay is not None and not config.resume else None
    labeller = (
        SolverTargets(game, config.solver_targets, config.solver_limit, workers) if config.solver_targets else None
    )
    plies = solved_plies(config.solved_plies) if config.solved_positions else None
    varied = (  # its processes start with its first job, so --resume (which adds none) starts none
        SolverTargets(game, plies.start, config.solver_limit, workers, option="--solved-positions")
        if plies is not None
        else None
    )
    torch.set_num_threads(max(1, config.threads))
    with run:
        if varied is not None:
            run.on_close(varied.close)
        if labeller is not None:
            run.on_close(labeller.close)
        replay_path = run.folder / LEGACY_REPLAY
        rng = np.random.default_rng(config.seed)
        torch.manual_seed(config.seed)
        network = build_network(game, blocks=config.blocks, channels=config.channels, value_hidden=config.value_hidden)
        network.to(device)
        optimizer = torch.optim.AdamW(network.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        scaler = torch.amp.GradScaler("cuda", enabled=amp)
        buffer = ReplayBuffer(config.buffer_size, game.observation_shape, game.num_actions)
        history: dict[str, Any] = {"elo": [0.0], "elo_iterations": [0]}
        previous = copy.deepcopy(network).eval()
        if run.resumed is not None:
            with run.restoring():
                history, previous = _restore(run, replay_path, network, optimizer, buffer, rng, device)
            for group in optimizer.param_groups:  # Adam's moments carry on; the rates are this command's
                group["lr"], group["weight_decay"] = config.lr, config.weight_decay
        elif initial is not None:
            network.load_state_dict(initial)
            previous = copy.deepcopy(network).eval()
        if seed_rows is not None:
            planes, policy, legal, value = seed_rows
            if labeller is not None:
                run.report(
                    f"--solver-targets {config.solver_targets}: solving the positions of the {len(value)} replay rows "
                    f"with {config.solver_targets} stones or more (mirror images once; minutes for the early ones)"
                )
                policy, value, stats = labeller.rows(
                    planes,
                    policy,
                    value,
                    progress=lambda done, total: run.report(f"--solver-targets: {done} of {total} positions solved"),
                )
                _log_labels(run, stats, "replay")
                run.report(
                    f"--solver-targets: {stats.solved} of {stats.eligible} rows with {config.solver_targets} stones "
                    f"or more took the solver's targets in {stats.seconds:.0f} s"
                )
            buffer.add(planes, policy, legal, value)
        if varied is not None and plies is not None and run.resumed is None:
            _add_solved_positions(run, config, game, buffer, varied, plies)
        settings = SelfPlaySettings(
            simulations=config.simulations,
            c_puct=config.c_puct,
            dirichlet_alpha=config.dirichlet_alpha or default_dirichlet_alpha(game),
            dirichlet_fraction=config.dirichlet_fraction,
            temperature_moves=config.temperature_moves,
            random_opening_moves=config.random_opening_moves,
            random_start_moves=config.random_start_moves,
            leaves_per_game=config.leaves_per_game,
            max_moves=config.max_moves,
        )
        last_scores: dict[str, str] = {}  # the latest measurement, shown on the progress bar
        evaluator = NetworkEvaluator(network, device=device, amp=amp)
        pool = _selfplay_pool(config, workers, game)
        if pool is not None:
            run.on_close(pool.close)
        start = run.step
        started = time.perf_counter()
        while run.step < config.iterations:
            step = run.step + 1
            done = run.step - start
            elapsed = time.perf_counter() - started
            last = step == config.iterations or (
                config.max_minutes > 0 and done > 0 and elapsed * (done + 1) / done > 60 * config.max_minutes
            )
            evaluator.clear_cache()
            evaluator.reset_stats()
            if config.games_per_iteration == 0:
                played = None
            elif pool is not None:
                played = pool.play(
                    network,
                    config.games_per_iteration,
                    parallel=config.parallel_games,
                    settings=settings,
                    seed=(config.seed, step),
                )
            else:
                played = play_selfplay_games(
                    game,
                    evaluator,
                    config.games_per_iteration,
                    parallel=config.parallel_games,
                    settings=settings,
                    rng=rng,
                )
            positions = played.positions if played is not None else []
            if labeller is not None and positions:
                positions, stats = labeller.positions(positions)
                _log_labels(run, stats, "selfplay", step)
            rows = buffer.add_positions(game, positions)
            rates = scheduled_rates(config, done=done, total=config.iterations - start)
            losses = _train_steps(network, optimizer, scaler, buffer, config, rng, device, amp, rates)
            seconds = max(played.seconds, 1e-9) if played is not None else 0.0
            run.advance(1)
            scalars = {
                "loss/policy": losses["policy"],
                "loss/value": losses["value"],
                "loss/policy_entropy": losses["entropy"],
                "train/replay_size": len(buffer),
                "train/lr": float(rates[-1]) if len(rates) else config.lr,
                "train/replay_rows_added": rows,
            }
            if played is not None:
                scalars |= {
                    "train/selfplay_games_per_s": played.games / seconds,
                    "train/selfplay_positions_per_s": len(played.positions) / seconds,
                    "train/network_batch": played.mean_batch,
                    "train/game_length": played.moves / max(played.games, 1),
                    "train/first_player_score": _first_player_score(played.outcomes),
                }
            run.log(scalars)
            if config.eval_every and (step % config.eval_every == 0 or last):
                results = _measure(run, network, previous, opponents, config, seed=config.seed * 1_000_003 + step)
                last_scores = {
                    k.split("_vs_")[-1]: f"{v:.2f}" for k, v in results.items() if k.startswith("eval/score_vs_")
                }
                elo = history["elo"][-1] + _elo_gain(results["eval/score_vs_previous"])
                history["elo"].append(elo)
                history["elo_iterations"].append(step)
                run.log({"eval/elo": elo})
                previous = copy.deepcopy(network).eval()
            run.writer.flush()
            run.advance(
                0,
                policy=f"{losses['policy']:.3f}",
                value=f"{losses['value']:.3f}",
                pos_s=f"{len(positions) / seconds:.0f}" if played is not None else "-",
                **last_scores,
            )
            # The pair stays consistent however the run is killed: this iteration's replay file
            # first, then checkpoint.pt naming it, then the replay files nothing names any more.
            replay_file = f"replay-{step}.pt"
            save_checkpoint(
                run.folder / replay_file, {**buffer.state_dict(), "step": step}, format=REPLAY_FORMAT, game=game
            )
            payload = checkpoint_payload(
                network,
                optimizer=optimizer.state_dict(),
                previous_state_dict={k: v.detach().cpu() for k, v in previous.state_dict().items()},
                history=json.dumps(history),
                rng=json.dumps(rng.bit_generator.state),
                replay_step=step,
                replay_file=replay_file,
            )
            run.save(payload)
            _remove_replays(run.folder, keep=replay_file)
            if last:
                break
        # The agent's file, as every training method leaves one: the last network
        # (checkpoint.pt goes on being the resumable state of the run).
        return run.finish(checkpoint_payload(network))


def main(argv: list[str] | None = None, prog: str = "python -m boardgym.train.alphazero") -> int:
    return run_main(Config, train, argv, prog, METHOD)


# -- the steps ----------------------------------------------------------------------------------
def _train_steps(
    network: AlphaZeroNet,
    optimizer: torch.optim.Optimizer,
    scaler: torch.amp.GradScaler,
    buffer: ReplayBuffer,
    config: Config,
    rng: np.random.Generator,
    device: torch.device,
    amp: bool,
    rates: np.ndarray | None = None,
) -> dict[str, float]:
    """``config.train_steps`` minibatches, step ``i`` at learning rate ``rates[i]`` (default:
    the optimizer's rate throughout)."""
    network.train()
    totals = {"policy": 0.0, "value": 0.0, "entropy": 0.0}
    if rates is None:
        rates = np.full(config.train_steps, optimizer.param_groups[0]["lr"])
    for rate in rates:
        for group in optimizer.param_groups:
            group["lr"] = float(rate)
        planes, policy, legal, value = (
            torch.from_numpy(a).to(device, non_blocking=True) for a in buffer.sample(config.batch_size, rng)
        )
        with torch.autocast("cuda", dtype=torch.float16, enabled=amp):
            logits, predicted = network(planes)
        log_policy = masked_log_policy(logits, legal)
        policy_loss = -(policy * log_policy).sum(-1).mean()
        value_loss = torch.nn.functional.mse_loss(predicted.float(), value)
        loss = policy_loss + value_loss
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        with torch.no_grad():
            entropy = -(log_policy.exp() * log_policy).sum(-1).mean()
        totals["policy"] += policy_loss.item()
        totals["value"] += value_loss.item()
        totals["entropy"] += entropy.item()
    network.eval()
    return {k: v / max(config.train_steps, 1) for k, v in totals.items()}


def _measure(
    run: TrainingRun,
    network: AlphaZeroNet,
    previous: AlphaZeroNet,
    opponents: list[str],
    config: Config,
    seed: int,
) -> dict[str, float]:
    """Win/draw/loss rates and score against each opponent and against ``previous``."""
    me = AlphaZeroAgent(run.game, network=network, simulations=config.eval_simulations, c_puct=config.c_puct)
    me.spec = "alphazero"
    results = run.measure(me, {parse_spec(spec)[0]: spec for spec in opponents}, seed=seed)
    # Two greedy networks would replay the same two games: both draw their first two moves.
    me, old = (
        AlphaZeroAgent(
            run.game,
            network=net,
            simulations=config.eval_simulations,
            c_puct=config.c_puct,
            temperature=1.0,
            temperature_moves=2,
        )
        for net in (network, previous)
    )
    me.spec, old.spec = "alphazero", "alphazero-previous"
    results.update(run.measure(me, {"previous": old}, seed=seed))
    return results


def resolve_workers(value: str | int) -> int:
    """``--workers``: ``auto`` is one process per CPU core this process may run on (at most
    8; self-play is Python-bound, so each core plays its share of the games), else a count."""
    if isinstance(value, str) and value.strip().lower() == "auto":
        try:
            cores = len(os.sched_getaffinity(0))
        except AttributeError:  # not on Linux
            cores = os.cpu_count() or 1
        return max(1, min(cores, 8))
    try:
        count = int(value)
    except ValueError:
        count = 0
    if count < 1 or str(count) != str(value).strip():
        raise BoardgymError(f"--workers {value!r} must be auto or a whole number of processes, at least 1")
    return count


def _selfplay_pool(config: Config, workers: int, game: Game) -> SelfPlaySource | None:
    """Where self-play runs besides this process: Ray actors (``--backend ray``), worker
    processes (``--workers`` > 1), or None: in this process."""
    if config.backend == "ray":
        from boardgym.agents.alphazero.ray_selfplay import RaySelfPlayPool

        return RaySelfPlayPool(
            config.actors,
            game,
            device=worker_device_name(config.worker_device),
            amp=config.amp,
            address=config.address,
            num_cpus=max(config.actors, os.cpu_count() or 1),
        )
    if workers > 1:
        worker_device = resolve_worker_device(config.worker_device)
        return SelfPlayPool(workers, game, str(worker_device), config.amp and worker_device.type == "cuda")
    return None


def resolve_worker_device(value: str) -> torch.device:
    """``--worker-device``: as ``--device`` (``auto``: CUDA when available), for self-play
    workers. Its default is ``cpu``: with one small network per process, 15 CPU workers played
    3.6 times as many positions a second as 15 workers sharing an H200 (docs/pretrained.md)."""
    return resolve_device(worker_device_name(value), "--worker-device")


def worker_device_name(value: str) -> str:
    """``--worker-device`` checked by name only (Ray actors resolve it on their own nodes)."""
    name = value.strip().lower()
    if name not in ("cpu", "auto", "cuda"):
        raise BoardgymError(f"unknown --worker-device {value!r}; use cpu, auto or cuda")
    return name


def _elo_gain(score: float) -> float:
    """The Elo difference that a score (points per game) implies, clipped to +-400 per step."""
    score = min(max(score, 0.09), 0.91)
    return 400.0 * math.log10(score / (1.0 - score))


def _first_player_score(outcomes: list[tuple[float, ...]]) -> float:
    return float(np.mean([o[0] for o in outcomes])) if outcomes else 0.0


def _usable_opponents(game: Game, config: Config) -> list[str]:
    usable = []
    for spec in filter(None, (s.strip() for s in config.eval_opponents.split(";"))):
        name, params = parse_spec(spec)
        if name not in AGENTS:
            print(f"alphazero: skipping evaluation opponent {spec!r} (no such agent yet)", file=sys.stderr)
            continue
        if name == "mcts" and not params:
            spec = f"mcts:simulations={config.eval_simulations}"
        try:
            make_agent(spec, game, seed=0)
        except BoardgymError as error:
            print(f"alphazero: skipping evaluation opponent {spec!r}: {error}", file=sys.stderr)
            continue
        usable.append(spec)
    return usable


def _restore(
    run: TrainingRun,
    replay_path: Path,
    network: AlphaZeroNet,
    optimizer: torch.optim.Optimizer,
    buffer: ReplayBuffer,
    rng: np.random.Generator,
    device: torch.device,
) -> tuple[dict[str, Any], AlphaZeroNet]:
    """Load the resumed checkpoint into ``network``, ``optimizer``, ``rng`` and (from
    ``replay.pt``, when it pairs with the checkpoint) ``buffer``; returns the Elo history and
    the previous measurement's network."""
    payload = run.resumed or {}
    saved = network_from_payload(payload, device)
    if saved.architecture() != network.architecture():
        raise BoardgymError(
            f"cannot resume {str(run.checkpoint_path)!r}: it holds a network of {saved.architecture()}, "
            f"but this config asks for {network.architecture()}; resume with the run's own options"
        )
    network.load_state_dict(saved.state_dict())
    optimizer.load_state_dict(payload["optimizer"])
    previous = copy.deepcopy(network)
    previous.load_state_dict(payload["previous_state_dict"])
    rng.bit_generator.state = json.loads(payload["rng"])
    named = payload.get("replay_file")
    if named is not None:  # the replay file of the checkpoint's own iteration
        if not isinstance(named, str) or not REPLAY_NAME.fullmatch(named):
            raise ValueError(f"replay_file {named!r} is not a replay file name")
        replay_path = run.folder / named
        if not replay_path.is_file():
            raise BoardgymError(
                f"--resume: {str(run.checkpoint_path)!r} pairs with {named}, which is not in the run folder "
                "(deleted or not copied); put it back, or start a new run under another --run-name"
            )
    if replay_path.is_file():
        replay = load_checkpoint(replay_path, what="replay buffer", method=METHOD, required=("planes", "added"))
        if replay.get("format") not in (None, REPLAY_FORMAT):  # None: written before replay files were stamped
            raise BoardgymError(
                f"replay buffer {str(replay_path)!r} is not a {REPLAY_FORMAT} file; delete it to resume with an "
                "empty buffer"
            )
        paired = payload.get("replay_step")
        if named is not None and replay.get("step") != paired:
            raise BoardgymError(
                f"replay buffer {str(replay_path)!r} is of iteration {replay.get('step')}, but checkpoint.pt pairs "
                f"with iteration {paired}: the file was changed; copy the run folder again or start a new run"
            )
        if paired is not None and replay.get("step") != paired:
            raise BoardgymError(
                f"replay buffer {str(replay_path)!r} is of iteration {replay.get('step')}, but checkpoint.pt pairs "
                f"with iteration {paired} (the run stopped between writing them); delete replay.pt to resume with "
                "an empty buffer"
            )
        buffer.load_state_dict(replay)
    return json.loads(payload["history"]), previous.eval()


def _replay_rows(config: Config, game: Game) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows of the ``--replay`` file (planes, policies, legal masks, values), checked
    against ``game``; read before the run folder opens."""
    path = Path(str(config.replay))
    saved = load_checkpoint(
        path, what="replay buffer", method=METHOD, game=game, required=("planes", "policy", "legal", "value")
    )
    if saved.get("format") not in (None, REPLAY_FORMAT):
        raise BoardgymError(f"--replay {str(path)!r} is not a {REPLAY_FORMAT} file; pass a run's replay-N.pt")
    try:
        planes = saved["planes"].float().numpy()
        policy, legal, value = (
            saved["policy"].float().numpy(),
            saved["legal"].bool().numpy(),
            saved["value"].float().numpy(),
        )
    except (AttributeError, TypeError) as error:
        raise BoardgymError(
            f"--replay {str(path)!r}: its rows are not tensors ({error}); pass a run's replay-N.pt"
        ) from None
    rows = len(value)
    shapes_ok = (
        planes.shape == (rows, *game.observation_shape)
        and policy.shape == legal.shape == (rows, game.num_actions)
        and value.shape == (rows,)
    )
    if not shapes_ok or rows == 0:
        raise BoardgymError(
            f"--replay {str(path)!r} holds {rows} rows of planes {tuple(planes.shape[1:])} and policies "
            f"{tuple(policy.shape[1:])}; a {game.name} replay has planes {game.observation_shape} and "
            f"{game.num_actions} moves: pass a replay file of a {game.name} run"
        )
    return planes, policy, legal, value


def scheduled_rates(config: Config, done: int, total: int) -> np.ndarray:
    """The learning rates of the ``config.train_steps`` steps of this command's iteration
    ``done`` (0-based) of ``total``: ``--lr`` throughout, or under ``--lr-schedule cosine`` half a
    cosine from ``--lr`` at the command's first step down towards 0 after its last."""
    if config.lr_schedule == "constant":
        return np.full(config.train_steps, config.lr)
    steps = np.arange(done * config.train_steps, (done + 1) * config.train_steps, dtype=np.float64)
    return config.lr * 0.5 * (1.0 + np.cos(np.pi * steps / max(total * config.train_steps, 1)))


def solved_plies(text: str) -> range:
    """The plies of ``--solved-plies FIRST-LAST`` (Connect Four: 1 to 41 stones)."""
    first, _, last = text.partition("-")
    try:
        plies = range(int(first), int(last) + 1)
    except ValueError:
        plies = range(0)
    if not plies or plies.start < 1 or plies.stop > 42:
        raise BoardgymError(
            f"--solved-plies {text!r} is not FIRST-LAST with 1 <= FIRST <= LAST <= 41 stones; e.g. --solved-plies 20-40"
        )
    return plies


def _add_solved_positions(
    run: TrainingRun, config: Config, game: Game, buffer: ReplayBuffer, labeller: SolverTargets, plies: range
) -> None:
    """Fill the buffer with ``--solved-positions`` solved positions of careful-random play at ``plies``."""
    exclude = frozenset(position.label for position in read_connect_four_set())
    states = varied_positions(config.solved_positions, plies, config.seed, exclude)
    run.report(
        f"--solved-positions: solving {len(states)} positions of careful-random play at {config.solved_plies} stones"
    )
    triples, stats = labeller.solved(
        states,
        progress=lambda done, total: run.report(
            f"--solved-positions: {done} of {total} positions solved (a mirror pair counts once)"
        ),
    )
    _log_labels(run, stats, "varied", results=False)
    rows = buffer.add_positions(game, triples)
    run.report(
        f"--solved-positions: {stats.solved} of {len(states)} solved within --solver-limit in {stats.seconds:.0f} s; "
        f"{rows} replay rows with their mirror images"
    )


def _log_labels(
    run: TrainingRun, stats: LabelStats, source: str, step: int | None = None, *, results: bool = True
) -> None:
    """Log what the solver labelled (``source``: replay, selfplay or varied, the last for
    ``--solved-positions``); ``results``: whether the positions came with a game result to agree."""
    values: dict[str, float] = {
        f"solver/{source}_eligible": stats.eligible,
        f"solver/{source}_solved": stats.solved,
        f"solver/{source}_seconds": stats.seconds,
    }
    if results:
        values[f"solver/{source}_result_agreed"] = stats.agreed / max(stats.solved, 1)
    run.log(values, step=step)
    run.writer.flush()


def _initial_weights(config: Config, game: Game, device: torch.device) -> dict[str, torch.Tensor]:
    """The weights named by ``--init`` (``pretrained`` or a checkpoint path), checked against
    the network this config builds."""
    init = str(config.init)
    path = pretrained_file(game) if init == "pretrained" else Path(init)
    saved = load_network(path, game, device=device)
    wanted = build_network(game, blocks=config.blocks, channels=config.channels, value_hidden=config.value_hidden)
    if saved.architecture() != wanted.architecture():
        raise BoardgymError(
            f"--init {init}: {str(path)!r} holds a network of {saved.architecture()}, but this run asks for "
            f"{wanted.architecture()}; pass the matching --blocks, --channels and --value-hidden"
        )
    return saved.state_dict()


def _remove_replays(folder: Path, keep: str) -> None:
    """Delete the replay files of earlier iterations (and the older single ``replay.pt``)."""
    for path in folder.iterdir():
        if path.name != keep and (path.name == LEGACY_REPLAY or REPLAY_NAME.fullmatch(path.name)):
            path.unlink(missing_ok=True)


def _check(config: Config) -> None:
    positive = (
        "iterations",
        "parallel_games",
        "simulations",
        "leaves_per_game",
        "batch_size",
        "buffer_size",
        "eval_simulations",
    )
    check_at_least(config, positive)
    if resolve_workers(config.workers) > 1 and config.backend != "ray":
        resolve_worker_device(config.worker_device)
    else:
        worker_device_name(config.worker_device)
    if config.init is not None and not config.init.strip():
        raise BoardgymError("--init is empty; pass pretrained or the path of an alphazero checkpoint (final.pt)")
    if config.replay is not None and not Path(config.replay).is_file():
        raise BoardgymError(
            f"--replay {config.replay!r} is not a file; pass a replay file of an alphazero run (runs/GAME/alphazero/"
            "RUN/replay-N.pt)"
        )
    if config.games_per_iteration == 0 and config.replay is None and not config.resume and not config.solved_positions:
        raise BoardgymError(
            "--games-per-iteration 0 plays no self-play games, so there is nothing to train on; give --replay FILE "
            "(or --solved-positions N) or play at least 1 game per iteration"
        )
    if config.solved_positions:
        solved_plies(config.solved_plies)
    elif config.solved_plies != Config.solved_plies:
        raise BoardgymError(
            f"--solved-plies {config.solved_plies!r} does nothing without --solved-positions N; add the number of "
            "solved positions to put in the buffer, or drop --solved-plies"
        )
    if (config.solver_targets or config.solved_positions) and not config.solver_limit > 0:
        raise BoardgymError(f"--solver-limit {config.solver_limit} must be more than 0 CPU seconds")
    for name in (
        "games_per_iteration",
        "solver_targets",
        "solved_positions",
        "train_steps",
        "eval_every",
        "temperature_moves",
        "random_opening_moves",
        "random_start_moves",
        "max_moves",
    ):
        value = getattr(config, name)
        if value < 0:
            flag = "--" + name.replace("_", "-")
            raise BoardgymError(f"{flag} {value} is negative; it must be 0 or more")
    if not 0 <= config.lr < math.inf:
        raise BoardgymError(f"--lr {config.lr} must be a finite number, 0 or more (0: no learning), e.g. --lr 0.001")
    if not 0 <= config.weight_decay < math.inf:
        raise BoardgymError(f"--weight-decay {config.weight_decay} must be a finite number, 0 or more, e.g. 0.0001")
    if config.lr_schedule not in LR_SCHEDULES:
        raise BoardgymError(f"unknown --lr-schedule {config.lr_schedule!r}; known schedules: {', '.join(LR_SCHEDULES)}")
    _check_backend(config)


def _check_backend(config: Config) -> None:
    if config.backend not in SELFPLAY_BACKENDS:
        raise BoardgymError(f"unknown --backend {config.backend!r}; known backends: {', '.join(SELFPLAY_BACKENDS)}")
    if config.backend == "ray":
        check_at_least(config, ("actors",))
        check_address(config.address)
    elif config.address is not None:
        raise BoardgymError(f"--address {config.address!r} is for --backend ray; drop it or add --backend ray")


if __name__ == "__main__":
    sys.exit(main())
