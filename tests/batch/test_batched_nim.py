"""Nim's batched rules: the representation each variant gets, the heaps representation against
the scalar rules where the tables would serve too, a few scripted positions (normal and misère
endings, a max-take, a key beyond 64 bits), and random moves drawn uniformly."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from test_differential import DEVICES, VARIANTS, play  # the move-for-move comparison, same folder

from boardgym.batch import batched
from boardgym.batch.nim import TABLE_LIMIT, BatchedNim, BatchedNimHeaps, BatchedNimTables, table_entries
from boardgym.games.nim import Nim

BOTH = [BatchedNimTables, BatchedNimHeaps]


def test_each_variant_gets_the_representation_that_fits() -> None:
    assert len(TABLED) >= 3
    assert type(batched("nim")) is BatchedNimTables
    assert type(BatchedNim()) is BatchedNimTables
    assert type(BatchedNim(Nim((1000,)))) is BatchedNimTables  # one heap: a table, whatever its size
    assert type(BatchedNim(Nim((100, 100)))) is BatchedNimHeaps
    assert type(BatchedNim(Nim((1,) * 64))) is BatchedNimHeaps
    assert isinstance(batched("nim", heaps=(20, 30, 40, 50), k=6), BatchedNim)


TABLED = [params for params in VARIANTS["nim"] if table_entries(Nim(**params)) <= TABLE_LIMIT]


@pytest.mark.parametrize("params", TABLED)
@pytest.mark.parametrize("device", DEVICES)
def test_the_heaps_agree_with_the_scalar_rules_where_tables_serve_too(params: dict[str, Any], device: str) -> None:
    play("nim", params, device, batch=32, steps=30, seed=4, auto_reset=True, build=BatchedNimHeaps)


def take(rules: Any, state: Any, heap: int, count: int) -> Any:
    """``state`` after every game takes ``count`` from ``heap`` (numbered from 0)."""
    action = heap * rules.game.max_take + count - 1
    return rules.step(state, torch.full((len(state.current_player),), action))


@pytest.mark.parametrize("kind", BOTH)
@pytest.mark.parametrize(("misere", "rewards"), [(False, [1.0, -1.0]), (True, [-1.0, 1.0])])
def test_taking_the_last_object_wins_or_in_misere_loses(kind: type, misere: bool, rewards: list[float]) -> None:
    rules = kind(Nim((2, 3), misere=misere))
    state = take(rules, rules.init(2), 0, 2)  # player 0 empties the first heap
    assert state.current_player.tolist() == [1, 1] and not state.terminated.any()
    state = take(rules, state, 1, 1)  # player 1
    state = take(rules, state, 1, 2)  # player 0 takes the last two
    assert state.terminated.all() and state.ended.all()
    assert state.rewards.tolist() == [rewards, rewards]
    assert rules.to_scalar_states(state) == [rules.game.state((0, 0), 1)] * 2
    assert not rules.legal_mask(state).any()
    after = take(rules, state, 0, 1)  # a finished game stays as it is
    assert after.rewards.abs().sum() == 0 and rules.to_scalar_states(after) == rules.to_scalar_states(state)


@pytest.mark.parametrize("kind", BOTH)
def test_a_max_take_bounds_the_actions(kind: type) -> None:
    rules = kind(Nim((4, 5), k=2))
    assert rules.num_actions == 4
    state = rules.init(1)
    assert rules.legal_mask(state).tolist() == [[True, True, True, True]]
    state = take(rules, state, 1, 2)
    state = take(rules, state, 1, 2)
    assert rules.game.heaps_of(rules.to_scalar_states(state)[0]) == (4, 1)
    assert rules.legal_mask(state).tolist() == [[True, True, True, False]]
    illegal = take(rules, state, 1, 2)  # two from a heap of one: player 0 loses for it
    assert illegal.terminated.all() and illegal.rewards.tolist() == [[-1.0, 0.0]]
    assert rules.to_scalar_states(illegal) == rules.to_scalar_states(state)


def test_a_key_beyond_64_bits_converts_both_ways() -> None:
    game = Nim((1,) * 64, misere=True)
    rules = BatchedNim(game)
    states = [game.initial_state(), game.state((0,) * 63 + (1,), 1), game.state((0,) * 64, 0)]
    assert states[0] >= 1 << 64
    batch = rules.from_scalar_states(states)
    assert rules.to_scalar_states(batch) == states
    assert batch.terminated.tolist() == [False, False, True]
    assert batch.steps.tolist() == [0, 63, 64]  # the fewest moves there


@pytest.mark.parametrize("kind", BOTH)
def test_steps_from_a_scalar_state_are_the_fewest_moves_there(kind: type) -> None:
    game = Nim((3, 5), k=2)
    rules = kind(game)
    # 3 taken from the first heap in two moves, then player 0 to move: one more move somewhere
    states = [game.initial_state(), game.state((0, 5), 0), game.state((0, 5), 1), game.state((3, 4), 1)]
    assert rules.from_scalar_states(states).steps.tolist() == [0, 2, 3, 1]


@pytest.mark.parametrize("kind", BOTH)
@pytest.mark.parametrize("params", [{}, {"heaps": (3, 1, 4), "k": 2}])
def test_random_actions_are_uniform_over_the_legal_ones(kind: type, params: dict[str, Any]) -> None:
    game = Nim(**params)
    rules = kind(game)
    generator = torch.Generator().manual_seed(5)
    state = rules.from_scalar_states([game.initial_state()] * 20_000)
    drawn = torch.bincount(rules.random_actions(state, generator), minlength=game.num_actions)
    legal = game.legal_mask(game.initial_state())
    assert drawn[~torch.as_tensor(legal)].sum() == 0
    expected = 20_000 / legal.sum()
    assert (drawn[torch.as_tensor(legal)] - expected).abs().max() < 5 * expected**0.5


@pytest.mark.parametrize("kind", BOTH)
def test_both_players_see_the_same_rows_of_objects(kind: type) -> None:
    game = Nim((2, 3))
    rules = kind(game)
    state = rules.from_scalar_states([game.state((1, 3), 1)])
    planes = [[[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]]]
    assert rules.observation(state, 0).tolist() == [planes]
    assert rules.observation(state, 1).tolist() == [planes]
