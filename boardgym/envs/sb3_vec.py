"""Stable-Baselines3's ``VecEnv`` over the native vector env (``boardgym.envs.vector``): N games
against an opponent in one process, stepped in one call, for ``PPO`` / sb3-contrib's
``MaskablePPO`` (which reads the masks through ``env_method("action_masks")``)::

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor
    from boardgym.envs.sb3_vec import BatchedVecEnv
    env = VecMonitor(BatchedVecEnv("connect_four", num_envs=256, opponent="random", seed=0))
    model = MaskablePPO("MlpPolicy", env, n_steps=64)  # 64 x 256 steps a rollout, not 2048 x 256

Stable-Baselines3 resets an env in the step that ends its episode: the returned observation is
the next episode's first, ``infos[i]["terminal_observation"]`` the last one of the episode that
ended, and ``infos[i]["TimeLimit.truncated"]`` says whether a move limit ended it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from boardgym.envs.vector import BatchedVectorEnv
from boardgym.game import Game
from boardgym.types import BoardgymError


class BatchedVecEnv(VecEnv):
    """``num_envs`` games of ``game`` against ``opponent`` (the arguments of
    ``BatchedVectorEnv``; numpy out). ``seed``: the seed of the first ``reset``, as SB3's
    ``VecEnv.seed`` sets it. As with the gym ids, the env's own options are named (``opponent``,
    ``seat``, ``device``, ``seed``) and every other keyword is a game parameter
    (``BatchedVecEnv("hex", 64, seed=0, size=7)``)."""

    def __init__(self, game: str | Game, num_envs: int = 1, *, seed: int | None = None, **kwargs: Any) -> None:
        if kwargs.get("tensors"):
            raise BoardgymError("Stable-Baselines3 reads numpy arrays: drop tensors=True")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            raise BoardgymError(f"seed={seed!r} must be a whole number from 0, or None")
        self.env = BatchedVectorEnv(game, num_envs, **kwargs)
        super().__init__(num_envs, self.env.single_observation_space, self.env.single_action_space)
        self._actions: np.ndarray | None = None
        if seed is not None:
            self.seed(int(seed))

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        observations, _ = self.env.reset(seed=seed)
        self._reset_seeds()
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        observations, rewards, terminated, truncated, _ = self.env.step(self._actions)
        done = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if done.any():
            for index in np.flatnonzero(done):
                infos[index]["terminal_observation"] = observations[index]
                infos[index]["TimeLimit.truncated"] = bool(truncated[index])
            observations, _ = self.env.start_next_episodes()
        return observations, rewards.astype(np.float32), done, infos

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.env.action_masks(), dtype=bool)

    def close(self) -> None:
        self.env.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self.env, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        self._indices(indices)  # refused before anything is set: the envs share one attribute
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> Any:
        if method_name == "action_masks":  # one row per env, as a list would give them
            return self.action_masks()[self._indices(indices)]
        chosen = self._indices(indices)
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(chosen)

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: Any = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks" or hasattr(self.env, attr_name)

    def _indices(self, indices: Any) -> Sequence[int]:
        """The envs ``indices`` names (None: all; an int; a list of ints), each from 0 to
        ``num_envs - 1``, or one sentence: SB3's own ``VecEnv`` raises ``IndexError`` here."""
        chosen = list(self._get_indices(indices))
        for index in chosen:
            if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < self.num_envs:
                raise BoardgymError(
                    f"env index {index!r} is out of range: this VecEnv holds {self.num_envs} envs, 0 to "
                    f"{self.num_envs - 1}"
                )
        return [int(index) for index in chosen]
