"""Every two-player game as an RLlib 2.x ``MultiAgentEnv`` with action masks.

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``: ``ray[rllib]``). RLlib's default
PPO module takes flat ``Box`` observations and knows nothing of masks; its action-masking
module (``ray.rllib.examples.rl_modules.classes.action_masking_rlm.ActionMaskingTorchRLModule``)
expects a ``Dict`` observation with the keys ``"observations"`` and ``"action_mask"``. This
env gives exactly that::

    from ray.tune.registry import register_env
    from boardgym.envs.rllib import BoardgymMultiAgentEnv
    register_env("boardgym", lambda config: BoardgymMultiAgentEnv(config))
    # PPOConfig().environment("boardgym", env_config={"game": "connect_four"}) ...

- ``config``: ``{"game": NAME, **game parameters}`` (what RLlib passes as ``env_config``).
- Agents ``player_0`` (moves first) and ``player_1``. Turn-based: the observation dict holds
  only the agent to move, whose action the next ``step`` expects; when the game ends both
  agents get their last observation and their reward (+1 / -1 / 0), and
  ``terminateds["__all__"]`` (``truncateds`` for a move limit) is set.
- Observation: ``{"observations": float32 planes of the mover flattened to 1-D (RLlib's
  default encoder is an MLP for 1-D boxes), "action_mask": float32 ones on legal actions}``
  (float: the masking module takes its log). The mask of a finished game is all ones, as in
  the Gymnasium envs: no action follows it.
- An illegal or missing action ends the game with -1 for the agent who made it, 0 for the
  other (``infos[agent]["illegal_action"]``), as in the AEC env.

``MaskedRandomRLModule`` is a uniformly random legal player as an RLModule (an opponent to
train against; leave it out of ``policies_to_train``), and ``RLModuleAgent`` plays a trained
module through the rules, so that ``boardgym.evaluate`` can measure it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.typing import MultiAgentDict

from boardgym.agents.base import BaseAgent
from boardgym.game import Game
from boardgym.games import make_game
from boardgym.types import Action, BoardgymError, IllegalActionError

AGENTS = ("player_0", "player_1")


def observation_space(game: Game) -> gym.spaces.Dict:
    """The ``{"observations", "action_mask"}`` space of ``game``, as the env gives it."""
    size = int(np.prod(game.observation_shape))
    return gym.spaces.Dict(
        {
            "observations": gym.spaces.Box(0.0, 1.0, (size,), np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, (game.num_actions,), np.float32),
        }
    )


def observe(game: Game, state: Any, player: int, over: bool = False) -> dict[str, np.ndarray]:
    """``player``'s observation of ``state`` (the mask all ones once the game is ``over``)."""
    planes = np.asarray(game.observation(state, player), dtype=np.float32).reshape(-1)
    if over or game.is_terminal(state):
        mask = np.ones(game.num_actions, dtype=np.float32)
    else:
        mask = game.legal_mask(state).astype(np.float32)
    return {"observations": planes, "action_mask": mask}


