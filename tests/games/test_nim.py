"""Nim: action encoding, normal and misère endings, max-take k, and perfect play against the
nim-sum rule."""

from __future__ import annotations

import random
from functools import reduce
from itertools import product
from operator import xor

import pytest

from boardgym import BoardgymError, IllegalActionError, make_agent, make_game


def test_default_heaps_and_action_encoding() -> None:
    game = make_game("nim")
    assert game.heaps == (1, 3, 5, 7, 9) and game.max_take == 9 and game.num_actions == 45
    state = game.initial_state()
    after = game.apply(state, 2 * 9 + 2)  # heap index 2 (five objects), take three
    assert game.heaps_of(after) == (1, 3, 2, 7, 9) and game.current_player(after) == 1
    assert game.action_to_str(state, 20) == "3:3" and game.parse_action(state, "3:3") == 20


def test_taking_more_than_the_heap_is_illegal() -> None:
    game = make_game("nim")
    with pytest.raises(IllegalActionError, match="1:2"):
        game.apply(game.initial_state(), game.parse_action(game.initial_state(), "1:1") + 1)


@pytest.mark.parametrize(("misere", "winner"), [(False, 0), (True, 1)])
def test_who_takes_the_last_object(misere: bool, winner: int) -> None:
    game = make_game("nim", heaps=(2,), misere=misere)
    end = game.apply(game.initial_state(), game.parse_action(game.initial_state(), "1:2"))
    assert game.is_terminal(end) and game.returns(end)[winner] == 1


def test_max_take_k_limits_the_moves() -> None:
    game = make_game("nim", heaps=(5, 2), k=3)
    assert game.num_actions == 6
    assert [game.action_to_str(game.initial_state(), a) for a in game.legal_actions(game.initial_state())] == [
        "1:1",
        "1:2",
        "1:3",
        "2:1",
        "2:2",
    ]


@pytest.mark.parametrize("bad", [(), (0, 3), "a,b", (-1,)])
def test_bad_heaps_are_refused(bad) -> None:
    with pytest.raises(BoardgymError, match="heaps"):
        make_game("nim", heaps=bad)


def _normal_win(heaps: tuple[int, ...], k: int | None) -> bool:
    return reduce(xor, (h % (k + 1) if k else h for h in heaps), 0) != 0


def _misere_win(heaps: tuple[int, ...]) -> bool:
    if max(heaps) <= 1:
        return sum(heaps) % 2 == 0  # all heaps of one: lose exactly when their number is odd
    return reduce(xor, heaps, 0) != 0


@pytest.mark.parametrize(
    ("misere", "k"), [(False, None), (True, None), (False, 2), (False, 3)], ids=["normal", "misere", "k2", "k3"]
)
def test_perfect_play_agrees_with_the_nim_sum_rule(misere: bool, k: int | None) -> None:
    game = make_game("nim", heaps=(1, 3, 5, 7), misere=misere, k=k)
    perfect = make_agent("perfect", game)
    for heaps in product(range(2), range(4), range(6), range(8)):
        if not any(heaps):
            continue
        expected = _misere_win(heaps) if misere else _normal_win(heaps, k)
        assert (perfect.value(game.state(heaps)) > 0) == expected, heaps


@pytest.mark.parametrize("heaps", [(1, 3, 5, 7, 9), (1000, 999)], ids=["tabulated", "too-large-to-tabulate"])
def test_every_state_reached_by_play_has_the_key_of_its_heaps(heaps: tuple[int, ...]) -> None:
    game = make_game("nim", heaps=heaps, k=3)
    rng = random.Random(0)
    for _ in range(20):
        state = game.initial_state()
        while not game.is_terminal(state):
            assert state == game.state(game.heaps_of(state), game.current_player(state))
            legal = game.legal_actions(state)
            state = game.apply(state, legal[rng.randrange(len(legal))])
        assert state == game.state((0,) * len(heaps), game.current_player(state)) and not any(game.heaps_of(state))
    with pytest.raises(IllegalActionError, match="not legal"):
        game.apply(game.state((0,) + heaps[1:]), 0)  # the first heap is empty


@pytest.mark.parametrize("bad", [(1, 3), (2, 3, 5, 7, 9), (1, 3, 5, 7, -1)])
def test_states_built_from_heaps_must_fit_the_game(bad: tuple[int, ...]) -> None:
    with pytest.raises(BoardgymError, match="do not fit"):
        make_game("nim").state(bad)
    with pytest.raises(BoardgymError, match="player 2"):
        make_game("nim").state((1, 3, 5, 7, 9), 2)
