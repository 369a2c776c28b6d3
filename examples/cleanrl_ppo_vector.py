"""A CleanRL-style single-file PPO with action masks on a Gymnasium vector env.

    python examples/cleanrl_ppo_vector.py --game connect_four        # 2048 envs x 32 steps x 30 updates
    python examples/cleanrl_ppo_vector.py --game connect_four --vector sync --num-envs 512 --num-steps 128

``--vector native`` (the default) is boardgym's own vector env, ``gym.make_vec(id, num_envs,
vectorization_mode="vector_entry_point", opponent="random", tensors=True)``: all the games and
the opponent's replies in one call on the batched rules, observations, masks and rewards as
torch tensors on ``--device``, so a rollout step costs one env call and one network call
whatever the number of envs. ``--vector sync`` is Gymnasium's ``SyncVectorEnv`` over
``gym.make`` envs, one Python env per game. Both autoreset the same way (``NEXT_STEP``): after
an episode ends, the next ``step`` ignores its action and resets that env. The masks come from
``infos["action_mask"]``; illegal actions get a logit of ``-inf``. boardgym's convention keeps
this loop free of NaN: the mask of a finished episode is all ones, never all zeros. The
transition of that ignored action (reward 0, next observation the new episode's first) is kept
out of the loss (``valid``), and GAE does not bootstrap across an episode's end.

The trained policy (the trunk and the logits head; the critic is not needed to play) is saved
with ``boardgym.agents.torch_policy.save_policy``: its weights and its declared architecture,
read back with ``torch.load(weights_only=True)`` by the agent spec ``torch:checkpoint=PATH``.
The script measures the live network against random as ``boardgym evaluate`` does
(``boardgym.evaluate.measure``: seats alternated, evaluate's opening suite) and prints the
``boardgym evaluate`` command that plays the same games with the saved file. The last line, as
JSON: the win rate before and after training, the environment steps per second of the whole
training loop (rollouts and updates), the model's path and that command.

TensorBoard, with CleanRL's tags stepped by the global environment step: ``charts/episodic_return``
(the mean return of the episodes that ended in each rollout), ``charts/learning_rate``,
``charts/SPS``, ``losses/value_loss``, ``losses/policy_loss``, ``losses/entropy``,
``losses/approx_kl``, ``losses/clipfrac``, and the hyper-parameters as a table under Text, in
``runs/<game>__cleanrl_ppo_vector__<seed>__<time>`` (CleanRL's run name; ``--runs`` moves the
folder): ``tensorboard --logdir runs``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from torch import nn

import boardgym  # noqa: F401  (registers the gym ids)
from boardgym import make_game
from boardgym.agents.base import BaseAgent
from boardgym.agents.torch_policy import save_policy
from boardgym.evaluate.measure import Measured, measure, report
from boardgym.game import Game
from boardgym.games import gym_id


class ActorCritic(nn.Module):
    """One trunk, two heads: the policy's logits and the value (one pass for both, half the
    cost of two networks, which is most of a step once the games are batched). ReLU rather
    than CleanRL's tanh: on a CPU tanh and its gradient cost more than the two linear layers."""

    def __init__(self, inputs: int, actions: int, hidden: int = 64) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.logits = nn.Linear(hidden, actions)
        self.critic = nn.Linear(hidden, 1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The logits, illegal actions at ``-inf``, and the value of each observation."""
        features = self.trunk(obs)
        return self.logits(features).masked_fill(~mask, -torch.inf), self.critic(features).squeeze(-1)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(self.trunk(obs)).squeeze(-1)


class NetworkAgent(BaseAgent):
    """The most probable legal move of the network, for boardgym's evaluation."""

    def __init__(self, game: Game, net: ActorCritic) -> None:
        super().__init__(game)
        self.net = net

    def act(self, game: Game, state: Any) -> int:
        obs = torch.as_tensor(game.observation(state, game.current_player(state))).flatten()[None]
        mask = torch.as_tensor(game.legal_mask(state), dtype=torch.bool)[None]
        with torch.no_grad():
            return int(self.net(obs, mask)[0].argmax())


def main(argv: list[str] | None = None) -> dict[str, float | str]:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--game", default="tictactoe", help="a two-player game (boardgym list games)")
    parser.add_argument("--vector", choices=["native", "sync"], default="native", help="boardgym's or Gymnasium's")
    parser.add_argument("--num-envs", type=int, default=2048, help="games played at once")
    parser.add_argument("--num-steps", type=int, default=32, help="steps per env per update")
    parser.add_argument("--updates", type=int, default=30, help="rollouts, each followed by an update")
    parser.add_argument("--epochs", type=int, default=4, help="passes over a rollout per update")
    parser.add_argument("--minibatches", type=int, default=4, help="minibatches a pass")
    parser.add_argument("--lr", type=float, default=2.5e-3, help="Adam's learning rate")
    parser.add_argument("--gamma", type=float, default=0.99, help="discount")
    parser.add_argument("--gae-lambda", type=float, default=0.95, help="GAE's lambda")
    parser.add_argument("--clip", type=float, default=0.2, help="PPO's clip range")
    parser.add_argument("--ent-coef", type=float, default=0.01, help="weight of the entropy bonus")
    parser.add_argument("--eval-games", type=int, default=200, help="games against random (as boardgym evaluate)")
    parser.add_argument("--device", default="cpu", help="where the network (and the native env's games) run")
    parser.add_argument("--seed", type=int, default=0, help="seed of the network, the envs and the measurement")
    parser.add_argument("--save", default="runs/examples/cleanrl_ppo_vector", help="folder for policy.pt")
    parser.add_argument("--runs", default="runs", help="folder of the TensorBoard runs")
    args = parser.parse_args(argv)

    from torch.utils.tensorboard import SummaryWriter

    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    run_name = f"{args.game}__{Path(__file__).stem}__{args.seed}__{int(time.time())}"
    writer = SummaryWriter(str(Path(args.runs) / run_name))
    writer.add_text(
        "hyperparameters", "|param|value|\n|-|-|\n" + "\n".join(f"|{key}|{value}|" for key, value in vars(args).items())
    )
    game = make_game(args.game)
    if args.vector == "native":
        envs = gym.make_vec(
            gym_id(args.game),
            num_envs=args.num_envs,
            vectorization_mode="vector_entry_point",
            opponent="random",
            device=device,
            tensors=True,
        )
    else:
        envs = gym.vector.SyncVectorEnv([lambda: gym.make(gym_id(args.game), opponent="random")] * args.num_envs)
    inputs = int(np.prod(envs.single_observation_space.shape))
    n_actions = int(envs.single_action_space.n)
    net = ActorCritic(inputs, n_actions).to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr, eps=1e-5)

    def tensor(values: Any, dtype: torch.dtype) -> torch.Tensor:
        """The native env's tensors as they are; the sync env's numpy arrays copied over."""
        if isinstance(values, torch.Tensor):
            return values.to(dtype)
        return torch.as_tensor(np.asarray(values), dtype=dtype, device=device)

    path = Path(args.save) / "policy.pt"
    spec = f"torch:checkpoint={path}"

    def measured() -> Measured:
        agent = NetworkAgent(game, net.cpu())
        result = measure(args.game, agent, "random", args.eval_games, args.seed, spec=spec)
        net.to(device)
        return result

    before = measured()
    T, N = args.num_steps, args.num_envs
    obs_buf = torch.zeros(T, N, inputs, device=device)
    mask_buf = torch.zeros(T, N, n_actions, dtype=torch.bool, device=device)
    actions, logprobs, rewards, values, dones = (torch.zeros(T, N, device=device) for _ in range(5))
    valid = torch.zeros(T, N, dtype=torch.bool, device=device)

    started = time.perf_counter()
    observations, infos = envs.reset(seed=args.seed)
    obs = tensor(observations, torch.float32).flatten(1)
    mask = tensor(infos["action_mask"], torch.bool)
    ended = torch.zeros(N, dtype=torch.bool, device=device)  # the last step ended an episode: this step only resets
    for update in range(args.updates):
        for t in range(T):
            obs_buf[t], mask_buf[t], valid[t] = obs, mask, ~ended
            with torch.no_grad():
                logits, values[t] = net(obs, mask)
                dist = torch.distributions.Categorical(logits=logits)
                action = dist.sample()
                logprobs[t] = dist.log_prob(action)
            actions[t] = action
            observations, reward, terminated, truncated, infos = envs.step(
                action if args.vector == "native" else action.cpu().numpy()
            )
            ended = tensor(terminated, torch.bool) | tensor(truncated, torch.bool)
            rewards[t], dones[t] = tensor(reward, torch.float32), ended.float()
            obs = tensor(observations, torch.float32).flatten(1)
            mask = tensor(infos["action_mask"], torch.bool)

        with torch.no_grad():  # GAE; an episode's end (dones) stops the bootstrap
            advantages = torch.zeros(T, N, device=device)
            next_value, running = net.value(obs), torch.zeros(N, device=device)
            for t in reversed(range(T)):
                following = next_value if t == T - 1 else values[t + 1]
                alive = 1.0 - dones[t]
                delta = rewards[t] + args.gamma * following * alive - values[t]
                running = delta + args.gamma * args.gae_lambda * alive * running
                advantages[t] = running
            returns = advantages + values

        keep = valid.reshape(-1)
        b_obs, b_mask = obs_buf.reshape(T * N, -1)[keep], mask_buf.reshape(T * N, -1)[keep]
        b_actions, b_logprobs = actions.reshape(-1)[keep], logprobs.reshape(-1)[keep]
        b_adv, b_returns = advantages.reshape(-1)[keep], returns.reshape(-1)[keep]
        size = len(b_obs)
        for _ in range(args.epochs):
            for batch in torch.randperm(size, device=device).chunk(args.minibatches):
                logits, value = net(b_obs[batch], b_mask[batch])
                dist = torch.distributions.Categorical(logits=logits)
                ratio = (dist.log_prob(b_actions[batch]) - b_logprobs[batch]).exp()
                adv = b_adv[batch]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                value_loss = 0.5 * (value - b_returns[batch]).pow(2).mean()
                entropy = dist.entropy().mean()
                loss = policy_loss + 0.5 * value_loss - args.ent_coef * entropy
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                optimizer.step()
                with torch.no_grad():
                    log_ratio = ratio.log()
                    approx_kl = ((ratio - 1) - log_ratio).mean()
                    clipfrac = ((ratio - 1.0).abs() > args.clip).float().mean()
        global_step = (update + 1) * T * N
        finished = rewards[dones.bool()]
        if finished.numel():
            print(f"update {update + 1}: {finished.numel()} episodes, mean return {finished.mean():.2f}")
            writer.add_scalar("charts/episodic_return", float(finished.mean()), global_step)
        writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
        writer.add_scalar("losses/value_loss", float(value_loss), global_step)
        writer.add_scalar("losses/policy_loss", float(policy_loss), global_step)
        writer.add_scalar("losses/entropy", float(entropy), global_step)
        writer.add_scalar("losses/approx_kl", float(approx_kl), global_step)
        writer.add_scalar("losses/clipfrac", float(clipfrac), global_step)
        writer.add_scalar("charts/SPS", int(global_step / (time.perf_counter() - started)), global_step)
    seconds = time.perf_counter() - started
    envs.close()
    writer.close()
    print(f"charts: tensorboard --logdir {args.runs}")
    after = measured()
    save_policy(path, game, [net.trunk[0], net.trunk[2], net.logits], activation="ReLU", framework="cleanrl")
    return report(args.game, path, before, after, play=spec, env_steps_per_second=T * N * args.updates / seconds)


if __name__ == "__main__":
    main()
