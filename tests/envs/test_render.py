"""``render_mode="rgb_array"`` on every env: the AEC envs, the gym ids (the puzzles too), and
Stable-Baselines3's ``make_vec_env``, which passes that mode, in and out of process."""

from __future__ import annotations

import importlib

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

import boardgym
from boardgym.games import GAMES, make_game

IDS = [f"boardgym/{entry.gym_name}-v0" for entry in GAMES.values()]
TWO_PLAYER = [name for name in GAMES if make_game(name).num_players == 2]


@pytest.mark.parametrize("name", TWO_PLAYER)
def test_aec_rgb_array_marks_each_move_and_keeps_its_size(name: str) -> None:
    env = importlib.import_module(f"boardgym.envs.{name}_v0").env(render_mode="rgb_array")
    env.reset(seed=0)
    assert "rgb_array" in env.metadata["render_modes"]
    first = env.render()
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
    rng = np.random.default_rng(0)
    for _ in range(3):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    later = env.render()
    assert later.shape == first.shape and not np.array_equal(later, first)
    assert env.moves and len(env.moves) == 3
    assert 'class="last-move"' in env._repr_svg_()


@pytest.mark.parametrize("env_id", IDS)
def test_gym_rgb_array_on_every_id(env_id: str) -> None:
    env = gym.make(env_id, render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"]
    env.reset(seed=1)
    before = env.render()
    action = _a_legal_action(env)
    env.step(action)
    after = env.render()
    assert before.dtype == np.uint8 and before.shape == after.shape and before.shape[2] == 3
    assert not np.array_equal(before, after)
    assert env.unwrapped._repr_svg_().startswith("<svg")
    check_env(gym.make(env_id, render_mode="rgb_array").unwrapped)


def test_blackbox_picture_shows_the_evaluated_genome() -> None:
    env = gym.make("boardgym/BlackBox-v0", instance=2, genome_length=40, render_mode="rgb_array").unwrapped
    env.reset(seed=0)
    env.step(np.ones(40, dtype=np.int8))
    assert "fitness 1.0000" in env._repr_svg_()


@pytest.mark.parametrize("env_id", IDS)
def test_make_vec_env_renders_every_id(env_id: str) -> None:
    vec = make_vec_env(env_id, n_envs=2, vec_env_cls=DummyVecEnv)
    try:
        vec.reset()
        images = vec.get_images()
        assert len(images) == 2 and all(image.ndim == 3 and image.dtype == np.uint8 for image in images)
    finally:
        vec.close()


@pytest.mark.parametrize("env_id", IDS)
def test_make_vec_env_renders_in_forked_workers(env_id: str) -> None:
    vec = make_vec_env(env_id, n_envs=2, vec_env_cls=SubprocVecEnv, vec_env_kwargs={"start_method": "fork"})
    try:
        vec.reset()
        images = vec.get_images()
        assert len(images) == 2 and images[0].shape == images[1].shape and images[0].shape[2] == 3
    finally:
        vec.close()


def test_make_vec_env_in_forkserver_workers_knows_the_ids() -> None:
    """SB3's default start method: the workers never ran this test module, yet ``import
    boardgym`` had the forkserver import boardgym, so ``gym.make`` finds the id there."""
    vec = make_vec_env("boardgym/Nim-v0", n_envs=2, vec_env_cls=SubprocVecEnv)
    try:
        vec.reset()
        assert vec.get_images()[0].ndim == 3
    finally:
        vec.close()


@pytest.mark.slow
@pytest.mark.parametrize("env_id", IDS)
def test_make_vec_env_in_forkserver_workers_on_every_id(env_id: str) -> None:
    vec = make_vec_env(env_id, n_envs=2, vec_env_cls=SubprocVecEnv)
    try:
        vec.reset()
        assert all(image.ndim == 3 for image in vec.get_images())
    finally:
        vec.close()


def test_unknown_render_mode_is_refused_by_the_puzzles() -> None:
    for env_id in ("boardgym/SetCover-v0", "boardgym/BlackBox-v0"):
        with pytest.raises(boardgym.BoardgymError, match="render_mode='pygame'"):
            gym.make(env_id, render_mode="pygame")


def _a_legal_action(env: gym.Env) -> object:
    unwrapped = env.unwrapped
    if isinstance(env.action_space, gym.spaces.MultiBinary):
        return np.ones(env.action_space.n, dtype=np.int8)
    return int(np.flatnonzero(unwrapped.action_masks())[0])
