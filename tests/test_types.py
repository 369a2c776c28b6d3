"""``as_action``: the one place where a game's ``apply`` and an env's ``step`` read an action."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from boardgym.games import GAMES, make_game
from boardgym.types import IllegalActionError, as_action

NOT_ACTIONS: list[Any] = [
    None,
    3.0,
    2.5,
    float("nan"),
    float("inf"),
    "3",
    True,
    False,
    np.bool_(True),
    np.float64(2.0),
    np.array(None),
    np.array(4.9),
    np.array("4"),
    np.array([1]),
    [1],
    (1,),
    {1},
    b"1",
    1 + 0j,
]


@pytest.mark.parametrize("value", [3, np.int64(3), np.uint8(3), np.int8(3), np.array(3), np.array(3, np.uint16)])
def test_integers_become_plain_ints(value: Any) -> None:
    action = as_action(value)
    assert action == 3 and type(action) is int


@pytest.mark.parametrize("value", NOT_ACTIONS, ids=repr)
def test_anything_else_is_refused_by_name(value: Any) -> None:
    with pytest.raises(IllegalActionError, match="is not an action index"):
        as_action(value)


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_refuses_non_integers_before_and_after_the_end(name: str) -> None:
    game = make_game(name)
    state = game.initial_state()
    final = state
    while not game.is_terminal(final):
        final = game.apply(final, game.legal_actions(final)[-1])
    for position in (state, final):
        for value in NOT_ACTIONS:
            with pytest.raises(IllegalActionError):
                game.apply(position, value)
        for value in (-1, game.num_actions, 2**70, -(2**70)):
            with pytest.raises(IllegalActionError):
                game.apply(position, value)


@pytest.mark.parametrize("name", list(GAMES))
def test_numpy_integers_give_the_same_state_as_ints(name: str) -> None:
    game = make_game(name)
    state = game.initial_state()
    for _ in range(6):
        if game.is_terminal(state):
            break
        action = game.legal_actions(state)[-1]
        for kind in (np.uint8, np.int64):
            if action <= np.iinfo(kind).max:
                assert game.apply(state, kind(action)) == game.apply(state, action)
        state = game.apply(state, np.int64(action))
        parts = state if isinstance(state, tuple) else (state,)  # tic-tac-toe's state is one int
        assert all(type(part) is not np.int64 for part in parts if not isinstance(part, tuple))


def test_quarto_takes_a_uint8_choice_without_overflow() -> None:
    game = make_game("quarto")
    state = game.apply(game.initial_state(), np.uint8(31))
    assert state == game.apply(game.initial_state(), 31)
    game.apply(state, np.uint8(3))


def test_setcover_counts_a_set_given_as_a_numpy_integer() -> None:
    game = make_game("setcover", problem_size=20, num_sets=80)
    state = game.apply(game.initial_state(), np.int64(70))
    assert game.cost(state) == 1 and state.taken == 1 << 70
