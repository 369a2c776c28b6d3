"""The RLlib MultiAgentEnv (the ``rllib`` extra): RLlib's own checks, turn-based play with
masks, the end of a game, and the modules that play in it. Skips, saying why, where RLlib
cannot be imported (the shared test venv has Ray core only; CI runs these in .venv-rllib)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip(
    "ray.rllib",
    reason="RLlib is an optional extra (pip install -e '.[rllib]'); CI runs these tests in .venv-rllib",
)

from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

from boardgym import BoardgymError, make_agent, make_game  # noqa: E402
from boardgym.envs.rllib import (  # noqa: E402
    AGENTS,
    BoardgymMultiAgentEnv,
    MaskedRandomRLModule,
    RLModuleAgent,
    observe,
    save_module,
)
from boardgym.evaluate import play_games  # noqa: E402
from boardgym.games import GAMES  # noqa: E402

TWO_PLAYER = [name for name in GAMES if name not in ("setcover", "blackbox")]


@pytest.mark.parametrize("game", TWO_PLAYER)
def test_rllib_accepts_the_env_and_a_random_game_ends_well(game: str) -> None:
    params = {"size": 5} if game == "hex" else {}
    env = BoardgymMultiAgentEnv({"game": game, **params})
    check_multiagent_environments(env)
    rng = np.random.default_rng(0)
    observations, _ = env.reset(seed=0)
    while True:
        assert len(observations) == 1  # only the agent to move
        ((agent, seen),) = observations.items()
        assert env.observation_spaces[agent].contains(seen)
        action = int(rng.choice(np.flatnonzero(seen["action_mask"])))
        observations, rewards, terminated, truncated, _ = env.step({agent: action})
        if terminated["__all__"] or truncated["__all__"]:
            break
        assert rewards == {agent: 0.0}
    assert set(observations) == set(AGENTS) == set(rewards)
    assert sum(rewards.values()) == 0 and all(o["action_mask"].all() for o in observations.values())
    with pytest.raises(BoardgymError, match="call reset"):
        env.step({agent: 0})


@pytest.mark.parametrize("action", [4, None, "4", 2.5, True, np.array(4.9), np.array([4]), np.array([1, 2])])
def test_an_illegal_or_missing_action_loses(action) -> None:
    env = BoardgymMultiAgentEnv({"game": "tictactoe"})
    env.reset()
    env.step({"player_0": 4})
    observations, rewards, terminated, _, infos = env.step({"player_1": action})
    assert terminated["__all__"] and rewards == {"player_1": -1.0, "player_0": 0.0}
    assert "illegal_action" in infos["player_1"] and set(observations) == set(AGENTS)


def test_integer_arrays_of_one_element_are_played() -> None:
    env = BoardgymMultiAgentEnv({"game": "tictactoe"})
    env.reset()
    observations, rewards, terminated, _, _ = env.step({"player_0": np.array([4], dtype=np.int64)})
    assert not terminated["__all__"] and set(observations) == {"player_1"}
    assert observations["player_1"]["action_mask"][4] == 0


def test_game_parameters_and_puzzles() -> None:
    env = BoardgymMultiAgentEnv({"game": "nim", "heaps": (2, 3)})
    assert env.game.heaps == (2, 3) and env.action_spaces["player_0"].n == env.game.num_actions
    with pytest.raises(BoardgymError, match="one-player puzzle"):
        BoardgymMultiAgentEnv({"game": "setcover"})


def test_the_modules_play_only_legal_moves() -> None:
    env = BoardgymMultiAgentEnv({"game": "connect_four"})
    spaces = {"observation_space": env.observation_spaces["player_0"], "action_space": env.action_spaces["player_0"]}
    random_module = RLModuleSpec(module_class=MaskedRandomRLModule, **spaces).build()
    masks = np.zeros((50, 7), dtype=np.float32)
    masks[:, [1, 5]] = 1
    batch = {Columns.OBS: {"observations": np.zeros((50, 84), np.float32), "action_mask": masks}}
    assert set(random_module.forward_exploration(batch)[Columns.ACTIONS].tolist()) == {1, 5}
    learner = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": [16]}, **spaces
    ).build()
    game = make_game("connect_four")
    summary = play_games(game, RLModuleAgent(game, learner), "random", 4, seed=0)
    assert summary.games == 4  # an illegal move would have raised


@pytest.mark.parametrize(
    ("game_name", "model_config"),
    [
        ("tictactoe", {"fcnet_hiddens": [32, 16]}),
        ("connect_four", {"fcnet_hiddens": [24], "fcnet_activation": "relu", "vf_share_layers": True}),
    ],
)
def test_an_rllib_module_exported_by_save_module_plays_as_the_module(
    tmp_path: Path, game_name: str, model_config: dict
) -> None:
    """The way back from RLlib: save_module writes the module's policy weights as a boardgym
    policy file (RLlib's own checkpoint is pickled), and torch:checkpoint= plays its moves."""
    env = BoardgymMultiAgentEnv({"game": game_name})
    spaces = {"observation_space": env.observation_spaces["player_0"], "action_space": env.action_spaces["player_0"]}
    torch.manual_seed(0)
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model_config, **spaces).build()
    game = make_game(game_name)
    path = save_module(module, tmp_path / "policy.pt", game)
    loaded, live = make_agent(f"torch:checkpoint={path}", game), RLModuleAgent(game, module)
    state, moves = game.initial_state(), 0
    rng = np.random.default_rng(0)
    while not game.is_terminal(state) and moves < 30:
        assert loaded.act(game, state) == live.act(game, state)
        state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        moves += 1
    seen = observe(game, game.initial_state(), 0)
    batch = {Columns.OBS: {key: torch.as_tensor(value)[None] for key, value in seen.items()}}
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
        assert torch.allclose(loaded.net(torch.as_tensor(seen["observations"])[None])[0], logits, atol=1e-6)


def test_save_module_refuses_a_module_it_cannot_export(tmp_path: Path) -> None:
    env = BoardgymMultiAgentEnv({"game": "tictactoe"})
    spaces = {"observation_space": env.observation_spaces["player_0"], "action_space": env.action_spaces["player_0"]}
    headed = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={"fcnet_hiddens": [8], "head_fcnet_hiddens": [4]},
        **spaces,
    ).build()
    with pytest.raises(BoardgymError, match="head_fcnet_hiddens"):
        save_module(headed, tmp_path / "policy.pt", "tictactoe")
    random_module = RLModuleSpec(module_class=MaskedRandomRLModule, **spaces).build()
    with pytest.raises(BoardgymError, match="not a PPO module"):
        save_module(random_module, tmp_path / "policy.pt", "tictactoe")
    assert not (tmp_path / "policy.pt").exists()
