"""Playout kernels give the same outcome distribution as the generic legal_actions/apply loop."""

from __future__ import annotations

import random

import numpy as np
import pytest

from boardgym import make_game
from boardgym.agents.leaf import RolloutEvaluator
from boardgym.agents.playouts import playout_kernel
from boardgym.games.hex import Hex


def replay(game, moves: str):
    state = game.initial_state()
    for text in moves.split():
        state = game.apply(state, game.parse_action(state, text))
    return state


CASES = [
    ("hex", "c3 b4 d2"),  # White to move on 5x5
    ("hex", "c3 b4"),
    ("connect_four", "d d c e"),
    ("connect_four", "d c d c d"),  # O to move facing a threat on d
]


def make(name: str):
    return Hex(size=5) if name == "hex" else make_game(name)


@pytest.mark.parametrize(("name", "moves"), CASES)
def test_kernel_matches_the_generic_loop(name: str, moves: str) -> None:
    game = make(name)
    state = replay(game, moves)
    player = game.current_player(state)
    kernel = playout_kernel(game)
    assert kernel is not None
    generic = RolloutEvaluator(rng=np.random.default_rng(0), kernels=False)
    generator = random.Random(1)
    runs = 3000
    fast_mean = sum(kernel(state, player, generator) for _ in range(runs)) / runs
    slow_mean = sum(generic.playout(game, state, player) for _ in range(runs)) / runs
    # Each mean has a standard error below 0.02; 0.08 is over three standard errors of the gap.
    assert fast_mean == pytest.approx(slow_mean, abs=0.08)


def test_kernel_sees_the_immediate_result() -> None:
    game = make_game("connect_four")
    state = replay(game, "a a b b c g")  # X to move; X wins at d unless random play misses it
    kernel = playout_kernel(game)
    results = {kernel(state, 0, random.Random(seed)) for seed in range(200)}
    assert results <= {1.0, -1.0, 0.0} and 1.0 in results


def test_games_without_a_kernel_use_the_generic_loop() -> None:
    assert playout_kernel(make_game("tictactoe")) is None
    assert playout_kernel(Hex(size=5, swap=True)) is None
