"""SB3 zips both ways: a ``MaskablePPO.save()`` file plays as ``ppo:checkpoint=model.zip``
(read without unpickling anything), and ``boardgym train ppo`` writes a ``final.zip`` that
``MaskablePPO.load`` opens; every way such a file can be wrong is one sentence."""

from __future__ import annotations

import base64
import io
import json
import pickle
import zipfile
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

import boardgym  # noqa: F401  (registers the ids)
from boardgym import make_agent, make_game
from boardgym.agents.ppo import PPOAgent
from boardgym.agents.random_agent import RandomAgent
from boardgym.train.ppo import Config, train
from boardgym.types import BoardgymError

SMALL = dict(n_steps=64, batch_size=64, n_epochs=1, seed=0, verbose=0)


def sb3_model(env_id: str = "boardgym/TicTacToe-v0", **kwargs) -> MaskablePPO:
    model = MaskablePPO("MlpPolicy", gym.make(env_id, **kwargs.pop("env", {})), **SMALL, **kwargs)
    model.learn(64)
    return model


@pytest.fixture(scope="module")
def relu_zip(tmp_path_factory: pytest.TempPathFactory) -> tuple[MaskablePPO, Path]:
    model = sb3_model(policy_kwargs={"net_arch": {"pi": [32], "vf": [16, 8]}, "activation_fn": torch.nn.ReLU})
    path = tmp_path_factory.mktemp("sb3") / "model.zip"
    model.save(path)
    return model, path


def positions(game, count: int = 12, seed: int = 0):
    """States along a few random games."""
    agent, states = RandomAgent(game, seed=seed), []
    while len(states) < count:
        state = game.initial_state()
        while not game.is_terminal(state) and len(states) < count:
            states.append(state)
            state = game.apply(state, agent.act(game, state))
    return states


def same_moves(model: MaskablePPO, agent, game) -> None:
    for state in positions(game):
        player = game.current_player(state)
        mask = game.legal_mask(state)
        expected, _ = model.predict(game.observation(state, player), action_masks=mask, deterministic=True)
        assert agent.act(game, state) == int(expected)


def test_a_maskable_ppo_zip_plays_as_the_model_does(relu_zip) -> None:
    model, path = relu_zip
    game = make_game("tictactoe")
    agent = make_agent(f"ppo:checkpoint={path}", game, seed=0)
    assert isinstance(agent.policy.activation_fn(), torch.nn.ReLU)
    same_moves(model, agent, game)


def test_sb3_defaults_load_too(tmp_path: Path) -> None:
    model = sb3_model("boardgym/Nim-v0", env={"heaps": (2, 3)})
    model.save(tmp_path / "nim.zip")
    game = make_game("nim", heaps=(2, 3))
    same_moves(model, make_agent(f"ppo:checkpoint={tmp_path / 'nim.zip'}", game), game)


def rewrite(source: Path, target: Path, change) -> Path:
    """A copy of the zip ``source`` with ``change(name, bytes) -> bytes | None`` applied to each
    member (None drops it)."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for name in old.namelist():
            data = change(name, old.read(name))
            if data is not None:
                new.writestr(name, data)
    return target


class Trap:
    """Unpickling this creates the file it names: a stand-in for code run from a file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def test_no_pickle_in_the_file_is_ever_run(relu_zip, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model, path = relu_zip
    marker = tmp_path / "unpickled"
    trap = base64.b64encode(pickle.dumps(Trap(marker))).decode()

    def poison(name: str, data: bytes) -> bytes:
        if name != "data":
            return data
        values = json.loads(data)
        for value in values.values():
            if isinstance(value, dict) and ":serialized:" in value:
                value[":serialized:"] = trap
        return json.dumps(values).encode()

    poisoned = rewrite(path, tmp_path / "poisoned.zip", poison)
    for name in ("loads", "load", "Unpickler"):
        monkeypatch.setattr(pickle, name, lambda *a, **k: pytest.fail("pickle was used"))
    game = make_game("tictactoe")
    same_moves(model, make_agent(f"ppo:checkpoint={poisoned}", game), game)
    assert not marker.exists()


def test_a_policy_pth_that_would_run_code_is_refused_and_runs_nothing(relu_zip, tmp_path: Path) -> None:
    _, path = relu_zip
    marker = tmp_path / "unpickled"
    buffer = io.BytesIO()
    torch.save({"mlp_extractor.policy_net.0.weight": Trap(marker)}, buffer)
    poisoned = rewrite(
        path, tmp_path / "poisoned.zip", lambda name, data: buffer.getvalue() if name == "policy.pth" else data
    )
    with pytest.raises(BoardgymError) as error:
        make_agent(f"ppo:checkpoint={poisoned}", make_game("tictactoe"))
    assert "policy.pth cannot be read" in str(error.value) and "\n" not in str(error.value)
    assert not marker.exists()


def _edit_data(edit):
    def change(name: str, data: bytes) -> bytes | None:
        if name != "data":
            return data
        values = json.loads(data)
        edit(values)
        return json.dumps(values).encode()

    return change


def _kwargs(**entries):
    return _edit_data(lambda values: values["policy_kwargs"].update(entries))


def _policy_pth(payload):
    def change(name: str, data: bytes) -> bytes:
        if name != "policy.pth":
            return data
        buffer = io.BytesIO()
        torch.save(payload, buffer)
        return buffer.getvalue()

    return change


def _wrong_head(name: str, data: bytes) -> bytes:
    if name != "policy.pth":
        return data
    state = torch.load(io.BytesIO(data), weights_only=True)
    state["action_net.weight"] = torch.zeros(3, 3)
    buffer = io.BytesIO()
    torch.save(state, buffer)
    return buffer.getvalue()


def _truncate_weights(name: str, data: bytes) -> bytes:
    return data[: len(data) // 2] if name == "policy.pth" else data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda name, data: b"{not json" if name == "data" else data, "its data is not JSON"),
        (
            _edit_data(lambda v: v["policy_class"].update({"__module__": "stable_baselines3.common.policies"})),
            "not sb3-contrib's MaskablePPO",
        ),
        (_edit_data(lambda v: v["observation_space"].update({"_shape": [3, 3]})), "observes .* of shape \\[3, 3\\]"),
        (_edit_data(lambda v: v["action_space"].update({"n": "7"})), "n=7, not tictactoe's Discrete\\(9\\)"),
        (_kwargs(features_extractor_class="<class 'my.Extractor'>"), "policy_kwargs features_extractor_class"),
        (_kwargs(activation_fn="<class 'my.Swish'>"), "activation_fn <class 'my.Swish'>"),
        (_kwargs(net_arch={"pi": [64], "vf": [16, 8]}), "net_arch says"),
        (_truncate_weights, "policy.pth cannot be read"),
        (_policy_pth({"weights": "not a tensor"}), "not a state_dict of tensors"),
        (_policy_pth({"action_net.weight": torch.zeros(3, 3)}), "net_arch says .* the weights have layers pi=\\[\\]"),
        (_wrong_head, "do not fit tictactoe's policy"),
    ],
)
def test_a_wrong_zip_is_one_sentence(relu_zip, tmp_path: Path, change, message: str) -> None:
    _, path = relu_zip
    broken = rewrite(path, tmp_path / "broken.zip", change)
    with pytest.raises(BoardgymError, match=message) as caught:
        PPOAgent(make_game("tictactoe"), checkpoint=broken)
    assert "\n" not in str(caught.value) and str(broken) in str(caught.value)


