"""MaskablePPO (sb3-contrib) on the single-agent ``gym.make`` envs.

The learner plays ``boardgym/<Game>-v0`` against a fixed agent spec (``--opponent random``,
``--opponent mcts:simulations=50`` ...) or, with ``--opponent self``, against a pool of its
own past policies: every ``--snapshot-every`` steps the current policy is frozen into the
pool (at most ``--pool-size`` kept), and each episode draws its opponent from the pool, or
``random`` with probability ``--pool-random``. Its seat is drawn each episode unless
``--seat`` fixes it. Illegal actions are masked out (``env.action_masks()``).

SB3's own scalars go through the run's writer under the tags SB3 gives them
(``rollout/ep_rew_mean``, ``train/loss``, ``time/fps`` ...), so that an SB3 user's dashboards
read them as they are, beside the tags every method shares (``eval/``, ``perf/steps_per_s``,
``progress/games``: the games the learner finished; ``boardgym.train.scalars.SB3_BESIDE``)
and the hyper-parameters, in ``runs/<game>/ppo/<run-name>/``; the
checkpoints there hold the policy's and the optimiser's tensors, so ``--resume`` continues
the optimisation (the envs restart from fresh games). Beside ``final.pt`` the run writes
``final.zip``, SB3's own file of the final model: ``MaskablePPO.load("final.zip")`` opens it,
and so does ``ppo:checkpoint=final.zip`` (as any ``MaskablePPO.save()`` file of an
``MlpPolicy`` trained on the game's ``gym.make`` env; read without unpickling).

    boardgym train ppo --game connect_four --run-name c4-vs-random
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import KVWriter, Logger
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

from boardgym.agents.base import BaseAgent
from boardgym.agents.ppo import FORMAT, PPOAgent
from boardgym.agents.random_agent import RandomAgent
from boardgym.agents.registry import make_agent, read_spec
from boardgym.agents.sb3_zip import write_sb3_zip
from boardgym.config import option
from boardgym.game import Game
from boardgym.games import GAMES
from boardgym.train.scalars import sb3_scalars
from boardgym.train.training_run import RunConfig, TrainingRun, run_main
from boardgym.types import Action, BoardgymError

METHOD = "ppo"
SB3_ZIP = "final.zip"


@dataclass(frozen=True)
class Config(RunConfig):
    """MaskablePPO on a boardgym single-agent env, against a fixed agent or a pool of its past selves."""

    game: str = option("connect_four", "game to train on (boardgym list games)")
    seed: int = option(0, "seed of the networks, the envs and the measurement games")
    eval_every: int = option(50_000, "steps between measurements against random and the baseline (0: end only)")
    opponent: str = option("random", "agent spec the learner plays against, or 'self' for a pool of past policies")
    seat: str = option(
        "random", "learner's seat: 0 (first), 1 (second) or random each episode", choices=("0", "1", "random")
    )
    timesteps: int = option(300_000, "environment steps (learner moves) to train for", minimum=1)
    n_envs: int = option(8, "parallel environments (in one process)", minimum=1)
    n_steps: int = option(256, "steps per environment per rollout", minimum=1)
    batch_size: int = option(256, "minibatch size of the PPO updates", minimum=1)
    n_epochs: int = option(4, "passes over each rollout", minimum=1)
    learning_rate: float = option(3e-4, "Adam learning rate", minimum=0)
    gamma: float = option(0.99, "discount: below 1 prefers quicker wins", minimum=0, maximum=1)
    gae_lambda: float = option(0.95, "GAE lambda", minimum=0, maximum=1)
    clip_range: float = option(0.2, "PPO clip range", above=0, hint="e.g. 0.2")
    ent_coef: float = option(0.01, "entropy bonus", minimum=0)
    net_arch: tuple[int, ...] = option(
        (256, 256), "hidden layer sizes of the policy and value networks", minimum=1, hint="e.g. 256,256"
    )
    pool_size: int = option(10, "self-play: past policies kept in the opponent pool", minimum=1)
    snapshot_every: int = option(50_000, "self-play: steps between snapshots added to the pool", minimum=0)
    pool_random: float = option(
        0.2, "self-play: probability that an episode's opponent is random instead", minimum=0, maximum=1
    )
    checkpoint_every: int = option(50_000, "steps between checkpoints (0: end only)", minimum=0)
    device: str = option("cpu", "torch device: cpu (fastest for these small networks), cuda or auto")
    threads: int = option(1, "torch CPU threads (more only helps with large batches on an idle machine)", minimum=1)

    def check(self) -> None:
        super().check()
        if self.opponent != "self":
            read_spec(self.opponent)


def train(config: Config) -> Path:
    """Train and return the path of the final checkpoint (``ppo:checkpoint=PATH``)."""
    run = TrainingRun(
        config,
        METHOD,
        format=FORMAT,
        total=-(-config.timesteps // (config.n_steps * config.n_envs)) * config.n_steps * config.n_envs,
        unit="step",  # SB3 plays whole rollouts of n_steps x n_envs: the bar's end is the step reached
        resume_keys=("net_arch", "policy", "optimizer", "snapshots"),
    )
    game = run.game
    if game.num_players != 2:
        raise BoardgymError(f"ppo trains on two-player games; {game.name} has {game.num_players} player(s)")
    if config.opponent != "self":
        make_agent(config.opponent, game, seed=config.seed)  # a bad spec is refused before the run starts
    torch.set_num_threads(config.threads)
    game_params = game.params()
    with run:
        resumed = run.resumed
        if resumed is not None:
            with run.restoring():
                resumed_arch = [int(width) for width in resumed["net_arch"]]
        if resumed is not None and resumed_arch != list(config.net_arch):
            raise BoardgymError(
                f"--resume: the run's policy has layers {list(resumed['net_arch'])}, not {list(config.net_arch)}; "
                f"pass --net-arch {','.join(map(str, resumed['net_arch']))}"
            )
        pool: list[PPOAgent] = []
        snapshots: list[str] = []
        if resumed is not None:
            with run.restoring():
                snapshots = [p for p in json.loads(resumed["snapshots"]) if Path(str(p)).exists()]
            pool.extend(PPOAgent(game, checkpoint=Path(p)) for p in snapshots)
        seat = None if config.seat == "random" else int(config.seat)
        env_id = f"boardgym/{GAMES[game.name].gym_name}-v0"

        def make_env(index: int) -> Callable[[], gym.Env]:
            def build() -> gym.Env:
                opponent: Any = config.opponent
                if opponent == "self":
                    opponent = PoolOpponent(game, pool, config.pool_random, seed=config.seed * 1000 + index)
                return Monitor(gym.make(env_id, opponent=opponent, seat=seat, **game_params))

            return build

        env = DummyVecEnv([make_env(i) for i in range(config.n_envs)])
        run.on_close(env.close)
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
            with run.restoring():
                model.policy.load_state_dict(resumed["policy"])
                model.policy.optimizer.load_state_dict(resumed["optimizer"])
            model.num_timesteps = run.step
        model.set_logger(Logger(str(run.folder), [RunWriter(run)]))

        def payload() -> dict[str, Any]:
            return {
                "net_arch": list(config.net_arch),
                "policy": {k: v.detach().cpu() for k, v in model.policy.state_dict().items()},
                "optimizer": model.policy.optimizer.state_dict(),
                "snapshots": json.dumps(snapshots),
            }

        def measure() -> None:
            run.save(payload())
            run.measure(PPOAgent(game, seed=config.seed, checkpoint=run.checkpoint_path))

        def snapshot() -> None:
            path = run.save(payload(), run.folder / "pool" / f"step{model.num_timesteps}.pt")
            snapshots.append(str(path))
            pool.append(PPOAgent(game, checkpoint=path))
            while len(pool) > config.pool_size:
                pool.pop(0)
                snapshots.pop(0)
            run.log({"train/pool_size": len(pool)})

        if config.opponent == "self" and not pool:
            snapshot()  # the untrained policy is the first opponent
        callback = Periodic(
            run, config, {"eval": measure, "checkpoint": lambda: run.save(payload()), "snapshot": snapshot}
        )
        remaining = config.timesteps - model.num_timesteps
        torch.manual_seed(config.seed)
        if remaining > 0:
            model.learn(remaining, callback=callback, reset_num_timesteps=resumed is None, progress_bar=False)
            model.logger.dump(model.num_timesteps)  # SB3 keeps the last update's losses for a next rollout
        run.advance_to(model.num_timesteps)
        measure()
        write_sb3_zip(model, run.folder / SB3_ZIP, game)
        return run.finish(payload())


def main(argv: list[str] | None = None, prog: str = "python -m boardgym.train.ppo") -> int:
    return run_main(Config, train, argv, prog, METHOD)


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


class RunWriter(KVWriter):
    """SB3's logger output into the run's TensorBoard writer: SB3's tags as SB3 writes them,
    the cross-method tags beside them (``sb3_scalars``), and ``progress/games``."""

    def __init__(self, run: TrainingRun) -> None:
        self.run = run

    def write(self, key_values: dict[str, Any], key_excluded: dict[str, tuple[str, ...]], step: int = 0) -> None:
        scalars: dict[str, float] = {}
        for key, value in key_values.items():
            scalars.update(sb3_scalars(key, value, key_excluded.get(key)))
        if scalars:
            self.run.log(scalars, step)
            self.run.writer.flush()

    def close(self) -> None:
        """The run closes its writer."""


class Periodic(BaseCallback):
    """Moves the run's step counter with SB3's, and runs each task when the step count
    crosses a multiple of its period. The measurement is left out once ``--timesteps`` is
    reached: the last rollout still ends with an update, and the final measurement after it
    is the one that counts (measuring here too logged the end twice)."""

    def __init__(self, run: TrainingRun, config: Config, tasks: dict[str, Callable[[], object]]) -> None:
        super().__init__()
        self.run = run
        self.timesteps = config.timesteps
        periods = {"eval": config.eval_every, "checkpoint": config.checkpoint_every}
        if config.opponent == "self":
            periods["snapshot"] = config.snapshot_every
        self.tasks = [(name, period, tasks[name]) for name, period in periods.items() if period > 0]
        self.last_step: int | None = None

    def _on_step(self) -> bool:
        step = self.num_timesteps
        self.run.games += int(np.count_nonzero(self.locals["dones"]))
        self.run.advance_to(step)
        if self.last_step is None:
            self.last_step = step - self.training_env.num_envs
        for name, period, task in self.tasks:
            if name == "eval" and step >= self.timesteps:
                continue
            if step // period > self.last_step // period:
                task()
        self.last_step = step
        return True


if __name__ == "__main__":
    sys.exit(main())
