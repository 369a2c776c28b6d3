"""``boardgym/SetCover-v0``: the set covering puzzle as a Gymnasium env.

``gym.make("boardgym/SetCover-v0")`` builds the default instance (problem_size=20,
num_sets=40, density=0.2, seed=0); instance parameters pass as keyword arguments
(``gym.make("boardgym/SetCover-v0", problem_size=50, num_sets=100, seed=1)`` or
``sets="0 1 2;2 3;3 4"``). The instance is fixed for the env's life: ``reset(seed=...)``
seeds the env's generator, it does not draw a new instance.

- Action: ``Discrete(num_sets)``, take set ``i``. The mask (``env.action_masks()`` and
  ``info["action_mask"]``, int8) allows the sets not yet taken; once every element is covered it is
  all ones (and after truncation too), as in the two-player envs (``boardgym.envs.single_agent``): the action after the
  end is never played, and a loop masking logits with ``-inf`` gets no NaN.
- Observation: float32 ``Box(0, 1, (num_sets + problem_size,))``: taken sets, then covered
  elements.
- Reward: -1 per step. The episode terminates once every element is covered, so the return
  is minus the size of the cover found. An illegal action (a set already taken) is a wasted
  step: -1, nothing changes, ``info["illegal_action"]`` records it; so is an action that is
  not an integer index (``as_action``). After ``num_sets`` steps without a cover the episode
  is truncated; once it has ended, ``step`` refuses (``BoardgymError``) until ``reset()``.
- ``info["covered"]`` counts the covered elements. Render modes: ``ansi``, ``human`` (the
  picture in a pygame window, ``boardgym.envs.window``), ``rgb_array`` (the sets as rows,
  covered elements below: ``boardgym.draw.setcover``).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import boardgym.draw as draw
from boardgym.envs.core import RENDER_MODES, check_render_mode, human_window, render_state
from boardgym.games import make_game
from boardgym.games.setcover import SetCover
from boardgym.types import BoardgymError, IllegalActionError, as_action


class SetCoverEnv(gym.Env):
    """One set cover instance (see the module docstring)."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 2}

    def __init__(self, game: str | SetCover = "setcover", render_mode: str | None = None, **params: Any) -> None:
        built = make_game(game, **params) if isinstance(game, str) else game
        if not isinstance(built, SetCover):
            raise BoardgymError(f"SetCoverEnv plays set cover instances, not {built.name}")
        self.game: SetCover = built
        self.render_mode = check_render_mode(self.game, render_mode)
        self.window = human_window(self.game, self.render_mode, self.metadata)
        self.observation_space = spaces.Box(0.0, 1.0, self.game.observation_shape, np.float32)
        self.action_space = spaces.Discrete(self.game.num_actions)
        self.state = self.game.initial_state()
        self.steps = 0
        self.moves: list[int] = []  # the sets taken, in order
        self._episode_over = True  # until the first reset

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.state = self.game.initial_state()
        self.steps = 0
        self.moves = []
        self._episode_over = False
        if self.render_mode == "human":
            self.render()
        return self.game.observation(self.state, 0), self._info({})

    def step(self, action: Any):
        if self._episode_over:
            raise BoardgymError("the episode is over (or has not begun); call reset() before step()")
        info: dict[str, Any] = {}
        self.steps += 1
        try:
            played = as_action(action)
            self.state = self.game.apply(self.state, played)
            self.moves.append(played)
        except IllegalActionError:
            info["illegal_action"] = action
        if self.render_mode == "human":
            self.render()
        terminated = self.game.is_terminal(self.state)
        truncated = not terminated and self.steps >= self.game.num_sets
        self._episode_over = terminated or truncated
        return self.game.observation(self.state, 0), -1.0, terminated, truncated, self._info(info)

    def action_masks(self) -> np.ndarray:
        """The sets not yet taken: int8, ones on the legal actions; all ones once the episode is
        over (every element covered, or truncated: the module docstring says why)."""
        if self._episode_over or self.game.is_terminal(self.state) or self.steps >= self.game.num_sets:
            return np.ones(self.game.num_actions, dtype=np.int8)
        return self.game.legal_mask(self.state).astype(np.int8)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi' to gym.make")
            return None
        return render_state(self.game, self.state, self.render_mode, self.moves, self.window)

    def close(self) -> None:
        """Close the window of ``render_mode="human"``."""
        if self.window is not None:
            self.window.close()

    def _repr_svg_(self) -> str:
        """The instance and the sets taken, for Jupyter."""
        return draw.svg(self.game, self.state, self.moves, targets=False)

    def _info(self, info: dict[str, Any]) -> dict[str, Any]:
        info["action_mask"] = self.action_masks()
        info["covered"] = self.state.covered.bit_count()
        return info
