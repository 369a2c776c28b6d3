"""The gym.make single-agent envs: seats, the opponent inside, masks, and MaskablePPO."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import boardgym
from boardgym import BoardgymError


def test_seat_one_lets_the_opponent_open() -> None:
    env = gym.make("boardgym/TicTacToe-v0", opponent="random", seat=1)
    observation, info = env.reset(seed=3)
    assert info["seat"] == 1 and "opponent_action" in info
    assert observation[1].sum() == 1 and observation[0].sum() == 0  # opponent's mark on plane 1
    assert info["action_mask"].sum() == 8
    np.testing.assert_array_equal(env.unwrapped.action_masks(), info["action_mask"])


def test_random_seat_is_drawn_from_the_seed() -> None:
    env = gym.make("boardgym/ConnectFour-v0")
    seats = [env.reset(seed=s)[1]["seat"] for s in range(20)]
    assert set(seats) == {0, 1}
    assert seats == [env.reset(seed=s)[1]["seat"] for s in range(20)]


def test_same_seed_same_game() -> None:
    def episode(seed: int) -> list[int]:
        env = gym.make("boardgym/ConnectFour-v0", opponent="random")
        _, info = env.reset(seed=seed)
        replies, done = [], False
        while not done:
            action = int(np.flatnonzero(info["action_mask"])[0])
            _, _, terminated, truncated, info = env.step(action)
            replies.append(info.get("opponent_action", -1))
            done = terminated or truncated
        return replies

    assert episode(5) == episode(5)


def test_episode_reward_is_the_learners_return() -> None:
    env = gym.make("boardgym/TicTacToe-v0", opponent="perfect", seat=0)
    _, info = env.reset(seed=0)
    total, done = 0.0, False
    while not done:
        _, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        total += reward
        done = terminated or truncated
    assert total in (-1.0, 0.0)  # nobody beats perfect play


def test_illegal_action_ends_the_episode_with_minus_one() -> None:
    env = gym.make("boardgym/TicTacToe-v0", seat=0)
    env.reset(seed=0)
    env.step(4)
    _, reward, terminated, _, info = env.step(4)
    assert reward == -1.0 and terminated and info["illegal_action"] == 4


def test_game_parameters_pass_through() -> None:
    env = gym.make("boardgym/Nim-v0", heaps=(3, 4, 5), misere=True, opponent="perfect")
    assert env.unwrapped.game.heaps == (3, 4, 5) and env.unwrapped.game.misere
    assert env.observation_space.shape == (1, 3, 5)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seat": 2}, "seat=2"),
        ({"opponent": "grandmaster"}, "unknown agent 'grandmaster'"),
        ({"size": 4}, "unknown parameter"),
    ],
)
def test_bad_arguments_get_one_clear_error(kwargs: dict, message: str) -> None:
    with pytest.raises(BoardgymError, match=message):
        gym.make("boardgym/TicTacToe-v0", **kwargs)


def test_maskable_ppo_trains_with_no_glue(tmp_path) -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env = gym.make("boardgym/TicTacToe-v0", opponent="random")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, seed=0, verbose=0)
    model.learn(total_timesteps=2048)
    observation, info = env.reset(seed=1)
    action, _ = model.predict(observation, action_masks=info["action_mask"], deterministic=True)
    assert info["action_mask"][int(action)]
    assert boardgym.__version__


def test_step_after_an_illegal_move_is_refused_until_reset() -> None:
    env = gym.make("boardgym/TicTacToe-v0", seat=0)
    env.reset(seed=0)
    env.step(0)
    _, reward, terminated, _, info = env.step(0)  # taken: illegal, the episode ends
    assert reward == -1.0 and terminated and "illegal_action" in info
    with pytest.raises(BoardgymError, match="call reset"):
        env.step(1)
    env.reset(seed=0)
    env.step(1)


def test_step_after_the_game_ends_is_refused_until_reset() -> None:
    env = gym.make("boardgym/Nim-v0", heaps=(1,), seat=0)
    env.reset(seed=0)
    _, reward, terminated, _, _ = env.step(0)
    assert terminated and reward == 1.0
    with pytest.raises(BoardgymError, match="call reset"):
        env.step(0)


@pytest.mark.parametrize("env_id", ["boardgym/TicTacToe-v0", "boardgym/Hex-v0", "boardgym/SetCover-v0"])
def test_masks_are_int8_and_feed_gymnasium_sample(env_id: str) -> None:
    env = gym.make(env_id)
    _, info = env.reset(seed=0)
    mask = env.unwrapped.action_masks()
    assert mask.dtype == np.int8 and info["action_mask"].dtype == np.int8
    for _ in range(20):
        assert mask[env.action_space.sample(mask)] == 1


MASKED_IDS = sorted(i for i in gym.registry if i.startswith("boardgym/") and i != "boardgym/BlackBox-v0")


def test_every_masked_id_is_registered() -> None:
    assert len(MASKED_IDS) == 8 and "boardgym/SetCover-v0" in MASKED_IDS


@pytest.mark.parametrize("env_id", MASKED_IDS)
def test_action_masks_on_what_gym_make_returns(env_id: str) -> None:
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import DummyVecEnv

    env = gym.make(env_id)
    _, info = env.reset(seed=0)
    np.testing.assert_array_equal(env.action_masks(), info["action_mask"])
    assert env.action_masks().any()
    assert is_masking_supported(env)
    np.testing.assert_array_equal(get_action_masks(env), info["action_mask"])
    # the spec gym.make records rebuilds the same wrappers
    assert type(gym.make(env.spec)).__name__ == "ActionMasks"
    vec = DummyVecEnv([lambda: gym.make(env_id)] * 2)
    vec.seed(0)
    vec.reset()
    assert get_action_masks(vec).shape == (2, env.action_space.n)
    # through a user's own wrapper: gymnasium's get_wrapper_attr still reaches it
    wrapped = gym.wrappers.RecordEpisodeStatistics(gym.make(env_id))
    wrapped.reset(seed=0)
    assert get_action_masks(wrapped).shape == (env.action_space.n,)


def test_the_black_box_has_no_mask_to_offer() -> None:
    env = gym.make("boardgym/BlackBox-v0")
    assert not hasattr(env, "action_masks") and isinstance(env.action_space, gym.spaces.MultiBinary)


def test_make_vec_env_gives_maskable_ppo_its_masks() -> None:
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env("boardgym/TicTacToe-v0", n_envs=2, seed=0, env_kwargs={"seat": 1})
    vec.reset()
    assert get_action_masks(vec).sum(axis=1).tolist() == [8, 8]  # the opponent opened in both


def test_an_opponent_that_cannot_be_copied_still_makes_an_env() -> None:
    """gym.make checks the spec of what it built; an opponent holding a module (a policy, a
    pool of checkpoints) cannot be deep-copied, and that must not lose the spec."""
    import random as module

    from boardgym.agents.random_agent import RandomAgent
    from boardgym.games import make_game

    opponent = RandomAgent(make_game("tictactoe"), seed=0)
    opponent.holds = module  # type: ignore[attr-defined]
    env = gym.make("boardgym/TicTacToe-v0", opponent=opponent, seat=0)
    assert env.spec is not None and env.spec.kwargs["opponent"] is opponent
    env.reset(seed=0)
    assert env.action_masks().sum() == 9
