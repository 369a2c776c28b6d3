"""What every batched game shares (``boardgym.batch.core``): illegal and out-of-range actions
end a game with -1 for its player, finished games stand still, auto-reset keeps how the old game
ended, ``where`` and ``restart`` touch only their games, the same seed gives the same games, and
each bad argument is one sentence."""

from __future__ import annotations

import pytest
import torch

from boardgym.batch import batched
from boardgym.batch.core import BatchedGame, cat_rows, put_rows, put_rows_, take_rows, where_rows
from boardgym.batch.graph_safety import assert_same
from boardgym.games import GAMES
from boardgym.types import BoardgymError

BATCHED = [name for name, entry in GAMES.items() if entry.batched]


def test_an_illegal_or_out_of_range_action_ends_the_game_with_minus_one_for_its_player() -> None:
    rules = batched("tictactoe")
    state = rules.step(rules.init(3), torch.tensor([4, 4, 4]))  # X takes the centre everywhere
    state = rules.step(state, torch.tensor([4, 9, -1]))  # O: a taken cell, past the end, negative
    assert state.terminated.tolist() == [True] * 3 and state.ended.tolist() == [True] * 3
    assert state.rewards.tolist() == [[0.0, -1.0]] * 3
    assert not rules.legal_mask(state).any()
    again = rules.step(state, torch.tensor([0, 0, 0]))  # a finished game stands still
    assert again.ended.tolist() == [False] * 3 and again.rewards.abs().sum() == 0
    assert rules.to_scalar_states(again) == rules.to_scalar_states(state)


def test_auto_reset_starts_over_and_keeps_how_the_old_game_ended() -> None:
    rules = batched("tictactoe")
    state = rules.init(2)
    for cell in (0, 3, 1, 4):
        state = rules.step(state, torch.tensor([cell, cell]))
    state = rules.step(state, torch.tensor([2, 8]), auto_reset=True)  # game 0: X completes the top row
    assert state.ended.tolist() == [True, False] and state.rewards.tolist() == [[1.0, -1.0], [0.0, 0.0]]
    assert rules.to_scalar_states(state)[0] == rules.game.initial_state()
    assert not state.terminated[0] and state.steps.tolist() == [0, 5]


def test_where_and_restart_touch_only_their_games() -> None:
    rules = batched("connect_four")
    state = rules.step(rules.init(3), torch.tensor([3, 3, 3]), where=torch.tensor([True, False, True]))
    assert state.steps.tolist() == [1, 0, 1] and state.current_player.tolist() == [1, 0, 1]
    state = rules.restart(state, torch.tensor([False, False, True]))
    assert state.steps.tolist() == [1, 0, 0]


@pytest.mark.parametrize("name", BATCHED)
def test_the_same_seed_gives_the_same_games(name: str) -> None:
    def play(seed: int) -> list[object]:
        rules = batched(name)
        generator = torch.Generator().manual_seed(seed)
        state = rules.init(16, generator)
        for _ in range(30):
            state = rules.step(state, rules.random_actions(state, generator), auto_reset=True, generator=generator)
        return rules.to_scalar_states(state)

    assert play(7) == play(7)
    assert play(7) != play(8)


@pytest.mark.parametrize("name", BATCHED)
def test_random_actions_are_legal_and_uniform(name: str) -> None:
    rules = batched(name)
    generator = torch.Generator().manual_seed(0)
    state = rules.init(200 * rules.num_actions, generator)  # about 200 draws of each start move
    actions = rules.random_actions(state, generator)
    legal = rules.legal_mask(state)
    assert legal.gather(1, actions.unsqueeze(1)).all()
    counts = torch.bincount(actions, minlength=rules.num_actions)[legal[0]].float()
    assert counts.min() > 0.5 * counts.mean()  # every legal start move comes up about as often


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda rules: rules.init(0), "batch=0 must be a whole number of games"),
        (lambda rules: rules.init(-1), "batch=-1"),
        (lambda rules: rules.init(2.5), "batch=2.5"),
        (lambda rules: rules.init(True), "batch=True"),
        (lambda rules: rules.step(rules.init(2), torch.tensor([1, 2, 3])), r"shape \(3,\); the batch holds 2"),
        (lambda rules: rules.step(rules.init(2), torch.tensor([[1, 2]])), r"shape \(1, 2\)"),
        (lambda rules: rules.step(rules.init(2), torch.tensor([1.0, float("nan")])), "actions are torch.float32"),
        (lambda rules: rules.step(rules.init(2), torch.tensor([True, False])), "actions are torch.bool"),
        (lambda rules: rules.step(rules.init(2), [1, 2]), "must be a torch tensor"),
        (lambda rules: rules.step(rules.init(2), torch.tensor([1, 2]), where=torch.tensor([1, 0])), "where must be"),
        (lambda rules: rules.observation(rules.init(2), 2), "player=2 must be 0 or 1"),
        (lambda rules: rules.observation(rules.init(2), torch.tensor([0])), "player must be 0, 1 or a tensor of 2"),
    ],
)
def test_bad_arguments_are_one_sentence(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(BoardgymError, match=message):
        call(batched("connect_four"))


def test_devices_and_games_without_batched_rules_are_one_sentence() -> None:
    with pytest.raises(BoardgymError, match="unknown device 'gpu'"):
        batched("tictactoe", device="gpu")
    if not torch.cuda.is_available():
        with pytest.raises(BoardgymError, match="CUDA is not available here"):
            batched("tictactoe", device="cuda")
    with pytest.raises(BoardgymError, match="setcover has no batched rules; games with them: tictactoe"):
        batched("setcover")
    with pytest.raises(BoardgymError, match="unknown game 'chess'"):
        batched("chess")


def test_the_row_helpers_take_mix_put_and_join_games() -> None:
    rules = batched("connect_four")
    state = rules.init(4)
    for column in (3, 4, 3):
        state = rules.step(state, torch.tensor([column, column, 0, 6]))
    fresh = rules.init(4)
    taken = take_rows(state, torch.tensor([2, 0]))
    assert taken.occupied.tolist() == [state.occupied[2].item(), state.occupied[0].item()]
    mixed = where_rows(torch.tensor([True, False, True, False]), fresh, state, keep=("steps",))
    assert mixed.occupied.tolist() == [0, state.occupied[1].item(), 0, state.occupied[3].item()]
    assert mixed.steps.tolist() == state.steps.tolist()  # kept
    one = take_rows(fresh, torch.tensor([0]))  # one game broadcasts
    assert where_rows(torch.ones(4, dtype=torch.bool), one, state).occupied.tolist() == [0] * 4
    put = put_rows(state, torch.tensor([1]), one)
    assert put.occupied.tolist() == [state.occupied[0].item(), 0, *state.occupied[2:].tolist()]
    assert state.occupied[1] != 0  # the state given is unchanged
    put_rows_(state, torch.tensor([3]), one)  # in place
    assert state.occupied[3] == 0 and state.occupied[1] != 0
    joined = cat_rows(state, one)
    assert len(joined.occupied) == 5 and joined.occupied[4] == 0


@pytest.mark.parametrize("name", BATCHED)
def test_the_general_reset_matches_each_game_s_own(name: str) -> None:
    rules = batched(name)
    generator = torch.Generator().manual_seed(2)
    state = rules.init(8, generator)
    for _ in range(5):
        state = rules.step(state, rules.random_actions(state, generator))
    ended = torch.arange(8) % 3 == 0
    general = BatchedGame._reset(rules, state, ended, None)
    own = rules._reset(state._replace(**{f: v.clone() for f, v in zip(state._fields, state, strict=True)}), ended, None)
    assert_same(general, own)
