"""The perfect agent: known game values, and it never loses tic-tac-toe."""

from __future__ import annotations

import pytest

from boardgym import BoardgymError, make_agent, make_game


def test_tictactoe_is_a_draw() -> None:
    game = make_game("tictactoe")
    perfect = make_agent("perfect", game)
    assert perfect.value(game.initial_state()) == 0
    assert set(perfect.action_values(game.initial_state()).values()) == {0}  # every opening draws


def test_takes_the_fastest_win_and_blocks() -> None:
    game = make_game("tictactoe")
    perfect = make_agent("perfect", game)
    state = game.initial_state()
    for move in ("a1", "a2", "b1", "b2"):  # X: a1 b1, O: a2 b2; X to move
        state = game.apply(state, game.parse_action(state, move))
    assert game.action_to_str(state, perfect.act(game, state)) == "c1"
    state = game.apply(state, game.parse_action(state, "c3"))  # X misses; O must win at c2
    assert game.action_to_str(state, perfect.act(game, state)) == "c2"


@pytest.mark.parametrize("seat", [0, 1])
def test_never_loses_tictactoe_against_random(seat: int) -> None:
    game = make_game("tictactoe")
    perfect = make_agent("perfect", game, seed=1)
    for episode in range(100):
        opponent = make_agent("random", game, seed=episode)
        players = {seat: perfect, 1 - seat: opponent}
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.apply(state, players[game.current_player(state)].act(game, state))
        assert game.returns(state)[seat] >= 0


def test_perfect_against_itself_draws() -> None:
    game = make_game("tictactoe")
    agents = [make_agent("perfect", game, seed=s) for s in (1, 2)]
    state = game.initial_state()
    while not game.is_terminal(state):
        state = game.apply(state, agents[game.current_player(state)].act(game, state))
    assert game.returns(state) == (0.0, 0.0)


def test_refuses_games_too_large_for_exhaustive_search() -> None:
    with pytest.raises(BoardgymError, match="too large for the perfect agent"):
        make_agent("perfect", make_game("connect_four"))
