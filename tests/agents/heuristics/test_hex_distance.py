"""Hex remaining-cells distance on scripted boards."""

from __future__ import annotations

import pytest

from boardgym.agents.heuristics import make_heuristic
from boardgym.agents.heuristics.hex import distance, unreachable
from boardgym.games.hex import Hex, stones


def replay(game, moves: str):
    state = game.initial_state()
    for text in moves.split():
        state = game.apply(state, game.parse_action(state, text))
    return state


@pytest.mark.parametrize("size", [3, 5, 7, 11])
def test_empty_board_needs_size_cells(size: int) -> None:
    game = Hex(size=size)
    assert distance(game, 0, 0, 0) == size
    assert distance(game, 0, 0, 1) == size


def test_distances_count_empty_cells_and_respect_walls() -> None:
    game = Hex(size=5)
    #      a b c d e
    #   1  X . . . .
    #    2  X . . . .
    #     3  O O O O .      White's wall leaves Black only column e (e4 e5 are Black's).
    state = replay(game, "a1 a3 a2 b3 e5 c3 e4 d3")
    black, white = stones(state)
    # Black's shortest way: e1 e2 e3 then its own e4 e5.
    assert distance(game, black, white, 0) == 3
    # White's a3..d3 needs e3 only.
    assert distance(game, white, black, 1) == 1
    evaluation = make_heuristic(game, "dijkstra")
    assert evaluation.evaluate(state, 1) == 2 == -evaluation.evaluate(state, 0)


def test_blocked_player_is_unreachable() -> None:
    game = Hex(size=3)
    state = replay(game, "a1 a2 b1 b2 c3 c2")  # White joined a2 b2 c2: Black is cut off
    assert distance(game, stones(state)[0], stones(state)[1], 0) == unreachable(game) == 10
    assert distance(game, stones(state)[1], stones(state)[0], 1) == 0


def test_two_distance_on_the_empty_3x3_board() -> None:
    """Potential 4 (two-distance 2 to each edge, or 1 + 3) on the short diagonal c1 b2 a3:
    exactly the cells where the first player wins, and nowhere else."""
    game = Hex(size=3)
    evaluation = make_heuristic(game, "twodistance")
    assert evaluation.potential(0, 0, 0) == (4, 3)
    assert evaluation.potential(0, 0, 1) == (4, 3)
    assert evaluation.evaluate(game.initial_state(), 0) == 0.0


def test_two_distance_prefers_the_stone_that_helps() -> None:
    game = Hex(size=5)
    evaluation = make_heuristic(game, "twodistance")
    centre = game.apply(game.initial_state(), game.parse_action(game.initial_state(), "c3"))
    corner = game.apply(game.initial_state(), game.parse_action(game.initial_state(), "a1"))
    assert evaluation.evaluate(centre, 0) > evaluation.evaluate(corner, 0) > -1
