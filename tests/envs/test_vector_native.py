"""The native vector env (``gym.make_vec(..., vectorization_mode="vector_entry_point")``) against
the single-agent env's semantics played on the scalar rules, step for step: observations from the
learner's seat, rewards, terminations, masks (all ones after an end), NEXT_STEP autoreset and
illegal actions; then the opponent kinds, torch output, Stable-Baselines3's VecEnv over it, and
the refusals of bad arguments."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch

from boardgym.envs.sb3_vec import BatchedVecEnv
from boardgym.envs.vector import BatchedVectorEnv
from boardgym.game import Game
from boardgym.games import GAMES, gym_id, make_game
from boardgym.types import BoardgymError

BATCHED = [name for name, entry in GAMES.items() if entry.batched]


def lowest_legal(observations: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """A deterministic opponent: its lowest legal action."""
    return legal.float().argmax(1)


class Reference:
    """One env of ``SingleAgentEnv``'s semantics on the scalar rules, in a NEXT_STEP vector env,
    with ``lowest_legal`` as the opponent."""

    def __init__(self, game: Game, seat: int) -> None:
        self.game, self.seat = game, seat
        self.finished = False
        self.start()

    def start(self) -> None:
        self.state = self.game.initial_state()
        self.finished = False
        self.reply()

    def reply(self) -> float:
        game = self.game
        while not game.is_terminal(self.state) and game.current_player(self.state) != self.seat:
            self.state = game.apply(self.state, game.legal_actions(self.state)[0])
        return self.outcome()

    def outcome(self) -> float:
        return float(self.game.returns(self.state)[self.seat]) if self.game.is_terminal(self.state) else 0.0

    def step(self, action: int) -> tuple[float, bool, bool]:
        game = self.game
        if self.finished:
            self.start()
            return 0.0, False, False
        if action not in game.legal_actions(self.state):
            self.finished = True
            return -1.0, True, False
        self.state = game.apply(self.state, action)
        reward = self.reply()
        self.finished = game.is_terminal(self.state)
        truncated = self.finished and game.is_truncated(self.state)
        return reward, self.finished and not truncated, truncated

    def observation(self) -> np.ndarray:
        return self.game.observation(self.state, self.seat)

    def mask(self) -> np.ndarray:
        if self.finished:
            return np.ones(self.game.num_actions, dtype=np.int8)
        return self.game.legal_mask(self.state).astype(np.int8)


@pytest.mark.parametrize("name", BATCHED)
@pytest.mark.parametrize("seat", [0, 1])
def test_the_native_env_plays_as_the_single_agent_env(name: str, seat: int) -> None:
    game = make_game(name)
    envs = gym.make_vec(
        gym_id(name), num_envs=6, vectorization_mode="vector_entry_point", opponent=lowest_legal, seat=seat
    )
    assert isinstance(envs, BatchedVectorEnv) and envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    references = [Reference(game, seat) for _ in range(6)]
    observations, infos = envs.reset(seed=0)
    rng = np.random.default_rng(seat)
    for _ in range(120):
        for i, reference in enumerate(references):
            np.testing.assert_array_equal(observations[i], reference.observation())
            np.testing.assert_array_equal(infos["action_mask"][i], reference.mask())
        assert (infos["seat"] == seat).all()
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in infos["action_mask"]])
        actions = np.where(rng.random(6) < 0.03, game.num_actions, actions)  # now and then an illegal one
        playing = np.array([not reference.finished for reference in references])
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        expected = [reference.step(int(action)) for reference, action in zip(references, actions, strict=True)]
        assert rewards.tolist() == [r for r, _, _ in expected]
        assert terminated.tolist() == [t for _, t, _ in expected]
        assert truncated.tolist() == [t for _, _, t in expected]
        illegal = (actions == game.num_actions) & playing
        np.testing.assert_array_equal(infos.get("_illegal_action", np.zeros(6, bool)), illegal)


def test_random_seats_opponents_and_torch_output() -> None:
    envs = gym.make_vec("boardgym/ConnectFour-v0", num_envs=64, vectorization_mode="vector_entry_point")
    _, infos = envs.reset(seed=3)
    assert set(infos["seat"].tolist()) == {0, 1}  # seat None: drawn per episode
    again = gym.make_vec("boardgym/ConnectFour-v0", num_envs=64, vectorization_mode="vector_entry_point")
    assert (again.reset(seed=3)[1]["seat"] == infos["seat"]).all()  # the same seed, the same seats
    tensors = BatchedVectorEnv("tictactoe", 4, tensors=True, opponent="minimax:depth=1")
    observations, infos = tensors.reset(seed=0)
    assert isinstance(observations, torch.Tensor) and observations.dtype == torch.float32
    actions = infos["action_mask"].float().argmax(1)
    observations, rewards, terminated, truncated, infos = tensors.step(actions)
    assert isinstance(rewards, torch.Tensor) and terminated.dtype == torch.bool


def test_random_play_ends_episodes_with_the_learner_s_returns() -> None:
    envs = BatchedVectorEnv("tictactoe", 256, opponent="random")
    _, infos = envs.reset(seed=1)
    results: list[float] = []
    rng = np.random.default_rng(1)
    for _ in range(40):
        actions = (rng.random(infos["action_mask"].shape) * infos["action_mask"]).argmax(1)
        _, rewards, terminated, truncated, infos = envs.step(actions)
        results += rewards[terminated | truncated].tolist()
    assert len(results) > 256 and set(results) == {-1.0, 0.0, 1.0}
    assert np.mean(results) == pytest.approx(0.0, abs=0.15)  # random against random, seats drawn


def test_sb3_vec_env_resets_in_the_same_step_and_trains_maskable_ppo() -> None:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    env = BatchedVecEnv("tictactoe", num_envs=32, opponent="random")
    env.seed(0)
    observations = env.reset()
    assert observations.shape == (32, 2, 3, 3) and get_action_masks(env).shape == (32, 9)
    done_seen = False
    for _ in range(12):
        masks = get_action_masks(env)
        actions = np.array([np.flatnonzero(mask)[0] for mask in masks])
        observations, rewards, dones, infos = env.step(actions)
        for index in np.flatnonzero(dones):
            done_seen = True
            assert "terminal_observation" in infos[index] and not infos[index]["TimeLimit.truncated"]
            assert observations[index].sum() <= 1  # the next episode's start (perhaps after the opponent's move)
    assert done_seen
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=128, n_epochs=1, seed=0)
    model.learn(512)


def rollout(env: BatchedVecEnv, steps: int = 8) -> list[np.ndarray]:
    """Observations of ``steps`` steps, each env playing its lowest legal action."""
    seen = [env.reset()]
    for _ in range(steps):
        actions = np.array([np.flatnonzero(mask)[0] for mask in env.action_masks()])
        seen.append(env.step(actions)[0])
    return seen


def test_the_sb3_vec_env_takes_a_seed_and_keeps_game_parameters_apart() -> None:
    first = rollout(BatchedVecEnv("hex", num_envs=6, seed=3, size=5))
    again = rollout(BatchedVecEnv("hex", num_envs=6, seed=3, size=5))
    seeded_later = BatchedVecEnv("hex", num_envs=6, size=5)
    seeded_later.seed(3)  # SB3's VecEnv.seed, the same seed
    assert first[0].shape == (6, *make_game("hex", size=5).observation_shape)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert all(np.array_equal(a, b) for a, b in zip(first, rollout(seeded_later), strict=True))
    other = rollout(BatchedVecEnv("hex", num_envs=6, seed=4, size=5))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))
    with pytest.raises(BoardgymError, match="seed=-1 must be a whole number"):
        BatchedVecEnv("hex", 2, seed=-1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_envs": 0}, "num_envs=0 must be a whole number"),
        ({"device": "gpu"}, "unknown device 'gpu'"),
        ({"opponent": "nobody"}, "unknown agent 'nobody'"),
        ({"opponent": 3}, "opponent=3 must be"),
        ({"seat": 2}, "seat=2 must be 0"),
        ({"render_mode": "human"}, "does not render"),
    ],
)
def test_bad_arguments_are_one_sentence(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(BoardgymError, match=message):
        BatchedVectorEnv("connect_four", **{"num_envs": 2, **kwargs})


def test_bad_actions_are_one_sentence() -> None:
    envs = BatchedVectorEnv("connect_four", 2)
    with pytest.raises(BoardgymError, match="call reset"):
        envs.step(np.array([0, 0]))
    envs.reset(seed=0)
    with pytest.raises(BoardgymError, match=r"give one per env: \(2,\)"):
        envs.step(np.array([0, 0, 0]))
    with pytest.raises(BoardgymError, match="must be an integer array of action indices, not float64"):
        envs.step(np.array([0.5, np.nan]))
    with pytest.raises(BoardgymError, match="Stable-Baselines3 reads numpy"):
        BatchedVecEnv("connect_four", 2, tensors=True)
