"""The single-agent Gymnasium env: one seat is the learner, the other an agent from a spec.

``gym.make("boardgym/TicTacToe-v0", opponent="random", seat=None)`` — every two-player game
is registered this way. ``seat`` is 0 (move first), 1 (move second) or None (drawn at random
each episode from the env's seeded generator). Game parameters pass through
(``gym.make("boardgym/Nim-v0", heaps=(3, 4, 5), misere=True)``).

- Observation: the rules' float32 planes from the learner's point of view.
- Action mask: ``env.action_masks()`` (what sb3-contrib's MaskablePPO asks for) and
  ``info["action_mask"]`` after ``reset`` and each ``step``; int8 with ones on the legal
  actions, the dtype Gymnasium's ``action_space.sample(mask)`` takes (and the PettingZoo envs'
  ``action_mask``).
- Once an episode has ended (won, lost, drawn, truncated or ended by an illegal action) the
  mask is all ones, never all zeros. No action follows the end of an episode: a Gymnasium
  vector env (default autoreset ``NEXT_STEP``) ignores the action of the next call and resets
  instead, and ``step`` is not for a finished episode. All ones keeps a loop that masks its
  logits with ``-inf`` free of NaN (an all-zero mask would leave no finite logit) and says,
  truly, that whatever it picks there is ignored. The mask of the next episode's first
  position cannot be given instead: the next seat and the opponent's opening are drawn at
  ``reset``. A loop that learns should drop the transition of that ignored action (its
  reward is 0 and its observation the next episode's first one).
- Reward: the learner's return (+1 / -1 / 0) when the game ends, 0 before. An illegal action
  ends the episode with -1 and ``info["illegal_action"]``. Once an episode has ended,
  ``step`` refuses (``BoardgymError``) until ``reset()``.
- ``info["seat"]`` is the learner's seat, ``info["opponent_action"]`` the opponent's last reply.
- Render modes: ``ansi``, ``human`` (that picture in a pygame window after every ``reset``
  and ``step``, at ``metadata["render_fps"]``; ``close()`` closes it) and ``rgb_array`` (the
  game's picture, last move marked; see ``boardgym.envs.core``); ``env.unwrapped`` shows the
  picture in Jupyter.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import boardgym.draw as draw
from boardgym.agents.registry import make_agent
from boardgym.envs.core import RENDER_MODES, check_render_mode, human_window, render_state
from boardgym.game import Game
from boardgym.games import make_game
from boardgym.types import BoardgymError, IllegalActionError, as_action


def learner_seat(seat: int | str | None) -> int | None:
    """The learner's fixed seat, 0 or 1, from what the ``seat=`` option of this env and of the
    native vector env takes (0, 1, "0", "1"); None for None or "random" (drawn each episode)."""
    if seat in ("random", None):
        return None
    if seat in (0, 1, "0", "1") and not isinstance(seat, bool):
        return int(seat)
    raise BoardgymError(f"seat={seat!r} must be 0 (move first), 1 (move second) or None (random)")


class SingleAgentEnv(gym.Env):
    """A two-player game against a built-in opponent (see the module docstring)."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 2}

    def __init__(
        self,
        game: str | Game,
        opponent: str = "random",
        seat: int | str | None = None,
        render_mode: str | None = None,
        **game_params: Any,
    ) -> None:
        self.game = make_game(game, **game_params) if isinstance(game, str) else game
        if self.game.num_players != 2:
            raise BoardgymError(f"{self.game.name} is not a two-player game; use its own env")
        self.fixed_seat = learner_seat(seat)
        self.render_mode = check_render_mode(self.game, render_mode)
        self.window = human_window(self.game, self.render_mode, self.metadata)
        self.opponent = make_agent(opponent, self.game)
        self.observation_space = spaces.Box(0.0, 1.0, self.game.observation_shape, np.float32)
        self.action_space = spaces.Discrete(self.game.num_actions)
        self.seat = self.fixed_seat if self.fixed_seat is not None else 0
        self.state = self.game.initial_state()
        self.moves: list[int] = []  # both seats' actions this episode (the picture marks the last)
        self._episode_over = True  # until the first reset

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(self.np_random.integers(2))
        self.opponent.reset(seed=int(self.np_random.integers(2**63)))
        self.state = self.game.initial_state()
        self.moves = []
        self._episode_over = False
        info: dict[str, Any] = {"seat": self.seat}
        self._opponent_moves(info)
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info(info)

    def step(self, action: Any):
        game = self.game
        if self._episode_over:
            raise BoardgymError("the episode is over (or has not begun); call reset() before step()")
        info: dict[str, Any] = {"seat": self.seat}
        try:
            played = as_action(action)
            self.state = game.apply(self.state, played)
        except IllegalActionError:
            self._episode_over = True
            info["illegal_action"] = action
            return self._observe(), -1.0, True, False, self._info(info)
        self.moves.append(played)
        self._opponent_moves(info)
        if self.render_mode == "human":
            self.render()
        state = self.state
        if game.is_terminal(state):
            self._episode_over = True
            reward = float(game.returns(state)[self.seat])
            truncated = game.is_truncated(state)
            return self._observe(), reward, not truncated, truncated, self._info(info)
        return self._observe(), 0.0, False, False, self._info(info)

    def action_masks(self) -> np.ndarray:
        """Legal actions for the learner: int8, ones on the legal actions; all ones once the
        episode is over (the module docstring says why)."""
        if self._episode_over or self.game.is_terminal(self.state):
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
        """The position's picture, for Jupyter."""
        return draw.svg(self.game, self.state, self.moves, targets=False)

    # -- internals --------------------------------------------------------------------------
    def _opponent_moves(self, info: dict[str, Any]) -> None:
        game = self.game
        while not game.is_terminal(self.state) and game.current_player(self.state) != self.seat:
            action = self.opponent.act(game, self.state)
            self.state = game.apply(self.state, action)
            self.moves.append(int(action))
            info["opponent_action"] = action

    def _observe(self) -> np.ndarray:
        return self.game.observation(self.state, self.seat)

    def _info(self, info: dict[str, Any]) -> dict[str, Any]:
        info["action_mask"] = self.action_masks()
        return info
