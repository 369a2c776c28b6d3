"""The shared environment machinery: one PettingZoo AEC env for every two-player ``Game``.

A game module supplies only its rules object::

    env, raw_env = make_env_fns("tictactoe")

Conventions, written down once for every game:

- Agents are ``player_0`` (moves first) and ``player_1``.
- ``observe(agent)`` is ``{"observation": planes, "action_mask": mask}``: ``planes`` are the
  rules' float32 planes from that agent's point of view, ``mask`` is int8 with ones on the
  legal actions, and all zeros for the agent not on move or once the game is over.
- Rewards are +1 / -1 / 0 when the game ends. An illegal or out-of-range action ends the game
  with -1 for the agent who played it and 0 for the other (what PettingZoo's
  ``TerminateIllegalWrapper`` does), and ``infos[agent]["illegal_action"]`` records it.
- A game that ends by a move limit (``game.is_truncated``) ends with ``truncations`` set.
- ``env()`` and ``raw_env()`` return the same class: the checks PettingZoo's standard wrappers
  add (order enforcing: no ``step``/``observe`` before ``reset``; illegal-move termination) are
  built in, so the AEC loop pays for no wrapper indirection on every attribute.
- Once every agent is done (each stepped with ``None`` after the end), ``step`` warns and
  does nothing and ``last()`` warns and gives the final observation, as PettingZoo's classic
  envs do, until ``reset()``. A done agent may only be stepped with ``None``.
- ``state()`` is the global state PettingZoo's API asks for (``state_space``): the board's
  planes from ``player_0``'s side. The rules' own state is ``env.game_state``.
- ``render()``: ``"ansi"`` returns the rules' text board with coordinates, ``"human"`` shows
  the picture in a pygame window after every ``reset`` and ``step``, at ``metadata["render_fps"]``
  (``boardgym.envs.window``; the text board printed where no window can open; ``close()``
  closes it), ``"rgb_array"`` returns the game's picture (``boardgym.draw``: the SVG drawing
  rasterised, last move marked) as a ``(height, width, 3)`` uint8 array whose size depends
  only on the game's parameters. In Jupyter an env shows that picture (``_repr_svg_``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import boardgym.draw as draw
from boardgym.envs.window import HumanWindow
from boardgym.game import Game
from boardgym.games import make_game
from boardgym.types import Action, BoardgymError, IllegalActionError, as_action

RENDER_MODES = ["ansi", "human", "rgb_array"]


class BoardgymAECEnv(AECEnv):
    """PettingZoo AEC env over any two-player ``Game`` (see the module docstring)."""

    metadata = {"render_modes": RENDER_MODES, "name": "boardgym", "is_parallelizable": False, "render_fps": 2}

    def __init__(self, game: Game, render_mode: str | None = None) -> None:
        super().__init__()
        self.game = game
        self.render_mode = check_render_mode(game, render_mode)
        self.metadata = {**self.metadata, "name": f"{game.name}_v0"}
        self.possible_agents = [f"player_{i}" for i in range(game.num_players)]
        self._index = {agent: i for i, agent in enumerate(self.possible_agents)}
        n = game.num_actions
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, game.observation_shape, np.float32),
                    "action_mask": spaces.Box(0, 1, (n,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(n) for agent in self.possible_agents}
        self.state_space = spaces.Box(0.0, 1.0, game.observation_shape, np.float32)
        self._no_moves = np.zeros(n, dtype=np.int8)
        self.game_state = game.initial_state()
        self.moves: list[Action] = []  # this game's actions so far (the picture marks the last)
        self._has_reset = False
        self.window = human_window(game, self.render_mode, self.metadata)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.game_state = self.game.initial_state()
        self.moves = []
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_player(self.game_state)]
        self._game_over = False
        self._final = (False, False)  # (terminated, truncated) once the game is over
        self._has_reset = True
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            raise RuntimeError("call reset() before observe()")
        game, state = self.game, self.game_state
        planes = game.observation(state, self._index[agent])
        mask = self._no_moves.copy()
        if agent == self.agent_selection and not self._game_over:
            mask[game.legal_actions(state)] = 1
        return {"observation": planes, "action_mask": mask}

    def step(self, action: Action | None) -> None:
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            gymnasium.logger.warn("step() called after every agent is done; call reset() to play again")
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise BoardgymError(
                    f"{agent} is done (the game is over), so its only action is None; step(None) or reset()"
                )
            self._was_dead_step(action)
            return
        game, state = self.game, self.game_state
        self._cumulative_rewards[agent] = 0.0
        try:
            played = as_action(action)
            self.game_state = state = game.apply(state, played)
        except IllegalActionError:
            self._end_game({a: (-1.0 if a == agent else 0.0) for a in self.agents}, truncated=False)
            self.infos[agent]["illegal_action"] = action
            self.agent_selection = self._next_agent(agent)
        else:
            self.moves.append(played)
            if game.is_terminal(state):
                returns = game.returns(state)
                self._end_game({a: float(returns[self._index[a]]) for a in self.agents}, game.is_truncated(state))
                self.agent_selection = self._next_agent(agent)
            else:
                self.agent_selection = self.possible_agents[game.current_player(state)]
        if self.render_mode == "human":
            self.render()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The observation, cumulative reward, termination, truncation and info of the agent
        to act; once every agent is done, the final observation of the last one (a warning)."""
        if self._has_reset and not self.agents:
            gymnasium.logger.warn("last() called after every agent is done; call reset() to play again")
            agent = self.agent_selection
            return (self.observe(agent) if observe else None, 0.0, *self._final, {})
        return super().last(observe)

    def state(self) -> np.ndarray:
        """The global state (PettingZoo's ``state()``, in ``state_space``): the planes of the
        position from ``player_0``'s side."""
        return self.game.observation(self.game_state, 0)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' to the env")
            return None
        return render_state(self.game, self.game_state, self.render_mode, self.moves, self.window)

    def close(self) -> None:
        """Close the window of ``render_mode="human"``."""
        if self.window is not None:
            self.window.close()

    def _repr_svg_(self) -> str:
        """The position's picture, for Jupyter."""
        return draw.svg(self.game, self.game_state, self.moves, targets=False)

    # -- internals --------------------------------------------------------------------------
    def _end_game(self, rewards: dict[str, float], truncated: bool) -> None:
        self._game_over = True
        self._final = (not truncated, truncated)
        self.rewards = rewards
        done = dict.fromkeys(self.agents, True)
        if truncated:
            self.truncations = done
        else:
            self.terminations = done
        self._accumulate_rewards()

    def _next_agent(self, agent: str) -> str:
        agents = self.agents
        return agents[(agents.index(agent) + 1) % len(agents)]