class BoardgymMultiAgentEnv(MultiAgentEnv):
    """A two-player game, turn by turn, for RLlib (see the module docstring)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        params = dict(config or {})
        name = params.pop("game", "tictactoe")
        self.game = make_game(name, **params) if isinstance(name, str) else name
        if self.game.num_players != 2:
            raise BoardgymError(
                f"{self.game.name} is a one-player puzzle; the RLlib env plays two-player games "
                "(train on the puzzle's gym.make env instead)"
            )
        self.agents = self.possible_agents = list(AGENTS)
        space = observation_space(self.game)
        self.observation_spaces = dict.fromkeys(AGENTS, space)
        self.action_spaces = dict.fromkeys(AGENTS, gym.spaces.Discrete(self.game.num_actions))
        self.state = self.game.initial_state()
        self.over = False

    def reset(  # type: ignore[override]  # as RLlib's own: per-agent dicts, not gymnasium's single info
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[MultiAgentDict, MultiAgentDict]:
        self.state = self.game.initial_state()
        self.over = False
        mover = self.game.current_player(self.state)
        return {AGENTS[mover]: observe(self.game, self.state, mover)}, {}

    def step(  # type: ignore[override]  # gymnasium's single-agent signature, which RLlib overrides too
        self, action_dict: MultiAgentDict
    ) -> tuple[MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict]:
        if self.over:
            raise BoardgymError("the game is over; call reset() before step()")
        game = self.game
        mover = game.current_player(self.state)
        agent = AGENTS[mover]
        action = action_dict.get(agent)
        try:
            self.state = game.apply(self.state, _action_index(action))
        except (IllegalActionError, TypeError, ValueError, OverflowError):
            rewards: MultiAgentDict = {agent: -1.0, AGENTS[1 - mover]: 0.0}
            infos: MultiAgentDict = {agent: {"illegal_action": action}}
            return self._end(rewards, truncated=False, infos=infos)
        if game.is_terminal(self.state):
            returns = game.returns(self.state)
            return self._end({a: float(returns[i]) for i, a in enumerate(AGENTS)}, game.is_truncated(self.state), {})
        nxt = game.current_player(self.state)
        done: MultiAgentDict = {"__all__": False}
        return {AGENTS[nxt]: observe(game, self.state, nxt)}, {agent: 0.0}, done, dict(done), {}

    def _end(
        self, rewards: MultiAgentDict, truncated: bool, infos: MultiAgentDict
    ) -> tuple[MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict]:
        self.over = True
        observations: MultiAgentDict = {a: observe(self.game, self.state, i, over=True) for i, a in enumerate(AGENTS)}
        terminated: MultiAgentDict = {"__all__": not truncated}
        return observations, rewards, terminated, {"__all__": truncated}, infos


class MaskedRandomRLModule(RLModule):
    """A uniformly random legal action for each observation (no weights, never trained)."""

    def setup(self) -> None:
        self._rng = np.random.default_rng()

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        masks = np.asarray(_numpy(batch[Columns.OBS]["action_mask"])) > 0
        actions = np.array([self._rng.choice(np.flatnonzero(mask)) for mask in masks], dtype=np.int64)
        return {Columns.ACTIONS: actions}

    def _forward_train(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError("MaskedRandomRLModule is not trained: leave it out of policies_to_train")


class RLModuleAgent(BaseAgent):
    """Plays the most probable legal action of a trained RLModule that takes the env's
    ``{"observations", "action_mask"}`` observations (``ActionMaskingTorchRLModule``)."""

    def __init__(self, game: Game, module: Any, *, seed: int | None = None) -> None:
        super().__init__(game, seed=seed)
        self.module = module

    def act(self, game: Game, state: Any) -> Action:
        import torch

        seen = observe(game, state, game.current_player(state))
        batch = {Columns.OBS: {key: torch.as_tensor(value)[None] for key, value in seen.items()}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].numpy()
        return int(np.argmax(np.where(seen["action_mask"] > 0, logits, -np.inf)))


ENCODER_PREFIXES = ("encoder.actor_encoder.net.mlp.", "encoder.encoder.net.mlp.")
"""Where the policy's encoder layers sit in a PPO module's state (separate or shared with the value)."""
HEAD_PREFIX = "pi.net.mlp."
RLLIB_ACTIVATIONS = {"tanh": "Tanh", "relu": "ReLU", "elu": "ELU", "silu": "SiLU", "swish": "SiLU", "linear": None}


def save_module(module: Any, path: str | Path, game: Game | str) -> Path:
    """Save the policy of a trained PPO-style RLModule (an MLP encoder and a one-layer ``pi``
    head, as ``ActionMaskingTorchRLModule`` with ``fcnet_hiddens``) as a boardgym policy file
    (``boardgym.agents.torch_policy.save_policy``), played by ``torch:checkpoint=PATH``.

    Why not RLlib's own checkpoint: ``algo.save_to_path()`` stores every module's state and
    constructor as pickles (``module_state.pkl``, ``class_and_ctor_args.pkl``), which cannot be
    read without running what they name; this file holds only the weights, read with
    ``torch.load(weights_only=True)``, and the architecture they fit."""
    from boardgym.agents.torch_policy import save_policy

    game = make_game(game) if isinstance(game, str) else game
    state = module.get_state()
    config = dict(getattr(module, "model_config", None) or {})
    if config.get("head_fcnet_hiddens"):
        raise BoardgymError(
            f"the module's pi head has hidden layers {config['head_fcnet_hiddens']}; save_module exports an MLP "
            "encoder with a one-layer head: train with head_fcnet_hiddens=[]"
        )
    name = str(config.get("fcnet_activation", "tanh")).lower()
    activation = RLLIB_ACTIVATIONS.get(name)
    if activation is None:
        raise BoardgymError(
            f"fcnet_activation {name!r} cannot be exported; use one of "
            f"{', '.join(k for k, v in RLLIB_ACTIVATIONS.items() if v)}"
        )
    prefix = next((p for p in ENCODER_PREFIXES if f"{p}0.weight" in state), None)
    if prefix is None or f"{HEAD_PREFIX}0.weight" not in state or f"{HEAD_PREFIX}1.weight" in state:
        raise BoardgymError(
            "the module is not a PPO module with an MLP encoder and a one-layer pi head "
            f"(its state holds {', '.join(list(state)[:4])}...); save_module exports ActionMaskingTorchRLModule"
        )
    numbered = sorted(
        int(key[len(prefix) :].split(".")[0]) for key in state if key.startswith(prefix) and key.endswith(".weight")
    )
    layers = [(state[f"{prefix}{i}.weight"], state[f"{prefix}{i}.bias"]) for i in numbered]
    layers.append((state[f"{HEAD_PREFIX}0.weight"], state[f"{HEAD_PREFIX}0.bias"]))
    return save_policy(path, game, layers, activation=activation, framework="rllib")


def _action_index(action: Any) -> int:
    """``action`` as an ``int``: a Python or numpy integer, or an integer array of one element
    (what RLlib's connectors hand over); anything else (None, bool, float, str) is refused."""
    if isinstance(action, (bool, np.bool_)) or action is None:
        raise IllegalActionError(f"action {action!r} is not an integer action index")
    if isinstance(action, (int, np.integer)):
        return int(action)
    if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
        return int(action.reshape(()))
    raise IllegalActionError(f"action {action!r} is not an integer action index")


def _numpy(value: Any) -> np.ndarray:
    return value.detach().cpu().numpy() if hasattr(value, "detach") else np.asarray(value)
