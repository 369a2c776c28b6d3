"""Policies trained elsewhere come back: ``torch:checkpoint=`` (weights and a declared MLP,
written by ``save_policy``: CleanRL-style scripts, RLlib modules) and ``tianshou:checkpoint=``
(Tianshou's own ``state_dict``) play as the network did, read with ``weights_only=True``; a
file that would run code when unpickled (as RLlib's pickled checkpoints could) is refused in
one sentence and runs nothing; every other way the file can be wrong is one sentence too."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

from boardgym import make_agent, make_game
from boardgym.agents.random_agent import RandomAgent
from boardgym.agents.torch_policy import FORMAT, save_policy
from boardgym.checkpoints import save_checkpoint
from boardgym.types import BoardgymError


class Trap:
    """Unpickling this creates the file it names: a stand-in for code run from a file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def positions(game, count: int = 20, seed: int = 0):
    agent, states = RandomAgent(game, seed=seed), []
    while len(states) < count:
        state = game.initial_state()
        while not game.is_terminal(state) and len(states) < count:
            states.append(state)
            state = game.apply(state, agent.act(game, state))
    return states


def best_legal(net: nn.Module, game, state) -> int:
    planes = torch.as_tensor(np.asarray(game.observation(state, game.current_player(state)), np.float32))
    with torch.no_grad():
        outputs = net(planes.reshape(1, -1))[0].numpy()
    return int(np.argmax(np.where(game.legal_mask(state), outputs, -np.inf)))


def mlp(sizes: list[int], activation: type[nn.Module], seed: int = 0) -> nn.Sequential:
    torch.manual_seed(seed)
    layers: list[nn.Module] = []
    for index, (a, b) in enumerate(zip(sizes, sizes[1:], strict=False)):
        layers.append(nn.Linear(a, b))
        if index < len(sizes) - 2:
            layers.append(activation())
    return nn.Sequential(*layers)


def one_sentence(error: pytest.ExceptionInfo[BoardgymError], *words: str) -> str:
    message = str(error.value)
    assert "\n" not in message and "Traceback" not in message, message
    for word in words:
        assert word in message, message
    return message


@pytest.mark.parametrize(("game_name", "activation"), [("tictactoe", "ReLU"), ("connect_four", "Tanh")])
def test_a_saved_policy_plays_as_the_network_did(tmp_path: Path, game_name: str, activation: str) -> None:
    game = make_game(game_name)
    inputs = int(np.prod(game.observation_shape))
    net = mlp([inputs, 32, 16, game.num_actions], getattr(nn, activation))
    path = save_policy(tmp_path / "policy.pt", game, [net[0], net[2], net[4]], activation=activation)
    agent = make_agent(f"torch:checkpoint={path}", game, seed=0)
    states = positions(game)
    assert [agent.act(game, s) for s in states] == [best_legal(net, game, s) for s in states]
    with torch.no_grad():
        x = torch.rand(5, inputs)
        assert torch.equal(agent.net(x), net(x))  # the same weights, the same function, bit for bit


def test_a_tianshou_state_dict_plays_as_the_policy_did(tmp_path: Path) -> None:
    common = pytest.importorskip("tianshou.utils.net.common", reason="Tianshou is an optional extra")
    import gymnasium as gym
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy

    game = make_game("tictactoe")
    torch.manual_seed(1)
    net = common.Net(state_shape=game.observation_shape, action_shape=game.num_actions, hidden_sizes=[64, 32])
    policy = DiscreteQLearningPolicy(model=net, action_space=gym.spaces.Discrete(game.num_actions))
    torch.save(policy.state_dict(), tmp_path / "policy.pth")
    agent = make_agent(f"tianshou:checkpoint={tmp_path / 'policy.pth'}", game, seed=0)
    states = positions(game)

    def q_argmax(state) -> int:
        obs = torch.as_tensor(game.observation(state, game.current_player(state)))[None]
        with torch.no_grad():
            q = net(obs)[0][0].numpy()
        return int(np.argmax(np.where(game.legal_mask(state), q, -np.inf)))

    assert [agent.act(game, s) for s in states] == [q_argmax(s) for s in states]


def tianshou_keys(net: nn.Sequential, prefix: str = "model.model.model.") -> dict[str, torch.Tensor]:
    return {f"{prefix}{key}": value for key, value in net.state_dict().items()}


def test_the_algorithm_state_dict_and_a_declared_activation_load_too(tmp_path: Path) -> None:
    game = make_game("tictactoe")
    net = mlp([18, 24, 9], nn.Tanh)
    state = {
        **tianshou_keys(net, "policy.model.model.model."),
        **tianshou_keys(mlp([18, 24, 9], nn.Tanh, 5), "model_old."),
    }
    torch.save(state, tmp_path / "algo.pth")
    agent = make_agent(f"tianshou:checkpoint={tmp_path / 'algo.pth'},activation=Tanh", game)
    assert [agent.act(game, s) for s in positions(game)] == [best_legal(net, game, s) for s in positions(game)]


