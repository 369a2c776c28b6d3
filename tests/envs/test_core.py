"""The AEC env's edges: after every agent is done, 0-d arrays, ``state()``."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from boardgym import BoardgymError
from boardgym.envs import tictactoe_v0


def finished(env: Any) -> Any:
    """``env`` after X wins on the top row and both agents have been stepped with None."""
    env.reset(seed=0)
    for action in (0, 3, 1, 4, 2):
        env.step(action)
    for _ in env.agent_iter():
        env.step(None)
    return env


def test_step_and_last_after_every_agent_is_done_behave_as_pettingzoo_classic() -> None:
    pytest.importorskip("pygame", reason="PettingZoo's classic envs need pygame (the dev extra installs it)")
    from pettingzoo.classic import tictactoe_v3

    ours, theirs = finished(tictactoe_v0.env()), finished(tictactoe_v3.env())
    assert ours.agents == theirs.agents == []
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert ours.step(None) is None and theirs.step(None) is None
        assert ours.step(3) is None and theirs.step(3) is None
        observation, reward, terminated, truncated, info = ours.last()
    assert reward == 0.0 and terminated and not truncated and info == {}
    assert not observation["action_mask"].any()
    ours.reset()
    assert ours.last()[0]["action_mask"].sum() == 9


def test_a_done_agent_stepped_with_an_action_is_told_to_pass_none() -> None:
    env = tictactoe_v0.env()
    env.reset()
    for action in (0, 3, 1, 4, 2):
        env.step(action)
    with pytest.raises(BoardgymError, match="only action is None"):
        env.step(5)


@pytest.mark.parametrize("action", [np.array(None), np.array(4.9), np.array("4"), np.array([4]), 4.0, None])
def test_zero_d_arrays_that_are_not_integers_are_illegal_moves(action: Any) -> None:
    env = tictactoe_v0.env()
    env.reset()
    env.step(action)
    assert env.moves == []
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0}
    assert env.infos["player_0"]["illegal_action"] is action


def test_an_integer_zero_d_array_is_played() -> None:
    env = tictactoe_v0.env()
    env.reset()
    env.step(np.array(4))
    assert env.moves == [4] and type(env.moves[0]) is int


def test_state_is_pettingzoos_global_state_method() -> None:
    env = tictactoe_v0.env()
    env.reset()
    env.step(4)
    state = env.state()
    assert env.state_space.contains(state)
    np.testing.assert_array_equal(state, env.observe("player_0")["observation"])
    assert env.game_state == env.game.apply(env.game.initial_state(), 4)