def check_render_mode(game: Game, render_mode: str | None) -> str | None:
    """``render_mode`` if it is one of ``RENDER_MODES`` (every game has all three: a game
    without a drawing of its own is drawn by ``boardgym.draw.text``)."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise BoardgymError(f"render_mode={render_mode!r} is not one of {RENDER_MODES} for {game.name}")
    return render_mode


def human_window(game: Game, render_mode: str | None, metadata: dict[str, Any]) -> HumanWindow | None:
    """The window an env shows ``game`` in for ``render_mode="human"`` (else ``None``), at the
    env's ``metadata["render_fps"]``."""
    if render_mode != "human":
        return None
    return HumanWindow(f"boardgym: {game.name}", float(metadata["render_fps"]))


def render_state(
    game: Game, state: Any, mode: str, history: Sequence[Action] = (), window: HumanWindow | None = None
) -> str | np.ndarray | None:
    """Render ``state`` in ``mode``: the text board (``ansi``), the picture with the last move
    of ``history`` marked (``rgb_array``), or that picture shown in ``window`` (``human``; the
    text board printed where no window can open or none is given)."""
    if mode == "rgb_array":
        return draw.rgb_array(game, state, history[-2:])
    if mode == "ansi":
        return game.render(state)
    if window is None:
        print(game.render(state), flush=True)
    else:
        window.show(lambda: draw.rgb_array(game, state, history[-2:]), lambda: game.render(state))
    return None


def make_env_fns(game_name: str) -> tuple[Callable[..., BoardgymAECEnv], Callable[..., BoardgymAECEnv]]:
    """The ``env`` and ``raw_env`` functions of a ``boardgym.envs.<game>_v0`` module:
    ``env(render_mode=None, **game_params)``; both build the same env (see the module doc)."""

    def raw_env(render_mode: str | None = None, **game_params: Any) -> BoardgymAECEnv:
        return BoardgymAECEnv(make_game(game_name, **game_params), render_mode=render_mode)

    raw_env.__doc__ = f"The AEC env of {game_name}; keyword arguments go to the rules."
    return raw_env, raw_env
