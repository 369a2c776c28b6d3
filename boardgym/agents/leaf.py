"""Leaf evaluators for tree search: the seam between MCTS and AlphaZero.

An ``Evaluator`` scores a batch of non-terminal states at once: prior probabilities over the
game's actions (zero on illegal ones) and a value in [-1, 1] for the player to move in each
state. Batches let a network evaluate the leaves of many searches in one call; random
rollouts simply loop.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Protocol, runtime_checkable

import numpy as np

from boardgym.game import Game, HasRandomPlayout, generic_playout
from boardgym.types import Player


@runtime_checkable
class Evaluator(Protocol):
    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """``(priors, values)``: priors ``(len(states), num_actions)`` float32 summing to 1 over
        legal actions; values ``(len(states),)`` float32 for the player to move."""
        ...


@runtime_checkable
class ValueEvaluator(Evaluator, Protocol):
    """An evaluator that can also give the values alone, which is all UCT search reads: the
    search then skips building prior arrays."""

    def values(self, game: Game, states: Sequence[Any]) -> list[float]:
        """The values of ``evaluate``, for the player to move in each state."""
        ...


class RolloutEvaluator:
    """Uniform priors over legal actions and the mean result of ``rollouts`` random playouts.

    A game that declares ``HasRandomPlayout`` (Hex, Connect Four) plays its own, faster
    playouts, whose outcomes follow the same distribution as ``generic_playout``'s loop over
    ``legal_actions``/``apply``; ``game_playouts=False`` keeps the generic loop for every game.
    """

    def __init__(self, rollouts: int = 1, rng: np.random.Generator | None = None, game_playouts: bool = True) -> None:
        self.rollouts = rollouts
        self.rng = rng if rng is not None else np.random.default_rng()
        self.game_playouts = game_playouts
        # Playouts draw one number per move: the standard library's generator (seeded from
        # ``rng``) costs a fraction of a numpy call per draw.
        self._random = random.Random(int(self.rng.integers(2**63)))
        self._playout_game: Game | None = None
        self._playout: Callable[[Any, Player, random.Random], float] | None = None

    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        priors = np.zeros((len(states), game.num_actions), dtype=np.float32)
        for i, state in enumerate(states):
            legal = game.legal_actions(state)
            priors[i, legal] = 1.0 / len(legal)
        return priors, np.array(self.values(game, states), dtype=np.float32)

    def values(self, game: Game, states: Sequence[Any]) -> list[float]:
        """Only the values (UCT search needs no priors): the mean playout result for the
        player to move in each state."""
        playout = self._playout
        if playout is None or game is not self._playout_game:  # once per game: isinstance on a Protocol is slow
            if self.game_playouts and isinstance(game, HasRandomPlayout):
                playout = game.random_playout
            else:
                playout = partial(generic_playout, game)
            self._playout, self._playout_game = playout, game
        generator, rollouts, current_player = self._random, self.rollouts, game.current_player
        if rollouts == 1:  # the common case, in one comprehension
            return [playout(state, current_player(state), generator) for state in states]
        values = []
        for state in states:
            player = current_player(state)
            values.append(sum(playout(state, player, generator) for _ in range(rollouts)) / rollouts)
        return values

    def value_function(self, game: Game) -> Callable[[Any], float]:
        """``values`` for one state at a time: the function a search calls per leaf (same
        generator, same draws, no lists)."""
        self.values(game, [])  # picks the playout for this game
        playout, generator, rollouts, current_player = self._playout, self._random, self.rollouts, game.current_player
        assert playout is not None
        if rollouts == 1:
            return lambda state: playout(state, current_player(state), generator)

        def value(state: Any) -> float:
            player = current_player(state)
            return sum(playout(state, player, generator) for _ in range(rollouts)) / rollouts

        return value

    def playout(self, game: Game, state: Any, player: Player) -> float:
        """One random game from ``state`` to the end with this evaluator's generator, by the
        generic loop; the return for ``player``."""
        return generic_playout(game, state, player, self._random)