@pytest.mark.parametrize("spec", ["torch", "tianshou"])
def test_a_file_that_would_run_code_is_refused_and_runs_nothing(tmp_path: Path, spec: str) -> None:
    marker = tmp_path / "unpickled"
    path = tmp_path / "evil.pt"
    game = make_game("tictactoe")
    weights = tianshou_keys(mlp([18, 9], nn.ReLU))
    payload = {"format": FORMAT, "weights": weights, "architecture": Trap(marker), **weights}
    torch.save(payload, path)
    with pytest.raises(BoardgymError) as error:
        make_agent(f"{spec}:checkpoint={path}", game)
    one_sentence(error, str(path), "never runs")
    assert not marker.exists()
    torch.load(path, weights_only=False)  # the trap is real: unpickled as pickle would, it runs
    assert marker.exists()


def test_an_rllib_checkpoint_is_refused_without_unpickling_it(tmp_path: Path) -> None:
    """RLlib's own checkpoints pickle the module's state: its folder and its module_state.pkl
    are refused, saying how to export the weights (boardgym.envs.rllib.save_module)."""
    marker = tmp_path / "unpickled"
    folder = tmp_path / "checkpoint"
    (folder / "learner_group" / "learner" / "rl_module" / "learner").mkdir(parents=True)
    (folder / "rllib_checkpoint.json").write_text('{"type": "Algorithm"}')
    pickled = folder / "learner_group" / "learner" / "rl_module" / "learner" / "module_state.pkl"
    pickled.write_bytes(pickle.dumps({"pi.net.mlp.0.weight": Trap(marker)}))
    game = make_game("tictactoe")
    with pytest.raises(BoardgymError) as error:
        make_agent(f"torch:checkpoint={folder}", game)
    one_sentence(error, "RLlib checkpoint folder", "save_policy")
    with pytest.raises(BoardgymError) as error:
        make_agent(f"torch:checkpoint={pickled}", game)
    one_sentence(error, "module_state.pkl", "never runs")
    assert not marker.exists()


def test_every_other_way_the_file_can_be_wrong_is_one_sentence(tmp_path: Path) -> None:
    game = make_game("tictactoe")
    net = mlp([18, 16, 9], nn.ReLU)
    good = save_policy(tmp_path / "good.pt", game, [net[0], net[2]], activation="ReLU")
    empty = tmp_path / "empty.pt"
    empty.write_bytes(b"")
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"not a torch file at all")
    list_file = tmp_path / "list.pt"
    torch.save([1, 2], list_file)
    tianshou_file = tmp_path / "tianshou.pt"
    torch.save(tianshou_keys(net), tianshou_file)
    payload = {k: v for k, v in torch.load(good, weights_only=True).items() if k not in ("format", "game_signature")}
    lying, nan = tmp_path / "lying.pt", tmp_path / "nan.pt"
    save_checkpoint(
        lying, {**payload, "architecture": {**payload["architecture"], "sizes": [18, 32, 9]}}, format=FORMAT, game=game
    )
    payload["weights"]["0.weight"][0, 0] = float("nan")
    save_checkpoint(nan, payload, format=FORMAT, game=game)
    cases = {
        f"torch:checkpoint={tmp_path / 'missing.pt'}": "does not exist",
        f"torch:checkpoint={tmp_path}": "is a folder",
        f"torch:checkpoint={empty}": "empty",
        f"torch:checkpoint={garbage}": "cannot be read",
        f"torch:checkpoint={list_file}": "not a dict",
        f"torch:checkpoint={tianshou_file}": "tianshou:checkpoint=",
        f"torch:checkpoint={nan}": "NaN",
        f"torch:checkpoint={lying}": "declares layer sizes [18, 32, 9]",
        "torch": "needs checkpoint=PATH",
        f"tianshou:checkpoint={good}": "holds no Tianshou Net",
        f"tianshou:checkpoint={tianshou_file},activation=Mish": "activation 'Mish'",
    }
    for spec, words in cases.items():
        with pytest.raises(BoardgymError) as error:
            make_agent(spec, game)
        one_sentence(error, words)
    with pytest.raises(BoardgymError) as error:
        save_policy(
            tmp_path / "p.pt", game, [(payload["weights"]["0.weight"], payload["weights"]["0.bias"])], activation="ReLU"
        )
    one_sentence(error, "NaN")
    for spec in (f"torch:checkpoint={good}", f"tianshou:checkpoint={tianshou_file}"):
        with pytest.raises(BoardgymError) as error:
            make_agent(spec, make_game("connect_four"))
        one_sentence(error, "connect_four")


def test_save_policy_refuses_layers_that_do_not_fit_the_game(tmp_path: Path) -> None:
    game = make_game("tictactoe")
    net = mlp([18, 16, 7], nn.ReLU)
    with pytest.raises(BoardgymError) as error:
        save_policy(tmp_path / "p.pt", game, [net[0], net[2]], activation="ReLU")
    one_sentence(error, "9 actions")
    with pytest.raises(BoardgymError) as error:
        save_policy(tmp_path / "p.pt", game, [net[0], net[0]], activation="ReLU")
    one_sentence(error, "layer 1 takes 18 inputs")
    assert not (tmp_path / "p.pt").exists()
