"""RLlib multi-agent PPO with action masks on a boardgym game: a learner against a random
legal player, each taking a random seat every episode.

    pip install -e ".[rllib]"
    python examples/rllib_multi_agent.py --game tictactoe --iterations 20

RLlib's action-masking module (``ActionMaskingTorchRLModule``, shipped with RLlib's examples)
reads the ``{"observations", "action_mask"}`` observations of
``boardgym.envs.rllib.BoardgymMultiAgentEnv``; the opponent is
``MaskedRandomRLModule``, left out of training.

The trained module's policy is exported with ``boardgym.envs.rllib.save_module`` into a
boardgym policy file (its weights and declared architecture, read back with
``torch.load(weights_only=True)`` by the agent spec ``torch:checkpoint=PATH``), not left in
RLlib's checkpoint, whose module state and constructor are pickles that cannot be read without
running them. The script measures the live module against random as ``boardgym evaluate`` does
(``boardgym.evaluate.measure``: seats alternated, evaluate's opening suite) and prints the
``boardgym evaluate`` command that plays the same games with the exported file. The last line,
as JSON: the win rate before and after training, the model's path and that command.
"""

from __future__ import annotations

import argparse
import logging
import zlib
from pathlib import Path

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

from boardgym import make_game
from boardgym.envs.rllib import BoardgymMultiAgentEnv, MaskedRandomRLModule, RLModuleAgent, save_module
from boardgym.evaluate.measure import Measured, measure, report


def learner_seat(agent_id: str, episode, **kwargs) -> str:
    """The learner takes seat 0 or 1 by the episode's id; random has the other."""
    seat = zlib.crc32(str(episode.id_).encode()) % 2
    return "learner" if agent_id == f"player_{seat}" else "random"


def measured(game, module, games: int, seed: int, spec: str) -> Measured:
    """The live module against random, as ``boardgym evaluate`` plays ``spec``."""
    return measure(game.name, RLModuleAgent(game, module), "random", games, seed, spec=spec)


def main(argv: list[str] | None = None) -> dict[str, float | str]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="tictactoe")
    parser.add_argument("--iterations", type=int, default=20, help="PPO iterations")
    parser.add_argument("--batch", type=int, default=2000, help="env steps per iteration")
    parser.add_argument("--eval-games", type=int, default=200, help="games against random (as boardgym evaluate)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default="runs/examples/rllib_multi_agent", help="folder for policy.pt")
    args = parser.parse_args(argv)

    ray.init(num_cpus=1, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
    register_env("boardgym", lambda config: BoardgymMultiAgentEnv(config))
    game = make_game(args.game)
    config = (
        PPOConfig()
        .environment("boardgym", env_config={"game": args.game})
        .env_runners(num_env_runners=0, num_envs_per_env_runner=1)
        .multi_agent(policies={"learner", "random"}, policy_mapping_fn=learner_seat, policies_to_train=["learner"])
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    "learner": RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": [64, 64]}
                    ),
                    "random": RLModuleSpec(module_class=MaskedRandomRLModule),
                }
            )
        )
        .training(train_batch_size_per_learner=args.batch, minibatch_size=256, num_epochs=4, lr=1e-3)
        .debugging(seed=args.seed)
    )
    path = Path(args.save) / "policy.pt"
    spec = f"torch:checkpoint={path}"
    algo = config.build_algo()
    try:
        before = measured(game, algo.get_module("learner"), args.eval_games, args.seed, spec)
        for iteration in range(args.iterations):
            result = algo.train()
            returns = result["env_runners"].get("module_episode_returns_mean", {}).get("learner")
            print(f"iteration {iteration + 1}: learner's mean return {returns}")
        after = measured(game, algo.get_module("learner"), args.eval_games, args.seed, spec)
        save_module(algo.get_module("learner"), path, game)
    finally:
        algo.stop()
        ray.shutdown()
    return report(args.game, path, before, after, play=spec)


if __name__ == "__main__":
    main()
