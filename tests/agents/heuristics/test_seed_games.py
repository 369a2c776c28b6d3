"""Quarto, Quixo and Rastros evaluations on scripted positions, and the tactics they give
alpha-beta on random positions: take a win in one, never hand Quarto's opponent a win."""

from __future__ import annotations

import numpy as np
import pytest

from boardgym import make_agent, make_game
from boardgym.agents.heuristics import make_heuristic
from boardgym.agents.heuristics.quarto import deadly_pieces, winning_cells
from boardgym.agents.heuristics.rastros import UNREACHABLE, path_distance
from boardgym.games.quarto import CHOOSE
from boardgym.games.rastros import GOALS, START, cell_index


def quarto_opening():
    """Row 1 holds pieces 0000, 0001, 0010 (all with attributes 2 and 3 at 0); P1 chooses."""
    game = make_game("quarto")
    state = game.initial_state()
    for action in (CHOOSE + 0, 0, CHOOSE + 1, 1, CHOOSE + 2, 2):
        state = game.apply(state, action)
    return game, state


def test_quarto_deadly_pieces_and_winning_cells() -> None:
    game, state = quarto_opening()
    deadly = deadly_pieces(state)
    safe = [p for p in range(16) if state.available >> p & 1 and not deadly >> p & 1]
    assert safe == [12, 13, 14, 15]
    after = game.apply(state, CHOOSE + 5)  # 0101: attribute 3 is 0, like the row
    assert winning_cells(after, 5) == [3]
    evaluation = make_heuristic(game, "safe")
    assert evaluation.evaluate(after, after.player) == 1000.0


@pytest.mark.parametrize("depth", [1, 2])
def test_quarto_gives_a_safe_piece_and_takes_the_win(depth: int) -> None:
    game, state = quarto_opening()
    agent = make_agent(f"minimax:depth={depth}", game, seed=0)
    assert agent.act(game, state) - CHOOSE in (12, 13, 14, 15)
    after = game.apply(state, CHOOSE + 5)
    assert agent.act(game, after) == 3


def test_rastros_path_distance() -> None:
    # From (4,5): three king moves to N's goal (1,8), four to S's goal (8,1).
    assert path_distance(START, 0, GOALS[1], GOALS[0]) == 3
    assert path_distance(START, 0, GOALS[0], GOALS[1]) == 4
    # A black wall across row 5 (all but the last column) forces a detour through (5,8):
    # three moves there, then seven more (down the diagonal to (8,5), then along row 8).
    wall = sum(1 << cell_index(5, c) for c in range(1, 8))
    assert path_distance(START, wall, GOALS[0], GOALS[1]) == 10
    # Walling the white stone in completely makes both goals unreachable.
    ring = sum(1 << cell_index(4 + dr, 5 + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)
    assert path_distance(START, ring, GOALS[0], GOALS[1]) == UNREACHABLE


def test_rastros_evaluation_prefers_being_nearer_ones_goal() -> None:
    game = make_game("rastros")
    evaluation = make_heuristic(game, "paths")
    state = game.initial_state()
    assert evaluation.evaluate(state, 0) == -1.0  # S is one step further from its goal
    assert make_heuristic(game, "features").evaluate(state, 0) == -1.0  # same on the empty board


def random_positions(game, count: int, seed: int, max_plies: int = 30):
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(0, max_plies))):
            if game.is_terminal(state):
                break
            legal = game.legal_actions(state)
            state = game.apply(state, legal[int(rng.integers(len(legal)))])
        if not game.is_terminal(state):
            found.append(state)
    return found


@pytest.mark.parametrize("name", ["quarto", "quixo", "rastros", "connect_four", "tictactoe"])
def test_takes_a_win_in_one_whenever_there_is_one(name: str) -> None:
    game = make_game(name)
    agent = make_agent("minimax:depth=2", game, seed=0)
    checked = 0
    for state in random_positions(game, 150, seed=3):
        player = game.current_player(state)
        wins = []
        for action in game.legal_actions(state):
            child = game.apply(state, action)
            if game.is_terminal(child) and game.returns(child)[player] > 0:
                wins.append(action)
        if wins:
            checked += 1
            assert agent.act(game, state) in wins
    assert checked >= 5


def test_quarto_never_hands_over_a_win_when_a_safe_piece_exists() -> None:
    game = make_game("quarto")
    agent = make_agent("minimax:depth=1", game, seed=0)
    checked = 0
    for state in random_positions(game, 300, seed=4, max_plies=24):
        if game.is_placing(state):
            continue
        deadly = deadly_pieces(state)
        if not state.available & ~deadly or not deadly & state.available:
            continue
        checked += 1
        piece = agent.act(game, state) - CHOOSE
        assert not deadly >> piece & 1
    assert checked >= 10
