"""Tabular Q-learning for small two-player games (Tic-Tac-Toe, Nim, 3x3 Quixo).

State-action values ``Q(s, a)`` are kept for the player on move in ``s`` and learned by
one-step Q-learning (Watkins) under epsilon-greedy play:

- self-play (``--opponent self``, the default): the target of a move is the final return
  when it ends the game, else the best value of the next state, negated when the opponent
  moves there (negamax). Both seats share one table, so the values converge to the game's
  minimax values whatever the exploration, and greedy play becomes perfect play.
- against a fixed agent (``--opponent random`` ...): the learner's seat alternates and the
  opponent's replies are part of the environment; the target is the best value of the
  learner's next state.

Seed reports 000 (reward table of a Tic-Tac-Toe player trained against random) and 003
(Q-learning and Monte Carlo on Tic-Tac-Toe, 10M episodes).

    boardgym train qlearning --game tictactoe --run-name quickstart
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from pathlib import Path

from boardgym.agents.base import Agent
from boardgym.agents.tabular import ValueTable
from boardgym.game import Game
from boardgym.train.tabular import TabularConfig, train_tabular
from boardgym.train.training_run import run_main

METHOD = "qlearning"


@dataclass(frozen=True)
class Config(TabularConfig):
    """Tabular Q-learning: epsilon-greedy self-play or play against a fixed agent."""


def train(config: Config) -> Path:
    """Train and return the path of the final checkpoint (``qlearning:checkpoint=PATH``)."""
    return train_tabular(config, METHOD, make_episode)


def main(argv: list[str] | None = None, prog: str = "python -m boardgym.train.qlearning") -> int:
    return run_main(Config, train, argv, prog, METHOD)


def make_episode(game: Game, table: ValueTable, rand: random.Random, alpha: float, opponent: Agent | None):
    """One Q-learning episode as a closure over the table (see the module docstring)."""
    rows = table.rows
    legal_actions, apply, is_terminal = game.legal_actions, game.apply, game.is_terminal
    current_player, returns = game.current_player, game.returns
    uniform = rand.random

    def row(state):
        entry = rows.get(state)
        if entry is None:
            actions = tuple(legal_actions(state))
            entry = rows[state] = [actions, [0.0] * len(actions)]
        return entry

    def choose(values: list[float], epsilon: float) -> int:
        if uniform() < epsilon:
            return int(uniform() * len(values))
        best = max(values)
        if values.count(best) == 1:
            return values.index(best)
        ties = [i for i, v in enumerate(values) if v == best]
        return ties[int(uniform() * len(ties))]

    def self_play(epsilon: float, index: int) -> tuple[float, ...]:
        state = game.initial_state()
        actions, values = row(state)
        while True:
            i = choose(values, epsilon)
            player = current_player(state)
            state = apply(state, actions[i])
            if is_terminal(state):
                result = returns(state)
                values[i] += alpha * (result[player] - values[i])
                return result
            next_actions, next_values = row(state)
            best = max(next_values)
            target = best if current_player(state) == player else -best
            values[i] += alpha * (target - values[i])
            actions, values = next_actions, next_values

    if opponent is None:
        return self_play
    rival: Agent = opponent

    def versus(epsilon: float, index: int) -> tuple[float, ...]:
        seat = index % 2
        state = game.initial_state()
        pending = None  # the learner's last (values, index), updated at its next turn
        while not is_terminal(state):
            if current_player(state) == seat:
                actions, values = row(state)
                if pending is not None:
                    last_values, last = pending
                    last_values[last] += alpha * (max(values) - last_values[last])
                i = choose(values, epsilon)
                pending = (values, i)
                state = apply(state, actions[i])
            else:
                state = apply(state, rival.act(game, state))
        result = returns(state)[seat]
        if pending is not None:
            last_values, last = pending
            last_values[last] += alpha * (result - last_values[last])
        return (result, -result)

    return versus


if __name__ == "__main__":
    sys.exit(main())
