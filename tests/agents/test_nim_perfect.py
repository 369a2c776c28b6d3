"""The nim-sum rule against exhaustive search, for normal and misère play and max-take k."""

from __future__ import annotations

import itertools

import pytest

from boardgym import BoardgymError, make_agent, make_game
from boardgym.agents.nim_perfect import mover_wins, winning_moves
from boardgym.agents.perfect import PerfectAgent


@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize("k", [None, 1, 2, 3])
def test_rule_matches_exhaustive_search(misere: bool, k: int | None) -> None:
    game = make_game("nim", heaps=(6, 5, 4), misere=misere, k=k)
    perfect = PerfectAgent(game)
    for heaps in itertools.product(range(7), range(6), range(5)):
        state = game.state(heaps)
        assert mover_wins(heaps, misere, k) == (perfect.value(state) > 0), heaps


@pytest.mark.parametrize("params", [{}, {"misere": True}, {"k": 3}, {"misere": True, "k": 2}])
def test_nimsum_agent_beats_random_from_a_winning_start(params: dict) -> None:
    game = make_game("nim", heaps=(1, 3, 5, 7, 9), **params)
    start = game.initial_state()
    assert winning_moves(game, start), "the start must be a first-player win for this test"
    for seed in range(20):
        players = [make_agent("nimsum", game, seed=seed), make_agent("random", game, seed=100 + seed)]
        state = start
        while not game.is_terminal(state):
            state = game.apply(state, players[game.current_player(state)].act(game, state))
        assert game.returns(state)[0] == 1.0


def test_minimax_with_the_nimsum_evaluation_is_exact_at_depth_one() -> None:
    game = make_game("nim", heaps=(3, 4, 5))
    agent = make_agent("minimax:depth=1", game, seed=0)
    state = game.initial_state()
    assert agent.act(game, state) in winning_moves(game, state)


def test_nimsum_refuses_other_games() -> None:
    with pytest.raises(BoardgymError, match="Nim only"):
        make_agent("nimsum", make_game("tictactoe"))
