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

Writes ``runs/<game>/alphazero/<run-name>/``: ``config.json``, TensorBoard events,
``checkpoint.pt`` (the latest state, for ``--resume``, with ``replay.pt``) and, at the end,
``final.pt`` (what ``alphazero:checkpoint=PATH`` loads; ``checkpoint.pt`` loads too). ``--device auto`` uses CUDA when available, with float16 autocast there;
``--workers N`` plays self-play in N processes; ``--max-minutes`` bounds the wall time.
"""

from __future__ import annotations

import copy
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from boardgym.agents.alphazero.agent import AlphaZeroAgent, checkpoint_payload, network_from_payload, resolve_device
from boardgym.agents.alphazero.leaf import NetworkEvaluator
from boardgym.agents.alphazero.network import AlphaZeroNet, build_network, masked_log_policy
from boardgym.agents.alphazero.replay import ReplayBuffer
from boardgym.agents.alphazero.selfplay import SelfPlaySettings, default_dirichlet_alpha, play_selfplay_games
from boardgym.agents.alphazero.workers import SelfPlayPool
from boardgym.agents.registry import AGENTS, make_agent, parse_spec
from boardgym.config import config_from_argv, config_to_dict, log_hparams, make_writer, option, write_config
from boardgym.evaluate.match import play_games
from boardgym.game import Game
from boardgym.games import make_game, parse_game_params
from boardgym.runs import atomic_write_bytes, load_checkpoint, run_dir, save_checkpoint
from boardgym.types import BoardgymError

METHOD = "alphazero"


@dataclass(frozen=True)
class Config:
    """AlphaZero self-play training (defaults: Tic-Tac-Toe on a CPU)."""

    game: str = option("tictactoe", "game to train on (boardgym list games)")
    game_params: str = option("", "game parameters, space separated KEY=VALUE, e.g. 'size=5'")
    seed: int = option(0, "seed of every random choice (self-play, noise, minibatches, evaluation)")
    run_name: str = option("", "folder name under runs/<game>/alphazero/ (default: s<seed>-<date>-<time>)")
    resume: bool = option(False, "continue the run named --run-name from its checkpoint.pt and replay.pt")
    device: str = option("auto", "auto (CUDA when available), cpu or cuda")
    amp: bool = option(True, "float16 autocast for network calls and training (CUDA only)")
    threads: int = option(1, "torch CPU threads (self-play is Python-bound; 1 is best on small machines)")
    workers: int = option(1, "self-play processes (1: self-play in this process; one per spare CPU core pays)")
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
    max_moves: int = option(0, "score a self-play game as a draw after this many moves (0: no limit)")
    blocks: int = option(2, "residual blocks")
    channels: int = option(32, "channels per convolution")
    value_hidden: int = option(64, "hidden units of the value head")
    buffer_size: int = option(20_000, "replay buffer capacity in positions (symmetric copies included)")
    batch_size: int = option(128, "training minibatch size")
    train_steps: int = option(80, "training minibatches per iteration")
    lr: float = option(2e-3, "Adam learning rate")
    weight_decay: float = option(1e-4, "AdamW weight decay")
    eval_every: int = option(5, "evaluate every N iterations (0: never; the last iteration always)")
    eval_games: int = option(20, "games per opponent per evaluation, seats alternated")
    eval_simulations: int = option(48, "simulations per move of the evaluated network (and of a bare 'mcts')")
    eval_opponents: str = option(
        "random;mcts;minimax;perfect",
        "';'-separated agent specs to evaluate against ('mcts' alone gets --eval-simulations); "
        "specs not registered or not playable on this game are skipped",
    )


def train(config: Config) -> Path:
    """Run the training described by ``config``; returns the final checkpoint's path."""
    _check(config)
    torch.set_num_threads(max(1, config.threads))
    device = resolve_device(config.device)
    amp = config.amp and device.type == "cuda"
    game = make_game(config.game, **parse_game_params(config.game_params.split()))
    if game.num_players != 2:
        raise BoardgymError(
            f"AlphaZero self-play trains two-player games; {game.name} has {game.num_players} player(s): "
            "pick a two-player game (boardgym list games)"
        )
    if config.resume and not config.run_name:
        raise BoardgymError("--resume needs --run-name NAME: the run folder to continue")
    folder = run_dir(game.name, METHOD, config.run_name or None, config.seed)
    checkpoint_path, replay_path = folder / "checkpoint.pt", folder / "replay.pt"

    rng = np.random.default_rng(config.seed)
    torch.manual_seed(config.seed)
    network = build_network(game, blocks=config.blocks, channels=config.channels, value_hidden=config.value_hidden)
    network.to(device)
    optimizer = torch.optim.AdamW(network.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    scaler = torch.amp.GradScaler("cuda", enabled=amp)
    buffer = ReplayBuffer(config.buffer_size, game.observation_shape, game.num_actions)
    history: dict[str, Any] = {"elo": [0.0], "elo_iterations": [0]}
    previous = copy.deepcopy(network).eval()
    start = 0
    if config.resume:
        start, history, previous = _restore(
            checkpoint_path, replay_path, game, network, optimizer, buffer, rng, device, config
        )
    write_config(folder / "config.json", config, device=str(device))

    settings = SelfPlaySettings(
        simulations=config.simulations,
        c_puct=config.c_puct,
        dirichlet_alpha=config.dirichlet_alpha or default_dirichlet_alpha(game),
        dirichlet_fraction=config.dirichlet_fraction,
        temperature_moves=config.temperature_moves,
        random_opening_moves=config.random_opening_moves,
        leaves_per_game=config.leaves_per_game,
        max_moves=config.max_moves,
    )
    opponents = _usable_opponents(game, config)
    last_scores: dict[str, str] = {}  # the latest evaluation, shown on the progress bar
    writer = make_writer(folder)
    log_hparams(writer, config)
    evaluator = NetworkEvaluator(network, device=device, amp=amp)
    pool = SelfPlayPool(config.workers, game, str(device), amp) if config.workers > 1 else None
    try:
        progress = tqdm(range(start, config.iterations), desc=f"alphazero {game.name}", unit="it", file=sys.stderr)
        started = time.perf_counter()
        for iteration in progress:
            step = iteration + 1
            done = iteration - start
            elapsed = time.perf_counter() - started
            last = step == config.iterations or (
                config.max_minutes > 0 and done > 0 and elapsed * (done + 1) / done > 60 * config.max_minutes
            )
            evaluator.clear_cache()
            evaluator.reset_stats()
            if pool is not None:
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
            rows = buffer.add_positions(game, played.positions)
            losses = _train_steps(network, optimizer, scaler, buffer, config, rng, device, amp)
            seconds = max(played.seconds, 1e-9)
            scalars = {
                "loss/policy": losses["policy"],
                "loss/value": losses["value"],
                "loss/policy_entropy": losses["entropy"],
                "train/selfplay_games_per_s": played.games / seconds,
                "train/selfplay_positions_per_s": len(played.positions) / seconds,
                "train/network_batch": played.mean_batch,
                "train/replay_size": len(buffer),
                "train/replay_rows_added": rows,
                "train/game_length": played.moves / max(played.games, 1),
                "train/first_player_score": _first_player_score(played.outcomes),
            }
            if config.eval_every and (step % config.eval_every == 0 or last):
                results = _evaluate(game, network, previous, opponents, config, seed=config.seed * 1_000_003 + step)
                scalars.update(results)
                last_scores = {
                    k.split("_vs_")[-1]: f"{v:.2f}" for k, v in results.items() if k.startswith("eval/score_vs_")
                }
                elo = history["elo"][-1] + _elo_gain(results["eval/score_vs_previous"])
                history["elo"].append(elo)
                history["elo_iterations"].append(step)
                scalars["eval/elo"] = elo
                previous = copy.deepcopy(network).eval()
            for tag, value in scalars.items():
                writer.add_scalar(tag, value, step)
            writer.flush()
            progress.set_postfix(
                policy=f"{losses['policy']:.3f}",
                value=f"{losses['value']:.3f}",
                pos_s=f"{scalars['train/selfplay_positions_per_s']:.0f}",
                **last_scores,
            )
            extra = {
                "iteration": step,
                "config": json.dumps(config_to_dict(config)),
                "optimizer": optimizer.state_dict(),
                "previous_state_dict": {k: v.detach().cpu() for k, v in previous.state_dict().items()},
                "history": json.dumps(history),
                "rng": json.dumps(rng.bit_generator.state),
            }
            save_checkpoint(checkpoint_path, checkpoint_payload(network, game, **extra))
            save_checkpoint(replay_path, buffer.state_dict())
            if last:
                break

    finally:
        if pool is not None:
            pool.close()
    writer.close()
    # The agent's file, as every training method leaves one: the last network (checkpoint.pt
    # goes on being the resumable state of the run).
    final_path = folder / "final.pt"
    atomic_write_bytes(final_path, checkpoint_path.read_bytes())
    return final_path


def main(argv: list[str] | None = None, prog: str = "python -m boardgym.train.alphazero") -> int:
    config = config_from_argv(Config, argv, prog)
    path = train(config)
    print(f"final checkpoint: {path}")
    print(f"play it:    boardgym play {config.game} --opponent alphazero:checkpoint={path}")
    return 0


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
) -> dict[str, float]:
    network.train()
    totals = {"policy": 0.0, "value": 0.0, "entropy": 0.0}
    for _ in range(config.train_steps):
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


