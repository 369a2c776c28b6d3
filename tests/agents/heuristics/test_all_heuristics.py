"""Every listed heuristic runs on random positions of its game and is zero-sum where it should be."""

from __future__ import annotations

import math

import numpy as np
import pytest

from boardgym import BoardgymError, make_game
from boardgym.agents.heuristics import heuristic_names, make_heuristic
from boardgym.games import GAMES


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


@pytest.mark.parametrize("game_name", [name for name, entry in GAMES.items() if entry.heuristics])
def test_each_heuristic_scores_random_positions(game_name: str) -> None:
    """Every heuristic of a two-player game is zero-sum: h(s, 0) == -h(s, 1) (but random)."""
    game = make_game(game_name, size=5) if game_name == "hex" else make_game(game_name)
    for name in heuristic_names(game):
        heuristic = make_heuristic(game, name, rng=np.random.default_rng(0))
        for state in random_states(game, 20, seed=1):
            for player in range(game.num_players):
                value = heuristic.evaluate(state, player)
                assert isinstance(value, float) and math.isfinite(value)
            if name != "random":
                assert heuristic.evaluate(state, 0) == -heuristic.evaluate(state, 1)


def test_unknown_name_lists_the_choices() -> None:
    with pytest.raises(BoardgymError, match="choose eval= one of: windows, random"):
        make_heuristic(make_game("connect_four"), "dijkstra")


def test_feature_weights_plug_in_and_are_checked() -> None:
    game = make_game("rastros")
    state = game.initial_state()
    features = game.features(state, 0)
    weighted = make_heuristic(game, "features", weights=[1.0, 2.0, 3.0, 4.0])
    assert weighted.evaluate(state, 0) == pytest.approx(float(features @ np.array([1.0, 2.0, 3.0, 4.0])))
    with pytest.raises(BoardgymError, match="4 features but 2 weights"):
        make_heuristic(game, "features", weights=[1.0, 2.0])
    with pytest.raises(BoardgymError, match="eval=features only"):
        make_heuristic(game, "paths", weights=[1.0, 2.0, 3.0, 4.0])