def test_a_zip_of_another_game_is_refused(relu_zip) -> None:
    _, path = relu_zip
    with pytest.raises(BoardgymError, match="not connect_four's planes"):
        PPOAgent(make_game("connect_four"), checkpoint=path)


def test_a_truncated_zip_is_not_taken_for_one(relu_zip, tmp_path: Path) -> None:
    _, path = relu_zip
    cut = tmp_path / "cut.zip"
    cut.write_bytes(path.read_bytes()[:300])
    with pytest.raises(BoardgymError, match="corrupt|damaged or incomplete"):
        PPOAgent(make_game("tictactoe"), checkpoint=cut)


def test_a_zip_of_an_unknown_version_is_one_sentence(relu_zip, tmp_path: Path) -> None:
    """A damaged central directory whose 'version needed to extract' zipfile does not know
    (it raises NotImplementedError, not BadZipFile) ends in one sentence, not a traceback."""
    _, path = relu_zip
    data = bytearray(path.read_bytes())
    end = data.rindex(b"PK\x05\x06")  # the end record names where the central directory starts
    central = int.from_bytes(data[end + 16 : end + 20], "little")
    assert data[central : central + 4] == b"PK\x01\x02"
    data[central + 6] = 255  # the first entry's version needed to extract: 25.5
    damaged = tmp_path / "version.zip"
    damaged.write_bytes(bytes(data))
    with pytest.raises(NotImplementedError):
        zipfile.ZipFile(damaged)
    with pytest.raises(BoardgymError) as caught:
        make_agent(f"ppo:checkpoint={damaged}", make_game("tictactoe"))
    assert "\n" not in str(caught.value) and str(damaged) in str(caught.value)


def test_train_ppo_writes_a_zip_that_sb3_and_boardgym_open(tmp_path: Path) -> None:
    config = Config(
        game="nim",
        game_params="heaps=3,4,5",
        timesteps=128,
        n_envs=2,
        n_steps=32,
        batch_size=32,
        n_epochs=1,
        net_arch=(16,),
        eval_every=0,
        eval_games=2,
        run_name="zip",
        root=str(tmp_path),
        progress=False,
    )
    final = train(config)
    archive = final.parent / "final.zip"
    model = MaskablePPO.load(archive, device="cpu")
    game = make_game("nim", heaps=(3, 4, 5))
    same_moves(model, PPOAgent(game, checkpoint=final), game)
    same_moves(model, make_agent(f"ppo:checkpoint={archive}", game), game)
    for name, values in model.policy.state_dict().items():
        np.testing.assert_array_equal(values.numpy(), torch.load(final, weights_only=True)["policy"][name].numpy())
    # the same shapes, another game: the stamp inside tells them apart
    with pytest.raises(BoardgymError, match="was trained on"):
        PPOAgent(make_game("nim", heaps=(3, 5, 4)), checkpoint=archive)


def test_damaged_deflated_members_are_one_sentence(tmp_path: Path) -> None:
    """Flipped bytes inside a deflated member make zlib fail (zlib.error, not BadZipFile)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("data", "{" + ",".join(f'"k{i}": {i}' for i in range(2000)) + "}")
        archive.writestr("policy.pth", b"x" * 5000)
    raw = buffer.getvalue()
    path = tmp_path / "damaged.zip"
    for offset in range(40, 120):
        damaged = bytearray(raw)
        damaged[offset] ^= 0xFF
        path.write_bytes(bytes(damaged))
        with pytest.raises(BoardgymError):
            make_agent(f"ppo:checkpoint={path}", make_game("tictactoe"))