def _evaluate(
    game: Game,
    network: AlphaZeroNet,
    previous: AlphaZeroNet,
    opponents: list[str],
    config: Config,
    seed: int,
) -> dict[str, float]:
    """Win/draw/loss rates and score against each opponent and against ``previous``."""
    me = AlphaZeroAgent(game, network=network, simulations=config.eval_simulations, c_puct=config.c_puct)
    me.spec = "alphazero"
    results: dict[str, float] = {}
    for spec in opponents:
        summary = play_games(game, me, spec, config.eval_games, seed=seed)
        name = parse_spec(spec)[0]
        results[f"eval/win_rate_vs_{name}"] = summary.win_rate
        results[f"eval/draw_rate_vs_{name}"] = summary.draws / summary.games
        results[f"eval/loss_rate_vs_{name}"] = summary.losses / summary.games
        results[f"eval/score_vs_{name}"] = summary.score
    # Two greedy networks would replay the same two games: both draw their first two moves.
    opening = {"simulations": config.eval_simulations, "c_puct": config.c_puct, "temperature": 1.0}
    me = AlphaZeroAgent(game, network=network, temperature_moves=2, **opening)
    old = AlphaZeroAgent(game, network=previous, temperature_moves=2, **opening)
    me.spec, old.spec = "alphazero", "alphazero-previous"
    summary = play_games(game, me, old, config.eval_games, seed=seed)
    results["eval/win_rate_vs_previous"] = summary.win_rate
    results["eval/score_vs_previous"] = summary.score
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


