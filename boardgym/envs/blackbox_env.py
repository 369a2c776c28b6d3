"""``boardgym/BlackBox-v0``: the black-box bit-string problem as a one-step Gymnasium env.

``gym.make("boardgym/BlackBox-v0", instance=10)`` (default instance 10, genome_length
1000). Each episode is one evaluation, so any optimiser can drive it::

    env.reset(seed=0)
    _, fitness, terminated, _, info = env.step(genome)   # terminated is always True

- Action: ``MultiBinary(genome_length)``, the genome: ``genome_length`` numbers, each 0 or 1
  (anything else is refused, one sentence). After the step the episode is over and ``step``
  refuses until ``reset()``.
- Observation: ``MultiBinary(genome_length)``: zeros after ``reset``, the genome just
  evaluated after ``step``.
- Reward: the genome's fitness in [0, 1] (1.0 for all ones; see ``boardgym.games.blackbox``).
- ``info["calls"]``: fitness evaluations of the current run, over all its episodes. A run
  starts when the env is made and again at each ``reset(seed=...)`` with a seed; a plain
  ``reset()`` goes on counting. ``info["fitness"]`` is the reward, ``info["instance"]`` the
  instance number.
- Render modes: ``ansi`` (the first 100 bits and the fitness), ``rgb_array`` (the genome as
  a bit strip with its fitness, ``boardgym.draw.blackbox``; blank before the first step) and
  ``human`` (that picture in a pygame window after ``reset`` and ``step``, the ``ansi`` text
  printed where no window can open; ``boardgym.envs.window``).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import boardgym.draw as draw
from boardgym.envs.window import HumanWindow
from boardgym.games.blackbox import GENOME_LENGTH, BlackBox, BlackBoxProblem, BlackBoxState
from boardgym.types import BoardgymError


class BlackBoxEnv(gym.Env):
    """One genome per episode, fitness as reward (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        game: str = "blackbox",
        instance: int = 10,
        genome_length: int = GENOME_LENGTH,
        render_mode: str | None = None,
    ) -> None:
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise BoardgymError(
                f"render_mode={render_mode!r} is not one of {self.metadata['render_modes']} for blackbox"
            )
        self.render_mode = render_mode
        self.problem = BlackBoxProblem(instance, genome_length)
        self.window = HumanWindow("boardgym: blackbox", self.metadata["render_fps"]) if render_mode == "human" else None
        n = self.problem.genome_length
        self.action_space = spaces.MultiBinary(n)
        self.observation_space = spaces.MultiBinary(n)
        self._genome = np.zeros(n, dtype=np.int8)
        self._fitness: float | None = None
        self._episode_over = True  # until the first reset

    @property
    def calls(self) -> int:
        return self.problem.calls

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.problem.calls = 0
        self._genome = np.zeros(self.problem.genome_length, dtype=np.int8)
        self._fitness = None
        self._episode_over = False
        if self.render_mode == "human":
            self.render()
        return self._genome.copy(), {"calls": self.problem.calls, "instance": self.problem.instance}

    def step(self, action: Any):
        if self._episode_over:
            raise BoardgymError("the episode is over (or has not begun): one genome per episode; call reset() first")
        n = self.problem.genome_length
        try:
            genome = np.asarray(action)
        except Exception:  # an object numpy cannot make an array of
            genome = np.asarray(None)
        if genome.shape != (n,):
            raise BoardgymError(f"a black-box action is a genome of {n} bits; got shape {genome.shape}")
        if genome.dtype.kind not in "biuf" or not np.isin(genome, (0, 1)).all():
            raise BoardgymError(
                f"a black-box genome holds only 0s and 1s; got {genome.dtype} values such as {genome[:3]}"
            )
        self._episode_over = True
        self._genome = genome.astype(np.int8)
        self._fitness = self.problem(self._genome)
        info = {"calls": self.problem.calls, "fitness": self._fitness, "instance": self.problem.instance}
        if self.render_mode == "human":
            self.render()
        return self._genome.copy(), self._fitness, True, False, info

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi' to gym.make")
            return None
        if self.render_mode == "rgb_array":
            return draw.rgb_array(*self._position())
        if self.window is not None:
            self.window.show(lambda: draw.rgb_array(*self._position()), self._text)
            return None
        return self._text()

    def close(self) -> None:
        """Close the window of ``render_mode="human"``."""
        if self.window is not None:
            self.window.close()

    def _text(self) -> str:
        bits = "".join(map(str, self._genome.tolist()))
        score = "not evaluated" if self._fitness is None else f"fitness {self._fitness:.4f}"
        return f"{bits[:100]}...\ninstance {self.problem.instance}, {score}, {self.problem.calls} call(s)"

    def _repr_svg_(self) -> str:
        """The genome last evaluated and its fitness, for Jupyter."""
        return draw.svg(*self._position(), targets=False)

    def _position(self) -> tuple[BlackBox, BlackBoxState]:
        """The last genome as a finished position of the one-player game (nothing set before
        the first step), which is what the drawing reads."""
        game = BlackBox(self.problem.instance, self.problem.genome_length)
        if self._fitness is None:
            return game, game.initial_state()
        bits = int.from_bytes(np.packbits(self._genome.astype(np.uint8), bitorder="little").tobytes(), "little")
        return game, BlackBoxState(self.problem.genome_length, bits)
