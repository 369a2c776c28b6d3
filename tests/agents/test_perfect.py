"""The perfect agent: known game values, and it never loses tic-tac-toe."""

from __future__ import annotations

from typing import Any

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


def _play(game: Any, agents: dict[int, Any]) -> tuple[float, ...]:
    state = game.initial_state()
    while not game.is_terminal(state):
        state = game.apply(state, agents[game.current_player(state)].act(game, state))
    return game.returns(state)


@pytest.mark.parametrize("size", [4, 5])
def test_hex_beyond_exhaustive_search_is_played_by_the_solver(size: int) -> None:
    """Hex 4x4 and 5x5 are first-player wins: perfect as Black wins every game."""
    game = make_game("hex", size=size)
    for seed in range(2):
        agents = {0: make_agent("perfect", game, seed=seed), 1: make_agent("mcts:simulations=50", game, seed=seed)}
        assert _play(game, agents)[0] == 1.0


def test_hex_perfect_as_white_wins_once_black_opens_with_a_losing_cell() -> None:
    game = make_game("hex", size=5)
    state = game.apply(game.initial_state(), game.parse_action(game.initial_state(), "a1"))  # a losing opening
    perfect = make_agent("perfect", game, seed=0)
    opponent = make_agent("random", game, seed=0)
    while not game.is_terminal(state):
        mover = perfect if game.current_player(state) == 1 else opponent
        state = game.apply(state, mover.act(game, state))
    assert game.returns(state)[1] == 1.0


def test_hex_with_swap_white_swaps_a_winning_opening() -> None:
    game = make_game("hex", size=4, swap=True)
    state = game.apply(game.initial_state(), game.parse_action(game.initial_state(), "c2"))
    assert make_agent("perfect", game, seed=0).act(game, state) == game.swap_action
