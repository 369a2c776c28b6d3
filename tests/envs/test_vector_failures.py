"""The native vector env and its SB3 VecEnv when a caller or an opponent goes wrong: each
command of the issue that corrupted games or raised a raw error now gives one sentence."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest
import torch

import boardgym  # noqa: F401  (registers the gym ids)
from boardgym.envs.single_agent import SingleAgentEnv, learner_seat
from boardgym.envs.vector import MAX_ENVS, BatchedVectorEnv
from boardgym.types import BoardgymError


def one_sentence(error: pytest.ExceptionInfo[BoardgymError]) -> str:
    message = str(error.value)
    assert "\n" not in message and ". " not in message, message
    return message


def connect_four(num_envs: int = 1, **kwargs: object) -> BatchedVectorEnv:
    env = gym.make_vec("boardgym/ConnectFour-v0", num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)
    assert isinstance(env, BatchedVectorEnv)
    return env


def test_after_the_opponent_raised_the_learners_move_is_not_played_for_it() -> None:
    calls = [0]

    def opponent(observations: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
        calls[0] += 1
        if calls[0] == 2:
            raise RuntimeError("once")
        return legal.float().argmax(1)

    env = connect_four(opponent=opponent, seat=0)
    env.reset(seed=0)
    env.step(np.array([3]))
    with pytest.raises(RuntimeError, match="once"):
        env.step(np.array([3]))
    board = env.rules.game.render(env.rules.to_scalar_states(env.state)[0])
    with pytest.raises(BoardgymError, match=r"step\(\) refused: .*RuntimeError: once.*call reset\(\)") as error:
        env.step(np.array([3]))
    one_sentence(error)
    assert env.rules.game.render(env.rules.to_scalar_states(env.state)[0]) == board  # nothing played
    for call in (env.action_masks, env.start_next_episodes):
        with pytest.raises(BoardgymError, match="call reset"):
            call()
    observations, info = env.reset(seed=0)
    assert info["action_mask"].sum() == 7
    env.step(np.array([3]))  # plays again after reset


def test_an_illegal_opponent_move_raises_instead_of_an_all_zero_mask() -> None:
    env = connect_four(2, opponent=lambda o, legal: torch.full((len(o),), 99), seat=1)
    with pytest.raises(BoardgymError, match=r"opponent policy chose action 99 in env 0, which is not legal") as error:
        env.reset(seed=0)
    one_sentence(error)
    with pytest.raises(BoardgymError, match="call reset"):
        env.action_masks()


def test_an_opponent_move_into_a_full_column_raises() -> None:
    """Legal in the action space, not on this board: column 0 once it is full."""
    env = connect_four(1, opponent=lambda o, legal: torch.zeros(len(o), dtype=torch.long), seat=0)
    env.reset(seed=0)
    for _ in range(3):  # the learner and the opponent fill column 0
        env.step(np.array([0]))
    assert env.action_masks()[0, 0] == 0
    with pytest.raises(BoardgymError, match="chose action 0 in env 0, which is not legal"):
        env.step(np.array([1]))


def test_action_masks_before_reset_and_after_close_is_one_sentence() -> None:
    env = connect_four(2)
    with pytest.raises(BoardgymError, match=r"call reset\(\) before action_masks\(\)") as error:
        env.action_masks()
    one_sentence(error)
    env.reset(seed=0)
    env.close()
    with pytest.raises(BoardgymError, match=r"action_masks\(\) on a closed vector env") as error:
        env.action_masks()
    one_sentence(error)
    with pytest.raises(BoardgymError, match="closed"):
        env.step(np.array([0, 0]))


@pytest.mark.parametrize("seed", ["abc", 2**64, math.nan, 1.5, -1, True, [1]])
def test_a_bad_seed_is_one_sentence(seed: object) -> None:
    env = connect_four(2)
    with pytest.raises(BoardgymError, match=r"seed=.* must be a whole number from 0 to 2\*\*64 - 1") as error:
        env.reset(seed=seed)  # type: ignore[arg-type]
    one_sentence(error)


def test_whole_seeds_of_the_whole_range_are_taken() -> None:
    env = connect_four(2)
    first = env.reset(seed=np.int64(3))[0]
    assert np.array_equal(first, env.reset(seed=3)[0])
    env.reset(seed=2**64 - 1)


def test_num_envs_is_bounded_before_any_space_is_allocated() -> None:
    with pytest.raises(BoardgymError, match=f"num_envs={2**27} is more than MAX_ENVS={MAX_ENVS}") as error:
        connect_four(2**27)
    one_sentence(error)


def test_the_seat_is_read_by_one_function_for_both_envs() -> None:
    assert [learner_seat(s) for s in (0, 1, "0", "1", None, "random")] == [0, 1, 0, 1, None, None]
    for make in (lambda: SingleAgentEnv("tictactoe", seat=2), lambda: BatchedVectorEnv("tictactoe", seat=True)):
        with pytest.raises(BoardgymError, match=r"must be 0 \(move first\), 1 \(move second\) or None"):
            make()


def test_sb3_vec_env_refuses_indices_out_of_range() -> None:
    pytest.importorskip("stable_baselines3")
    from boardgym.envs.sb3_vec import BatchedVecEnv

    venv = BatchedVecEnv("connect_four", num_envs=4)
    venv.reset()
    assert venv.get_attr("num_envs", indices=[0, 3]) == [4, 4]
    for call in (
        lambda: venv.get_attr("num_envs", indices=[10]),
        lambda: venv.set_attr("tensors", False, indices=[4]),
        lambda: venv.env_method("action_masks", indices=[-1]),
        lambda: venv.env_method("action_masks", indices=7),
        lambda: venv.env_is_wrapped(gym.Wrapper, indices=[9]),
    ):
        with pytest.raises(BoardgymError, match=r"env index .* is out of range: this VecEnv holds 4 envs") as error:
            call()
        one_sentence(error)
    assert venv.env_method("action_masks", indices=[1]).shape == (1, 7)
