"""Every listed heuristic runs on random positions of its game and is zero-sum where it should be."""

from __future__ import annotations

import math

import numpy as np
import pytest

from boardgym import BoardgymError, make_game
from boardgym.agents.heuristics import HEURISTICS, heuristic_names, make_heuristic
from boardgym.envs.registry import GAMES

SYMMETRIC = {"tictactoe", "connect_four", "hex", "nim", "quarto", "quixo", "rastros"}  # h(s, 0) == -h(s, 1)


def random_states(game, count: int, seed: int):
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(0, 12))):
            if game.is_terminal(state):
                break
            legal = game.legal_actions(state)
            state = game.apply(state, legal[int(rng.integers(len(legal)))])
        if not game.is_terminal(state):
            states.append(state)
    return states


@pytest.mark.parametrize("game_name", sorted(set(HEURISTICS) & set(GAMES)))
def test_each_heuristic_scores_random_positions(game_name: str) -> None:
    game = make_game(game_name, size=5) if game_name == "hex" else make_game(game_name)
    for name in heuristic_names(game):
        heuristic = make_heuristic(game, name, rng=np.random.default_rng(0))
        for state in random_states(game, 20, seed=1):
            for player in range(game.num_players):
                value = heuristic.evaluate(state, player)
                assert isinstance(value, float) and math.isfinite(value)
            if game_name in SYMMETRIC and name != "random":
                assert heuristic.evaluate(state, 0) == -heuristic.evaluate(state, 1)


def test_unknown_name_lists_the_choices() -> None:
    with pytest.raises(BoardgymError, match="choose eval= one of: windows, random"):
        make_heuristic(make_game("connect_four"), "dijkstra")
