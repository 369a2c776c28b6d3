"""The AlphaZero training loop: ``train(config)`` and ``main(argv)`` (``boardgym train alphazero``).

Each iteration: ``games_per_iteration`` self-play games (``sources.make_selfplay`` chooses,
once, where: this process, worker processes or Ray actors; ``--search`` chooses the engine:
``tree_selfplay`` or ``batched_selfplay``, whose games in this process go on from one iteration
to the next so that its batch stays full); their replay rows, with the game's symmetries, into
the replay buffer (``buffer``, on ``--device``); ``train_steps`` minibatches of policy cross-entropy + value
squared error at the rates of ``scheduled_rates``; every ``eval_every`` iterations a
measurement against fixed opponents and against the network of the previous measurement (an
Elo curve); then the iteration's checkpoint and replay file (``checkpoints``).
"""

from __future__ import annotations

import copy
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from boardgym.agents.alphazero.agent import FORMAT, AlphaZeroAgent, checkpoint_payload, resolve_device
from boardgym.agents.alphazero.network import AlphaZeroNet, build_network, masked_log_policy
from boardgym.agents.alphazero.searches import search_kind
from boardgym.agents.registry import AGENTS, make_agent, parse_spec
from boardgym.game import Game
from boardgym.train.alphazero.buffer import ReplayBuffer, Rows, symmetry_maps
from boardgym.train.alphazero.checkpoints import (
    RESUME_KEYS,
    initial_weights,
    replay_rows,
    restore,
    save_iteration,
)
from boardgym.train.alphazero.config import METHOD, Config, _check, resolve_workers, solved_plies
from boardgym.train.alphazero.selfplay import SelfPlayResult, random_start
from boardgym.train.alphazero.solved import SolverTargets, add_solved_positions, label_replay_rows, log_labels
from boardgym.train.alphazero.sources import LocalSelfPlay, make_selfplay
from boardgym.train.training_run import TrainingRun, run_main
from boardgym.types import BoardgymError


