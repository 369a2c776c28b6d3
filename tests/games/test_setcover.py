"""Set cover rules: scripted instances, refusal of unsolvable ones, and the A* support
(heuristic admissible and consistent, branching rule keeps the optimum) against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardgym import make_game
from boardgym.games.setcover import SetCover, SetCoverState
from boardgym.types import BoardgymError, IllegalActionError

# Elements 0..4; the smallest cover is {0, 3} (sets "0 1 2" and "3 4").
#   set 0: ###..
#   set 1: ..##.
#   set 2: ....#
#   set 3: ...##
SMALL = "0 1 2;2 3;4;3 4"


def test_scripted_cover() -> None:
    game = SetCover(sets=SMALL)
    assert (game.problem_size, game.num_sets, game.num_actions) == (5, 4, 4)
    state = game.initial_state()
    assert game.legal_actions(state) == [0, 1, 2, 3]
    state = game.apply(state, 0)
    assert state == SetCoverState(taken=0b0001, covered=0b00111)
    assert game.legal_actions(state) == [1, 2, 3] and not game.is_terminal(state)
    assert game.returns(state) == (0.0,)
    state = game.apply(state, 3)
    assert game.is_terminal(state) and game.returns(state) == (-2.0,)
    assert game.legal_actions(state) == []
    assert "all covered" in game.render(state)


def test_taking_a_set_twice_is_illegal() -> None:
    game = SetCover(sets=SMALL)
    state = game.apply(game.initial_state(), 1)
    with pytest.raises(IllegalActionError, match="not legal"):
        game.apply(state, 1)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        game.apply(state, 4)
    with pytest.raises(IllegalActionError):
        game.parse_action(state, "one")
    assert game.parse_action(state, " 3 ") == 3


def test_observation_marks_taken_sets_then_covered_elements() -> None:
    game = SetCover(sets=SMALL)
    planes = game.observation(game.apply(game.initial_state(), 2), 0)
    assert planes.dtype == np.float32 and planes.shape == game.observation_shape == (9,)
    assert planes.tolist() == [0, 0, 1, 0, 0, 0, 0, 0, 1]


def test_unsolvable_instances_are_refused() -> None:
    with pytest.raises(BoardgymError, match=r"no solution: element\(s\) 3 are in no set"):
        SetCover(sets="0 1;2;4")
    # (5, 10, 0.3) with seed 0 leaves element 4 in no set.
    with pytest.raises(BoardgymError, match="element.*4.*another seed or a higher density"):
        SetCover(5, 10, 0.3, seed=0)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"density": 0.0}, "density"),
        ({"num_sets": 0}, "num_sets"),
        ({"problem_size": -1}, "problem_size"),
        ({"sets": "a b;c"}, "cannot read"),
    ],
)
def test_bad_parameters_name_the_value(params: dict, message: str) -> None:
    with pytest.raises(BoardgymError, match=message):
        SetCover(**params)


def test_random_instance_is_seeded_and_rebuilds_from_params() -> None:
    game = make_game("setcover", problem_size=20, num_sets=50, density=0.2, seed=3)
    assert game.masks == SetCover(20, 50, 0.2, 3).masks
    assert game.masks != SetCover(20, 50, 0.2, 4).masks
    assert make_game("setcover", **game.params()).masks == game.masks
    explicit = make_game("setcover", sets=game.sets_text())
    assert explicit.masks == game.masks and explicit.params() == {"sets": game.sets_text()}
    density = np.mean([m.bit_count() for m in SetCover(50, 200, 0.2, 0).masks]) / 50
    assert 0.17 < density < 0.23


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(4, 9), sets=st.integers(6, 11), walk=st.integers(0, 2**31))
def test_heuristic_is_admissible_and_consistent(seed: int, size: int, sets: int, walk: int) -> None:
    try:
        game = SetCover(size, sets, 0.35, seed)
    except BoardgymError:
        return  # unsolvable draw
    rng = np.random.default_rng(walk)
    state = game.initial_state()
    while not game.is_terminal(state):
        # Cost to go from `state`: the smallest cover of the uncovered elements.
        need = _cover_to_go(game, state)
        assert game.heuristic(state) <= need, "heuristic overestimates"
        action = int(rng.choice(game.legal_actions(state)))
        child = game.apply(state, action)
        assert game.heuristic(state) <= 1 + game.heuristic(child), "heuristic is not consistent"
        state = child
    assert game.heuristic(state) == 0


def _cover_to_go(game: SetCover, state: SetCoverState) -> int:
    uncovered = game.universe & ~state.covered
    for size in range(0, game.num_sets + 1):
        for combination in itertools.combinations(game.masks, size):
            union = 0
            for mask in combination:
                union |= mask
            if union & uncovered == uncovered:
                return size
    raise AssertionError("unsolvable")


def test_search_actions_hold_the_rarest_uncovered_element() -> None:
    game = SetCover(sets=SMALL)
    # Element 0 is only in set 0 (so are 1 and 2): branching on it leaves one choice.
    assert game.search_actions(game.initial_state()) == [0]
    state = game.apply(game.initial_state(), 0)
    assert game.search_actions(state) == [1, 3]  # element 3 is in sets 1 and 3; 4 in 2 and 3
    assert game.search_key(state) == state.covered
