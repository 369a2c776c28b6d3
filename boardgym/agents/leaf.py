"""Leaf evaluators for tree search: the seam between MCTS and AlphaZero.

An ``Evaluator`` scores a batch of non-terminal states at once: prior probabilities over the
game's actions (zero on illegal ones) and a value in [-1, 1] for the player to move in each
state. Batches let a network evaluate the leaves of many searches in one call; random
rollouts simply loop.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from boardgym.game import Game


@runtime_checkable
class Evaluator(Protocol):
    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """``(priors, values)``: priors ``(len(states), num_actions)`` float32 summing to 1 over
        legal actions; values ``(len(states),)`` float32 for the player to move."""
        ...


class RolloutEvaluator:
    """Uniform priors over legal actions and the result of ``rollouts`` random playouts.

    With ``kernels`` (the default) a game that has a fast playout kernel in
    ``boardgym.agents.playouts`` (Hex, Connect Four) uses it; the outcomes follow the same
    distribution as the generic ``legal_actions``/``apply`` loop, which ``kernels=False`` keeps.
    """

    def __init__(self, rollouts: int = 1, rng: np.random.Generator | None = None, kernels: bool = True) -> None:
        self.rollouts = rollouts
        self.rng = rng if rng is not None else np.random.default_rng()
        self.kernels = kernels
        # Playouts draw one number per move: the standard library's generator (seeded from
        # ``rng``) costs a fraction of a numpy call per draw.
        self._random = random.Random(int(self.rng.integers(2**63)))
        self._kernel_game: Game | None = None
        self._kernel: Any = None

    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        priors = np.zeros((len(states), game.num_actions), dtype=np.float32)
        for i, state in enumerate(states):
            legal = game.legal_actions(state)
            priors[i, legal] = 1.0 / len(legal)
        return priors, np.array(self.values(game, states), dtype=np.float32)

    def values(self, game: Game, states: Sequence[Any]) -> list[float]:
        """Only the values (UCT search needs no priors): the mean playout result for the
        player to move in each state."""
        if self.kernels and game is not self._kernel_game:
            from boardgym.agents.playouts import playout_kernel

            self._kernel_game, self._kernel = game, playout_kernel(game)
        kernel = self._kernel if self.kernels else None
        generator, rollouts = self._random, self.rollouts
        if kernel is not None and rollouts == 1:  # the common case, without the generator
            current_player = game.current_player
            return [kernel(state, current_player(state), generator) for state in states]
        values = []
        for state in states:
            player = game.current_player(state)
            if kernel is not None:
                total = sum(kernel(state, player, generator) for _ in range(rollouts))
            else:
                total = sum(self.playout(game, state, player) for _ in range(rollouts))
            values.append(total / rollouts)
        return values

    def playout(self, game: Game, state: Any, player: int) -> float:
        """Random play to the end; the return for ``player``."""
        draw = self._random.random
        is_terminal, legal_actions, apply = game.is_terminal, game.legal_actions, game.apply
        while not is_terminal(state):
            legal = legal_actions(state)
            state = apply(state, legal[int(draw() * len(legal))])
        return game.returns(state)[player]
