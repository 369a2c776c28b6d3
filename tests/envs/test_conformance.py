"""Every registered env against the PettingZoo and Gymnasium conformance checkers, and rules
invariants under random play for every game (property tests)."""

from __future__ import annotations

import importlib

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

import boardgym
from boardgym.games import GAMES, make_game

TWO_PLAYER = [name for name in GAMES if make_game(name).num_players == 2]


def _aec_module(name: str):
    return importlib.import_module(f"boardgym.envs.{name}_v0")


@pytest.mark.parametrize("name", TWO_PLAYER)
def test_pettingzoo_api(name: str) -> None:
    api_test(_aec_module(name).env(), num_cycles=300)


@pytest.mark.parametrize("name", TWO_PLAYER)
def test_pettingzoo_seed(name: str) -> None:
    seed_test(_aec_module(name).env, num_cycles=100)


@pytest.mark.parametrize("name", list(GAMES))
def test_gymnasium_check_env(name: str) -> None:
    env = gym.make(f"boardgym/{GAMES[name].gym_name}-v0")
    check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("name", TWO_PLAYER)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_play_ends_consistently(name: str, seed: int) -> None:
    """Random legal play ends; returns are zero-sum and in {-1, 0, 1}; masks match the legal
    actions; observations have the declared shape and stay in [0, 1]; states are hashable."""
    game = make_game(name)
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    seen = {state}
    for _ in range(10_000):
        if game.is_terminal(state):
            break
        legal = game.legal_actions(state)
        assert legal == sorted(legal) and legal
        assert np.flatnonzero(game.legal_mask(state)).tolist() == legal
        for player in range(game.num_players):
            planes = game.observation(state, player)
            assert planes.shape == game.observation_shape and planes.dtype == np.float32
            assert planes.min() >= 0 and planes.max() <= 1
        state = game.apply(state, legal[int(rng.integers(len(legal)))])
        seen.add(state)
    assert game.is_terminal(state), "random play did not end"
    assert game.legal_actions(state) == []
    returns = game.returns(state)
    assert sum(returns) == 0 and set(returns) <= {-1.0, 0.0, 1.0}
    assert isinstance(game.render(state), str)


@pytest.mark.parametrize("name", TWO_PLAYER)
def test_aec_illegal_action_ends_game_with_minus_one(name: str) -> None:
    env = _aec_module(name).env()
    env.reset(seed=0)
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0]) if (mask == 0).any() else env.action_space(offender).n
    env.step(illegal)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[offender] == -1
    assert sum(env._cumulative_rewards.values()) == -1
    assert env.infos[offender]["illegal_action"] == illegal


def test_aec_mask_is_zero_for_agent_not_on_move() -> None:
    env = _aec_module("tictactoe").env()
    env.reset()
    waiting = [a for a in env.agents if a != env.agent_selection][0]
    assert env.observe(waiting)["action_mask"].sum() == 0
    assert env.observe(env.agent_selection)["action_mask"].sum() == 9


def test_step_before_reset_is_refused() -> None:
    env = _aec_module("tictactoe").env()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


@pytest.mark.parametrize("name", TWO_PLAYER)
def test_render_modes(name: str) -> None:
    env = _aec_module(name).env(render_mode="ansi")
    env.reset()
    assert "\n" in env.render()
    if "rgb_array" in env.metadata["render_modes"]:
        picture = _aec_module(name).env(render_mode="rgb_array")
        picture.reset()
        image = picture.render()
        assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8


def test_unknown_render_mode_is_refused() -> None:
    with pytest.raises(boardgym.BoardgymError, match="render_mode='pygame'"):
        _aec_module("nim").env(render_mode="pygame")