def train(config: Config) -> Path:
    """Run the training described by ``config``; returns the final checkpoint's path."""
    _check(config)
    device = resolve_device(config.device, "--device")
    workers = resolve_workers(config.workers)
    batched_games = search_kind(config.search).batched_rules
    if batched_games and str(config.workers).strip().lower() == "auto" and device.type == "cuda":
        workers = 1  # one process feeds the GPU every game; on a CPU, one batched process per core
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
    opponents = _usable_opponents(game, config) if config.eval_every else []  # --eval-every 0: none to check
    # Read before the run folder opens, so that a wrong --init leaves no folder behind.
    initial = initial_weights(config, game, device) if config.init is not None and not config.resume else None
    seed_rows = replay_rows(config, game) if config.replay is not None and not config.resume else None
    labeller = (
        SolverTargets(game, config.solver_targets, config.solver_limit, workers, root=config.root)
        if config.solver_targets
        else None
    )
    if labeller is not None and seed_rows is not None and not labeller.reads_planes:
        raise BoardgymError(
            f"--solver-targets relabels --replay rows only for connect_four, not {game.name}: drop --replay "
            "(self-play positions are still relabelled), or --solver-targets"
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
        rng = np.random.default_rng(config.seed)
        torch.manual_seed(config.seed)
        network = build_network(game, blocks=config.blocks, channels=config.channels, value_hidden=config.value_hidden)
        network.to(device)
        optimizer = torch.optim.AdamW(network.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        scaler = torch.amp.GradScaler("cuda", enabled=amp)
        buffer = ReplayBuffer(
            config.buffer_size, game.observation_shape, game.num_actions, device=device, symmetries=symmetry_maps(game)
        )
        history: dict[str, Any] = {"elo": [0.0], "elo_iterations": [0]}
        previous = copy.deepcopy(network).eval()
        if run.resumed is not None:
            with run.restoring():
                history, previous = restore(run, network, optimizer, buffer, rng, device)
            for group in optimizer.param_groups:  # Adam's moments carry on; the rates are this command's
                group["lr"], group["weight_decay"] = config.lr, config.weight_decay
        elif initial is not None:
            network.load_state_dict(initial)
            previous = copy.deepcopy(network).eval()
        if seed_rows is not None:
            planes, policy, legal, value = seed_rows
            if labeller is not None:
                policy, value = label_replay_rows(run, config, labeller, planes, policy, value)
            buffer.add(planes, policy, legal, value)
        if varied is not None and plies is not None and run.resumed is None:
            add_solved_positions(run, config, game, buffer, varied, plies)
        last_scores: dict[str, str] = {}  # the latest measurement, shown on the progress bar
        selfplay = make_selfplay(config, game, device, workers, amp)
        run.on_close(selfplay.close)
        start = run.step
        started = time.perf_counter()
        while run.step < config.iterations:
            step = run.step + 1
            done = run.step - start
            elapsed = time.perf_counter() - started
            last = step == config.iterations or (
                config.max_minutes > 0 and done > 0 and elapsed * (done + 1) / done > 60 * config.max_minutes
            )
            played = (
                selfplay.play(network, config.games_per_iteration, step=step, rng=rng)
                if config.games_per_iteration
                else None
            )
            fresh = played.rows if played is not None else None
            positions = played.positions_count if played is not None else 0
            run.games += played.games if played is not None else 0
            if labeller is not None and played is not None and fresh is not None:
                fresh = _labelled(run, labeller, game, played, step)
            rows = buffer.add_rows(fresh) if fresh is not None else 0
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
                    "perf/selfplay_games_per_s": played.games / seconds,
                    # positions searched, as `boardgym bench selfplay` counts them (with games
                    # kept in flight, the games that end in a call began in earlier ones)
                    "perf/selfplay_positions_per_s": (played.searched or positions) / seconds,
                    "perf/network_batch": played.mean_batch,
                    "train/game_length": played.moves / max(played.games, 1),
                    "train/first_player_score": _first_player_score(played.outcomes),
                }
                if isinstance(selfplay, LocalSelfPlay) and played.searched:  # in this process: the host's share
                    host = max(played.seconds - played.search_seconds, 0.0)
                    scalars["perf/selfplay_host_us_per_position"] = 1e6 * host / played.searched
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
                pos_s=f"{positions / seconds:.0f}" if played is not None else "-",
                **last_scores,
            )
            save_iteration(run, step, buffer, network, optimizer, previous, history, rng)
            if last:
                break
        # The agent's file, as every training method leaves one: the last network
        # (checkpoint.pt goes on being the resumable state of the run).
        return run.finish(checkpoint_payload(network))


def main(argv: list[str] | None = None, prog: str = "python -m boardgym.train.alphazero") -> int:
    return run_main(Config, train, argv, prog, METHOD)


def scheduled_rates(config: Config, done: int, total: int) -> np.ndarray:
    """The learning rates of the ``config.train_steps`` steps of this command's iteration
    ``done`` (0-based) of ``total``: ``--lr`` throughout, or under ``--lr-schedule cosine`` half a
    cosine from ``--lr`` at the command's first step down towards 0 after its last."""
    if config.lr_schedule == "constant":
        return np.full(config.train_steps, config.lr)
    steps = np.arange(done * config.train_steps, (done + 1) * config.train_steps, dtype=np.float64)
    return config.lr * 0.5 * (1.0 + np.cos(np.pi * steps / max(total * config.train_steps, 1)))


def _labelled(run: TrainingRun, labeller: SolverTargets, game: Game, played: SelfPlayResult, step: int) -> Rows:
    """The iteration's replay rows with the solver's targets where it solved their position
    (the positions replayed from the games' records)."""
    assert played.rows is not None
    triples, stats = labeller.positions(played.positions(game))
    log_labels(run, stats, "selfplay", step)
    device = played.rows.policy.device
    policy = torch.as_tensor(np.stack([p for _, p, _ in triples]), dtype=torch.float32, device=device)
    value = torch.as_tensor([v for _, _, v in triples], dtype=torch.float32, device=device)
    return played.rows._replace(policy=policy, value=value)


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
        planes, policy, legal, value = buffer.sample(config.batch_size, rng).to(device)
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
