"""A checkpoint reaches the page as ``@NAME`` only: no error about it (trained on another game,
a corrupt file, a file gone since the server started, a failure inside the worker) shows
its path or its folder."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import torch

from boardgym import make_game
from boardgym.agents.alphazero.agent import save_network
from boardgym.agents.alphazero.network import build_network
from boardgym.types import BoardgymError
from boardgym.web.app import checkpoints_from
from boardgym.web.pool import AgentPool, hide_paths

JSON = {"content-type": "application/json"}
SECRET = "secret-folder"


def connect_four_net(folder: Path) -> Path:
    game = make_game("connect_four")
    torch.manual_seed(0)
    network = build_network(game, blocks=1, channels=8, value_hidden=8)
    return save_network(folder / SECRET / "net.pt", network, game)


def refusal(http: httpx.Client, game: str) -> str:
    response = http.post("/api/sessions", json={"game": game, "players": ["@az", "human"]})
    assert response.status_code == 400, response.text
    return response.json()["error"]


def test_errors_name_the_checkpoint_never_its_path(tmp_path: Path, server_factory: Any) -> None:
    path = connect_four_net(tmp_path)
    with (
        server_factory(checkpoints=checkpoints_from([f"az={path}"]), workers=1) as server,
        httpx.Client(base_url=server.url, timeout=60, headers=JSON) as http,
    ):
        wrong_game = refusal(http, "tictactoe")
        assert "@az" in wrong_game and "connect_four" in wrong_game, wrong_game

        path.write_bytes(b"not a checkpoint any more")  # replaced after the server started
        corrupt = refusal(http, "connect_four")
        assert "@az" in corrupt and "cannot be read" in corrupt, corrupt

        path.unlink()  # gone since the server started
        missing = refusal(http, "connect_four")
        assert "@az" in missing and "does not exist" in missing, missing

        for message in (wrong_game, corrupt, missing):
            assert SECRET not in message and str(tmp_path) not in message and "net.pt" not in message, message


def test_the_pool_names_the_agent_by_its_label(tmp_path: Path) -> None:
    spec = f"alphazero:checkpoint={tmp_path / SECRET / 'gone.pt'}"

    async def scenario() -> str:
        pool = AgentPool(workers=1, move_seconds=5.0)
        await pool.start()
        try:
            with pytest.raises(BoardgymError) as error:
                await pool.act("s:0", "tictactoe", {}, spec, 0, None, label="@az")
            return str(error.value)
        finally:
            pool.close()

    with ThreadPoolExecutor(1) as thread:  # an event loop of its own (playwright's is in this thread)
        message = thread.submit(asyncio.run, scenario()).result()
    assert "@az" in message and SECRET not in message and str(tmp_path) not in message, message


@pytest.mark.parametrize(
    "message",
    [
        "checkpoint '/runs/secret-folder/final.pt' was trained on connect_four, not on tictactoe",
        "agent 'alphazero:simulations=10' failed: RuntimeError: cannot map /runs/secret-folder/final.pt",
        "agent 'alphazero:simulations=10' failed: FileNotFoundError: \"/runs/secret-folder/final.pt\"",
        "agent 'alphazero:simulations=10' failed: OSError: lost /runs/secret-folder/other.bin",
    ],
)
def test_paths_in_a_workers_message_become_the_name(message: str) -> None:
    shown = hide_paths(message, "alphazero:checkpoint=/runs/secret-folder/final.pt,simulations=10", "@az")
    assert SECRET not in shown and "'alphazero" not in shown, shown
    assert "@az" in shown or "(a folder of the server)" in shown, shown


def test_models_brought_from_other_frameworks_reach_the_page_by_name(tmp_path: Path) -> None:
    """``boardgym serve --checkpoint NAME=PATH`` takes what the examples save: an SB3 zip, a
    Tianshou state_dict and a save_policy file (CleanRL, RLlib), each to the agent that plays it."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    import boardgym  # noqa: F401  (the gym ids)
    from boardgym.agents.torch_policy import save_policy

    game = make_game("tictactoe")
    MaskablePPO("MlpPolicy", gym.make("boardgym/TicTacToe-v0"), n_steps=64, batch_size=64).save(tmp_path / "m.zip")
    torch.manual_seed(0)
    layers = [torch.nn.Linear(18, 8), torch.nn.Linear(8, 9)]
    save_policy(tmp_path / "p.pt", game, layers, activation="ReLU")
    torch.save(
        {f"model.model.model.{2 * i}.{k}": v for i, layer in enumerate(layers) for k, v in layer.state_dict().items()},
        tmp_path / "t.pth",
    )
    torch.save({"something": torch.zeros(2)}, tmp_path / "other.pt")
    specs = checkpoints_from([f"sb3={tmp_path / 'm.zip'}", f"cleanrl={tmp_path / 'p.pt'}", f"ts={tmp_path / 't.pth'}"])
    assert {name: spec.partition(":")[0] for name, spec in specs.items()} == {
        "sb3": "ppo",
        "cleanrl": "torch",
        "ts": "tianshou",
    }
    with pytest.raises(BoardgymError, match="which no agent plays"):
        checkpoints_from([f"x={tmp_path / 'other.pt'}"])
