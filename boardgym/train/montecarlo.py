"""Monte Carlo control with state-action values, for small two-player games.

Every-visit, constant-step Monte Carlo: after each episode of epsilon-greedy play, every move
made is pulled toward the final return of the player who made it,
``Q(s, a) += alpha * (G - Q(s, a))``. No bootstrapping, so the values are those of the
epsilon-greedy policies being played; as epsilon decays they approach the greedy values.
Self-play (``--opponent self``) shares one table between both seats; against a fixed agent
(``--opponent random`` ...) only the learner's moves are updated, its seat alternating.

Seed report 003 (Monte Carlo and Q-learning players for Tic-Tac-Toe).

    boardgym train montecarlo --game tictactoe --run-name mc
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from pathlib import Path

from boardgym.agents.base import Agent
from boardgym.agents.tabular import ValueTable
from boardgym.config import option
from boardgym.game import Game
from boardgym.train.tabular import TabularConfig, train_tabular
from boardgym.train.training_run import run_main

METHOD = "montecarlo"


@dataclass(frozen=True)
class Config(TabularConfig):
    """Every-visit Monte Carlo control: epsilon-greedy self-play or play against a fixed agent."""

    episodes: int = option(200_000, "training episodes (games)")
    alpha: float = option(0.1, "step size pulling each value toward the observed return")
    epsilon_end: float = option(0.0, "exploration rate reached at the end of the decay")
    epsilon_decay: float = option(0.9, "fraction of the episodes over which epsilon decays linearly")


def train(config: Config) -> Path:
    """Train and return the path of the final checkpoint (``montecarlo:checkpoint=PATH``)."""
    return train_tabular(config, METHOD, make_episode)


def main(argv: list[str] | None = None, prog: str = "python -m boardgym.train.montecarlo") -> int:
    return run_main(Config, train, argv, prog, METHOD)


def make_episode(game: Game, table: ValueTable, rand: random.Random, alpha: float, opponent: Agent | None):
    """One Monte Carlo episode as a closure over the table (see the module docstring)."""
    rows = table.rows
    legal_actions, apply, is_terminal = game.legal_actions, game.apply, game.is_terminal
    current_player, returns = game.current_player, game.returns
    uniform = rand.random

    def play(epsilon: float, seat: int | None) -> tuple[tuple[float, ...], list]:
        """Play one game; ``seat`` None means every seat learns. Returns the final returns
        and the learner's moves as (values, index, player)."""
        state = game.initial_state()
        moves = []
        while not is_terminal(state):
            player = current_player(state)
            if seat is not None and player != seat:
                assert opponent is not None  # a seat is given only against a fixed agent
                state = apply(state, opponent.act(game, state))
                continue
            entry = rows.get(state)
            if entry is None:
                actions = tuple(legal_actions(state))
                entry = rows[state] = [actions, [0.0] * len(actions)]
            actions, values = entry
            if uniform() < epsilon:
                i = int(uniform() * len(values))
            else:
                best = max(values)
                ties = [j for j, v in enumerate(values) if v == best]
                i = ties[int(uniform() * len(ties))] if len(ties) > 1 else ties[0]
            moves.append((values, i, player))
            state = apply(state, actions[i])
        return returns(state), moves

    def episode(epsilon: float, index: int) -> tuple[float, ...]:
        seat = None if opponent is None else index % 2
        result, moves = play(epsilon, seat)
        for values, i, player in moves:
            values[i] += alpha * (result[player] - values[i])
        if seat is None:
            return result
        return (result[seat], -result[seat])

    return episode


if __name__ == "__main__":
    sys.exit(main())
