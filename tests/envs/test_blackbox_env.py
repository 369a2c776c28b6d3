"""boardgym/BlackBox-v0: one genome per episode, fitness as reward, calls counted per run."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import boardgym  # noqa: F401  (registers the ids)
from boardgym.types import BoardgymError


def test_passes_check_env() -> None:
    env = gym.make("boardgym/BlackBox-v0")
    assert env.action_space == gym.spaces.MultiBinary(1000)
    check_env(env.unwrapped)


def test_one_step_per_episode_with_fitness_reward_and_calls() -> None:
    env = gym.make("boardgym/BlackBox-v0", instance=2)
    obs, info = env.reset(seed=0)
    assert not obs.any() and info["calls"] == 0
    genome = np.zeros(1000, np.int8)
    genome[0::2] = 1
    obs, reward, terminated, truncated, info = env.step(genome)
    assert terminated and not truncated and reward == 0.5 and info["calls"] == 1
    assert np.array_equal(obs, genome)
    env.reset()
    *_, info = env.step(np.ones(1000, np.int8))
    assert info["calls"] == 2 and info["fitness"] == 1.0
    env.reset(seed=1)  # a seeded reset starts a new run
    *_, info = env.step(genome)
    assert info["calls"] == 1


def test_wrong_genome_shape_is_refused() -> None:
    env = gym.make("boardgym/BlackBox-v0")
    env.reset(seed=0)
    with pytest.raises(BoardgymError, match="1000 bits"):
        env.step(np.ones(999, np.int8))


@pytest.mark.parametrize(
    "genome", [np.full(1000, 0.5), np.full(1000, np.nan), np.full(1000, 2), np.array(["1"] * 1000), [None] * 1000]
)
def test_a_genome_of_other_values_than_bits_is_refused(genome) -> None:
    env = gym.make("boardgym/BlackBox-v0")
    env.reset(seed=0)
    with pytest.raises(BoardgymError, match="only 0s and 1s"):
        env.step(genome)
    assert env.unwrapped.calls == 0


def test_one_genome_per_episode() -> None:
    env = gym.make("boardgym/BlackBox-v0")
    env.reset(seed=0)
    env.step(np.ones(1000, bool))
    with pytest.raises(BoardgymError, match="reset"):
        env.step(np.ones(1000, np.int8))
