"""MaskablePPO (sb3-contrib) on the single-agent ``gym.make`` envs.

The learner plays ``boardgym/<Game>-v0`` against a fixed agent spec (``--opponent random``,
``--opponent mcts:simulations=50`` ...) or, with ``--opponent self``, against a pool of its
own past policies: every ``--snapshot-every`` steps the current policy is frozen into the
pool (at most ``--pool-size`` kept), and each episode draws its opponent from the pool, or
``random`` with probability ``--pool-random``. Its seat is drawn each episode unless
``--seat`` fixes it. Illegal actions are masked out (``env.action_masks()``).

SB3's own scalars (``rollout/``, ``train/``, ``time/``) and ours (``eval/``, the
hyper-parameters) go to the same TensorBoard folder ``runs/<game>/ppo/<run-name>/``; the
checkpoints there hold the policy's and the optimiser's tensors, so ``--resume`` continues
the optimisation (the envs restart from fresh games).

    boardgym train ppo --game connect_four --run-name c4-vs-random
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

from boardgym.agents.base import BaseAgent
from boardgym.agents.ppo import FORMAT, PPOAgent
from boardgym.agents.random_agent import RandomAgent
from boardgym.agents.tabular import check_game, game_signature
from boardgym.config import config_from_argv, config_to_dict, log_hparams, make_writer, option, write_config
from boardgym.game import Game
from boardgym.games import GAMES
from boardgym.runs import load_checkpoint, run_dir, save_checkpoint
from boardgym.train.evaluation import check_run_folder, eval_opponents, evaluate_agent, game_from_options
from boardgym.types import Action, BoardgymError

METHOD = "ppo"


@dataclass(frozen=True)
class Config:
    """MaskablePPO on a boardgym single-agent env, against a fixed agent or a pool of its past selves."""

    game: str = option("connect_four", "game to train on (boardgym list games)")
    game_params: str = option(
        "", "game parameters, space separated KEY=VALUE, e.g. 'size=3' or 'heaps=3,4,5 misere=true'"
    )
    opponent: str = option("random", "agent spec the learner plays against, or 'self' for a pool of past policies")
    seat: str = option("random", "learner's seat: 0 (first), 1 (second) or random each episode")
    timesteps: int = option(300_000, "environment steps (learner moves) to train for")
    n_envs: int = option(8, "parallel environments (in one process)")
    n_steps: int = option(256, "steps per environment per rollout")
    batch_size: int = option(256, "minibatch size of the PPO updates")
    n_epochs: int = option(4, "passes over each rollout")
    learning_rate: float = option(3e-4, "Adam learning rate")
    gamma: float = option(0.99, "discount: below 1 prefers quicker wins")
    gae_lambda: float = option(0.95, "GAE lambda")
    clip_range: float = option(0.2, "PPO clip range")
    ent_coef: float = option(0.01, "entropy bonus")
    net_arch: tuple[int, ...] = option((256, 256), "hidden layer sizes of the policy and value networks")
    pool_size: int = option(10, "self-play: past policies kept in the opponent pool")
    snapshot_every: int = option(50_000, "self-play: steps between snapshots added to the pool")
    pool_random: float = option(0.2, "self-play: probability that an episode's opponent is random instead")
    eval_every: int = option(50_000, "steps between evaluations against random and the baseline (0: end only)")
    eval_games: int = option(100, "games per evaluation and opponent, seats alternating")
    checkpoint_every: int = option(50_000, "steps between checkpoints (0: end only)")
    seed: int = option(0, "seed of the networks, the envs and the evaluation games")
    device: str = option("cpu", "torch device: cpu (fastest for these small networks), cuda or auto")
    threads: int = option(1, "torch CPU threads (more only helps with large batches on an idle machine)")
    run_name: str | None = option(None, "run folder name under runs/<game>/ppo/ (default: seed and time)")
    root: str = option("runs", "root folder of the runs")
    resume: bool = option(False, "continue the run in --run-name from its last checkpoint")
    progress: bool = option(True, "show a progress bar")


def train(config: Config) -> Path:
    """Train and return the path of the final checkpoint (``ppo:checkpoint=PATH``)."""
    _check_config(config)
    torch.set_num_threads(config.threads)
    game = game_from_options(config.game, config.game_params)
    game_params = game.params()
    if game.num_players != 2:
        raise BoardgymError(f"ppo trains on two-player games; {game.name} has {game.num_players} player(s)")
    folder = run_dir(game.name, METHOD, config.run_name, config.seed, config.root)
    last_path, final_path = folder / "checkpoint.pt", folder / "final.pt"
    resumed = None
    check_run_folder(folder, config.resume, last_path)
    if config.resume:
        resumed = load_checkpoint(last_path)
        check_game(resumed, game, last_path)
    write_config(folder / "config.json", config, method=METHOD)

    pool: list[PPOAgent] = []
    snapshots: list[str] = []
    if resumed is not None:
        snapshots = [p for p in json.loads(resumed.get("snapshots", "[]")) if Path(p).exists()]
        pool.extend(PPOAgent(game, checkpoint=Path(p)) for p in snapshots)
    seat = None if config.seat == "random" else int(config.seat)
    env_id = f"boardgym/{GAMES[game.name].gym_name}-v0"

    def make_env(index: int):
        def build():
            opponent: Any = config.opponent
            if opponent == "self":
                opponent = PoolOpponent(game, pool, config.pool_random, seed=config.seed * 1000 + index)
            return Monitor(gym.make(env_id, opponent=opponent, seat=seat, **game_params))

        return build

    env = DummyVecEnv([make_env(i) for i in range(config.n_envs)])
    model = MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=config.learning_rate,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        clip_range=config.clip_range,
        ent_coef=config.ent_coef,
        policy_kwargs={"net_arch": list(config.net_arch)},
        seed=config.seed,
        device=config.device,
    )
    if resumed is not None:
        model.policy.load_state_dict(resumed["policy"])
        model.policy.optimizer.load_state_dict(resumed["optimizer"])
        model.num_timesteps = int(resumed["timesteps"])
    model.set_logger(configure(str(folder), ["tensorboard"]))
    writer = make_writer(folder)
    log_hparams(writer, config)
    opponents = eval_opponents(game)

    def save(path: Path) -> None:
        save_checkpoint(
            path,
            {
                "format": FORMAT,
                "method": METHOD,
                "game_signature": game_signature(game),
                "net_arch": list(config.net_arch),
                "policy": {k: v.detach().cpu() for k, v in model.policy.state_dict().items()},
                "optimizer": model.policy.optimizer.state_dict(),
                "timesteps": int(model.num_timesteps),
                "snapshots": json.dumps(snapshots),
                "config": json.dumps(config_to_dict(config)),
            },
        )

    def evaluate() -> None:
        save(last_path)
        agent = PPOAgent(game, seed=config.seed, checkpoint=last_path)
        scalars = evaluate_agent(game, agent, opponents, config.eval_games, seed=config.seed)
        for tag, value in scalars.items():
            writer.add_scalar(tag, value, model.num_timesteps)
        writer.flush()
        print(f"step {model.num_timesteps}: " + ", ".join(f"{k[5:]} {v:.1%}" for k, v in scalars.items()))

    def snapshot() -> None:
        path = folder / "pool" / f"step{model.num_timesteps}.pt"
        save(path)
        snapshots.append(str(path))
        pool.append(PPOAgent(game, checkpoint=path))
        while len(pool) > config.pool_size:
            pool.pop(0)
            snapshots.pop(0)
        writer.add_scalar("train/pool_size", len(pool), model.num_timesteps)

    if config.opponent == "self" and not pool:
        snapshot()  # the untrained policy is the first opponent
    callback = Periodic(config, {"eval": evaluate, "checkpoint": lambda: save(last_path), "snapshot": snapshot})
    remaining = config.timesteps - model.num_timesteps
    torch.manual_seed(config.seed)
    try:
        if remaining > 0:
            model.learn(remaining, callback=callback, reset_num_timesteps=resumed is None, progress_bar=config.progress)
        evaluate()
        save(final_path)
    finally:
        writer.close()
        env.close()
    return final_path


def main(argv: list[str] | None = None, prog: str = "python -m boardgym.train.ppo") -> int:
    path = train(config_from_argv(Config, argv, prog))
    print(f"final checkpoint: {path}\nplay it: ppo:checkpoint={path}")
    return 0


class PoolOpponent(BaseAgent):
    """A past policy drawn at each game's start from a shared, growing pool (or ``random``
    with probability ``random_rate``, and always while the pool is empty)."""

    def __init__(self, game: Game, pool: list[PPOAgent], random_rate: float, *, seed: int | None = None) -> None:
        super().__init__(game, seed=seed)
        self.pool = pool
        self.random_rate = random_rate
        self.fallback = RandomAgent(game, seed=seed)
        self.current: BaseAgent = self.fallback

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if not self.pool or self.rng.random() < self.random_rate:
            self.current = self.fallback
        else:
            self.current = self.pool[int(self.rng.integers(len(self.pool)))]
        self.current.reset(seed=int(self.rng.integers(2**63)))

    def act(self, game: Game, state: Any) -> Action:
        return self.current.act(game, state)


class Periodic(BaseCallback):
    """Runs each task when the step count crosses a multiple of its period."""

    def __init__(self, config: Config, tasks: dict[str, Callable[[], None]]) -> None:
        super().__init__()
        periods = {"eval": config.eval_every, "checkpoint": config.checkpoint_every}
        if config.opponent == "self":
            periods["snapshot"] = config.snapshot_every
        self.tasks = [(period, tasks[name]) for name, period in periods.items() if period > 0]
        self.last_step: int | None = None

    def _on_step(self) -> bool:
        step = self.num_timesteps
        if self.last_step is None:
            self.last_step = step - self.training_env.num_envs
        for period, task in self.tasks:
            if step // period > self.last_step // period:
                task()
        self.last_step = step
        return True


def _check_config(config: Config) -> None:
    if config.seat not in ("0", "1", "random"):
        raise BoardgymError(f"--seat {config.seat!r} must be 0, 1 or random")
    for name in ("timesteps", "n_envs", "n_steps", "batch_size", "n_epochs", "eval_games", "pool_size"):
        if getattr(config, name) < 1:
            raise BoardgymError(f"--{name.replace('_', '-')} {getattr(config, name)} must be at least 1")
    if not config.net_arch or any(not isinstance(n, int) or n < 1 for n in config.net_arch):
        raise BoardgymError(f"--net-arch {config.net_arch!r} must be positive layer sizes, e.g. 256,256")
    if not 0 <= config.pool_random <= 1:
        raise BoardgymError(f"--pool-random {config.pool_random} must be between 0 and 1")


if __name__ == "__main__":
    main()
