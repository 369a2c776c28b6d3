"""boardgym/SetCover-v0: conformance, masks, rewards and the wasted-step rule."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import boardgym  # noqa: F401  (registers the ids)
from boardgym.solve.setcover import greedy_cover
from boardgym.types import BoardgymError


def test_default_instance_passes_check_env() -> None:
    env = gym.make("boardgym/SetCover-v0")
    assert env.unwrapped.game.params() == {"problem_size": 20, "num_sets": 40, "density": 0.2, "seed": 0}
    check_env(env.unwrapped)


def test_instance_parameters_pass_through() -> None:
    env = gym.make("boardgym/SetCover-v0", problem_size=30, num_sets=150, density=0.3, seed=1)
    assert env.action_space.n == 150 and env.observation_space.shape == (180,)
    with pytest.raises(BoardgymError, match="no solution"):
        gym.make("boardgym/SetCover-v0", sets="0;2")


def test_episode_return_is_minus_the_cover_size() -> None:
    env = gym.make("boardgym/SetCover-v0", problem_size=20, num_sets=50, density=0.2, seed=0)
    game = env.unwrapped.game
    obs, info = env.reset(seed=0)
    assert info["action_mask"].all() and info["covered"] == 0 and not obs.any()
    total, done = 0.0, False
    plan = greedy_cover(game)
    for action in plan:
        assert not done
        obs, reward, done, truncated, info = env.step(action)
        total += reward
        assert not truncated and (done or not info["action_mask"][action])
    assert done and total == -len(plan) and info["covered"] == 20
    assert env.unwrapped.action_masks().all() and info["action_mask"].all()  # over: never all zeros


def test_illegal_action_is_a_wasted_step() -> None:
    env = gym.make("boardgym/SetCover-v0", sets="0 1;1 2;2 3")
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(0)
    again, reward, terminated, truncated, info = env.step(0)
    assert reward == -1.0 and info["illegal_action"] == 0 and np.array_equal(obs, again)
    assert not terminated and not truncated
    *_, terminated, truncated, info = env.step(0)
    assert not terminated and truncated  # three steps without a cover on three sets
    assert gym.make("boardgym/SetCover-v0", sets="0 1;2", render_mode="ansi").unwrapped.render().count("set") >= 2


@pytest.mark.parametrize("action", [float("inf"), float("nan"), None, "3", 2.5, np.array(None)])
def test_an_action_that_is_not_an_index_is_a_wasted_step(action) -> None:
    env = gym.make("boardgym/SetCover-v0")
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(action)
    assert reward == -1.0 and not terminated and info["illegal_action"] is action
    assert not obs.any()


def test_step_after_the_episode_ends_is_refused_until_reset() -> None:
    env = gym.make("boardgym/SetCover-v0", sets="0 1;1 2")
    env.reset(seed=0)
    _, _, terminated, _, _ = env.step(np.int64(0))
    assert not terminated
    _, _, terminated, _, _ = env.step(1)
    assert terminated
    with pytest.raises(BoardgymError, match="call reset"):
        env.step(0)
