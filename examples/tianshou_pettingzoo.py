"""Tianshou's PettingZoo pattern on a boardgym AEC env: a DQN learner in one seat, Tianshou's
masked random player in the other.

    pip install -e ".[tianshou]"
    python examples/tianshou_pettingzoo.py --game tictactoe --epochs 10

``tianshou.env.PettingZooEnv`` wraps ``boardgym.envs.<game>_v0.env()`` as it wraps
PettingZoo's own classic games: it reads the ``{"observation", "action_mask"}`` observations
and hands each agent's steps to its own algorithm (``MultiAgentOffPolicyAlgorithm``).

The trained policy is saved as Tianshou saves it, ``torch.save(policy.state_dict(), path)``,
and played by the agent spec ``tianshou:checkpoint=PATH``, which reads the state_dict with
``torch.load(weights_only=True)`` into the ``Net`` MLP declared here (the layer sizes from the
weights, ReLU between them). The script measures the live network against boardgym's random
agent as ``boardgym evaluate`` does (``boardgym.evaluate.measure``: seats alternated, so the
learner also plays the seat it did not train in, and evaluate's opening suite) and prints the
``boardgym evaluate`` command that plays the same games with the saved file. The last line, as
JSON: the win rate before and after training, the model's path and that command.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, SequenceSummaryStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from boardgym import make_game
from boardgym.agents.base import BaseAgent
from boardgym.evaluate.measure import measure, report
from boardgym.game import Game


class QAgent(BaseAgent):
    """The legal move of highest Q-value, for boardgym's evaluation."""

    def __init__(self, game: Game, net: Net) -> None:
        super().__init__(game)
        self.net = net

    def act(self, game: Game, state: Any) -> int:
        obs = torch.as_tensor(game.observation(state, game.current_player(state)))[None]
        with torch.no_grad():
            q = self.net(obs)[0][0].numpy()
        return int(np.argmax(np.where(game.legal_mask(state), q, -np.inf)))


def seat_stats(seat: int) -> type[CollectStats]:
    """The collector's statistics of the learner's returns. In a multi-agent env Tianshou keeps
    one return per seat (an array of shape (episodes, 2)) and its own summary flattens that,
    warning "Sequence has shape (n, 2)..." at every collect; this one reads the learner's seat
    (as ``multi_agent_return_reduction`` does for the trainer)."""

    class SeatStats(CollectStats):
        def refresh_return_stats(self) -> None:
            returns = self.returns[:, seat] if self.returns.ndim == 2 else self.returns
            self.returns_stat = SequenceSummaryStats.from_sequence(returns) if returns.size else None

    return SeatStats


def main(argv: list[str] | None = None) -> dict[str, float | str]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="tictactoe", help="a two-player game (boardgym list games)")
    parser.add_argument("--seat", type=int, default=0, choices=[0, 1], help="the learner's seat")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--steps-per-epoch", type=int, default=1000)
    parser.add_argument("--train-envs", type=int, default=4)
    parser.add_argument("--updates-per-step", type=float, default=0.5, help="gradient steps per env step")
    parser.add_argument("--eval-games", type=int, default=200, help="games against random (as boardgym evaluate)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default="runs/examples/tianshou_pettingzoo", help="folder for policy.pth")
    args = parser.parse_args(argv)

    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    module = importlib.import_module(f"boardgym.envs.{args.game}_v0")

    def make_env() -> PettingZooEnv:
        return PettingZooEnv(module.env())

    env = make_env()
    game = make_game(args.game)
    net = Net(state_shape=game.observation_shape, action_shape=game.num_actions, hidden_sizes=[128, 128])
    learner = DQN(
        policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.2, eps_inference=0.0),
        optim=AdamOptimizerFactory(lr=1e-3),
        gamma=0.9,
        n_step_return_horizon=1,
        target_update_freq=100,
    )
    random_player = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    seats = [learner, random_player] if args.seat == 0 else [random_player, learner]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=seats, env=env)

    path = Path(args.save) / "policy.pth"
    spec = f"tianshou:checkpoint={path}"
    before = measure(args.game, QAgent(game, net), "random", args.eval_games, args.seed, spec=spec)
    train_envs = DummyVectorEnv([make_env for _ in range(args.train_envs)])
    train_envs.seed(args.seed)
    collector = Collector[CollectStats](
        algorithm,
        train_envs,
        VectorReplayBuffer(20_000, len(train_envs)),
        exploration_noise=True,
        collect_stats_class=seat_stats(args.seat),
    )
    collector.reset()
    algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            test_collector=None,
            max_epochs=args.epochs,
            epoch_num_steps=args.steps_per_epoch,
            collection_step_num_env_steps=8,
            batch_size=64,
            update_step_num_gradient_steps_per_sample=args.updates_per_step,
            test_in_training=False,
            verbose=False,
            multi_agent_return_reduction=lambda returns: returns[:, args.seat],
            show_progress=False,
        )
    )
    net.eval()
    after = measure(args.game, QAgent(game, net), "random", args.eval_games, args.seed, spec=spec)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(learner.policy.state_dict(), path)
    return report(args.game, path, before, after, play=spec)


if __name__ == "__main__":
    main()
