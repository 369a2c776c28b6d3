"""The masks in a Gymnasium vector env, as a CleanRL-style loop uses them: logits masked with
-inf from ``infos["action_mask"]``, through episode ends and the default NEXT_STEP autoreset."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch

import boardgym  # noqa: F401  (registers the ids)

MASKED_IDS = sorted(i for i in gym.registry if i.startswith("boardgym/") and i != "boardgym/BlackBox-v0")


@pytest.mark.parametrize("env_id", MASKED_IDS)
def test_a_masked_logits_loop_never_sees_nan_or_plays_an_illegal_move(env_id: str) -> None:
    envs = gym.vector.SyncVectorEnv([lambda: gym.make(env_id) for _ in range(3)])
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    generator = torch.Generator().manual_seed(0)
    logits_net = torch.nn.Linear(int(np.prod(envs.single_observation_space.shape)), envs.single_action_space.n)
    observations, infos = envs.reset(seed=0)
    finished = np.zeros(3, dtype=bool)
    ends = 0
    for _ in range(150):
        mask = torch.as_tensor(np.asarray(infos["action_mask"], dtype=bool))
        assert mask.any(dim=1).all(), "an all-zero mask leaves no action"
        logits = logits_net(torch.as_tensor(observations, dtype=torch.float32).flatten(1))
        logits = torch.where(mask, logits, torch.tensor(-torch.inf))
        probs = torch.softmax(logits, dim=1)
        assert not torch.isnan(probs).any()
        actions = torch.multinomial(probs, 1, generator=generator).squeeze(1)
        observations, _, terminated, truncated, infos = envs.step(actions.numpy())
        # a step that followed an end was a reset: its action was ignored, every other one legal
        played = ~finished
        assert "illegal_action" not in infos or not (infos["_illegal_action"] & played).any()
        finished = terminated | truncated
        ends += int(finished.sum())
    assert ends > 0
    envs.close()


def test_the_mask_after_an_end_is_all_ones_for_every_way_of_ending() -> None:
    env = gym.make("boardgym/TicTacToe-v0", seat=0)
    env.reset(seed=0)
    env.step(4)
    _, _, terminated, _, info = env.step(4)  # illegal: the cell is taken
    assert terminated and info["action_mask"].all() and env.action_masks().all()
    _, info = env.reset(seed=0)
    while True:
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if terminated or truncated:
            break
        assert not info["action_mask"].all() or info["action_mask"].sum() < 9
    assert info["action_mask"].all() and env.action_masks().all()