def _restore(
    checkpoint_path: Path,
    replay_path: Path,
    game: Game,
    network: AlphaZeroNet,
    optimizer: torch.optim.Optimizer,
    buffer: ReplayBuffer,
    rng: np.random.Generator,
    device: torch.device,
    config: Config,
) -> tuple[int, dict[str, Any], AlphaZeroNet]:
    payload = load_checkpoint(checkpoint_path)
    saved = network_from_payload(payload, game, str(checkpoint_path), device)
    if saved.architecture() != network.architecture():
        raise BoardgymError(
            f"cannot resume {str(checkpoint_path)!r}: it holds a network of {saved.architecture()}, "
            f"but this config asks for {network.architecture()}; resume with the run's own options"
        )
    network.load_state_dict(saved.state_dict())
    optimizer.load_state_dict(payload["optimizer"])
    previous = copy.deepcopy(network)
    previous.load_state_dict(payload["previous_state_dict"])
    rng.bit_generator.state = json.loads(payload["rng"])
    if replay_path.is_file():
        buffer.load_state_dict(load_checkpoint(replay_path))
    return int(payload["iteration"]), json.loads(payload["history"]), previous.eval()


def _check(config: Config) -> None:
    positive = (
        "iterations",
        "workers",
        "games_per_iteration",
        "parallel_games",
        "simulations",
        "leaves_per_game",
        "batch_size",
        "buffer_size",
        "eval_games",
        "eval_simulations",
    )
    for name in positive:
        value = getattr(config, name)
        if value < 1:
            raise BoardgymError(f"--{name.replace('_', '-')} {value} must be at least 1")
    if config.train_steps < 0 or config.eval_every < 0:
        raise BoardgymError("--train-steps and --eval-every must be 0 or more")


if __name__ == "__main__":
    sys.exit(main())
