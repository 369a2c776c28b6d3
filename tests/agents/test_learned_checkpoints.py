"""A checkpoint in the right format whose content is broken: one sentence from every learned
agent's loader (``boardgym.checkpoints.checkpoint_content``), never a KeyError or RuntimeError."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

from boardgym import BoardgymError, make_agent, make_game
from boardgym.agents.alphazero.agent import FORMAT as ALPHAZERO
from boardgym.agents.alphazero.agent import checkpoint_payload
from boardgym.agents.alphazero.network import build_network
from boardgym.agents.coevolved import FORMAT as COEVOLVED
from boardgym.agents.evolved_nim import FORMAT as ES
from boardgym.agents.evolved_nim import genome_size
from boardgym.agents.neat_agent import FORMAT as NEAT
from boardgym.agents.ppo import FORMAT as PPO
from boardgym.agents.ppo import build_policy
from boardgym.agents.tabular import FORMAT as TABULAR
from boardgym.agents.tabular import ValueTable
from boardgym.checkpoints import save_checkpoint
from boardgym.game import HasFeatures

TICTACTOE, NIM, RASTROS = make_game("tictactoe"), make_game("nim"), make_game("rastros")


def tabular() -> dict[str, Any]:
    table = ValueTable(TICTACTOE)
    table.row(TICTACTOE.initial_state())[1][4] = 1.0
    return table.to_payload()


def alphazero() -> dict[str, Any]:
    return checkpoint_payload(build_network(TICTACTOE, blocks=1, channels=4, value_hidden=4))


def ppo() -> dict[str, Any]:
    return {"net_arch": [8], "policy": build_policy(TICTACTOE, [8]).state_dict()}


def neat() -> dict[str, Any]:
    import json
    import math

    inputs = list(range(-math.prod(TICTACTOE.observation_shape), 0))  # one input per observation entry
    nodes = [[1, key, 0.0, 1.0, "identity", [[-1, 1.0]]] for key in range(9)]
    return {"mode": "policy", "network": json.dumps({"inputs": inputs, "outputs": list(range(9)), "nodes": nodes})}


def weights(size: int) -> torch.Tensor:
    return torch.linspace(-1, 1, size, dtype=torch.float64)


assert isinstance(RASTROS, HasFeatures)
CASES: dict[str, tuple[str, Any, str, Callable[[], dict[str, Any]]]] = {
    "qlearning": ("qlearning", TICTACTOE, TABULAR, tabular),
    "alphazero": ("alphazero", TICTACTOE, ALPHAZERO, alphazero),
    "ppo": ("ppo", TICTACTOE, PPO, ppo),
    "neat": ("neat", TICTACTOE, NEAT, neat),
    "es": ("es", NIM, ES, lambda: {"genome_kind": "weights", "best": weights(genome_size(NIM, "weights"))}),
    "coevolved": ("coevolved", RASTROS, COEVOLVED, lambda: {"best": weights(len(RASTROS.feature_weights)), "depth": 1}),
}


def broken(payload: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Each top-level value of the wrong type, each tensor cut short or made NaN, and the
    first entry of each dict dropped or replaced."""
    out = []
    for key, value in payload.items():
        for label, bad in (("text", "x"), ("none", None), ("number", 7), ("tensor", torch.ones(3, 2))):
            out.append((f"{key}={label}", {**payload, key: bad}))
        if torch.is_tensor(value) and value.numel() > 1:
            out.append((f"{key} shorter", {**payload, key: value.flatten()[:-1]}))
            if value.is_floating_point():
                nan = value.clone()
                nan.view(-1)[0] = float("nan")
                out.append((f"{key} nan", {**payload, key: nan}))
        if isinstance(value, dict) and value:
            first = next(iter(value))
            out.append((f"{key} without {first}", {**payload, key: {k: v for k, v in value.items() if k != first}}))
            out.append((f"{key}[{first}] wrong shape", {**payload, key: {**value, first: torch.zeros(2, 3, 5)}}))
    return out


@pytest.mark.parametrize("case", list(CASES))
def test_the_intact_checkpoint_loads(case: str, tmp_path: Path) -> None:
    agent, game, format, make = CASES[case]
    path = save_checkpoint(tmp_path / "ok.pt", make(), format=format, game=game)
    player = make_agent(f"{agent}:checkpoint={path}", game, seed=0)
    assert player.act(game, game.initial_state()) in game.legal_actions(game.initial_state())


@pytest.mark.parametrize("case", list(CASES))
def test_broken_content_is_one_sentence(case: str, tmp_path: Path) -> None:
    agent, game, format, make = CASES[case]
    refused = 0
    for label, payload in broken(make()):
        path = save_checkpoint(tmp_path / "bad.pt", payload, format=format, game=game)
        try:
            player = make_agent(f"{agent}:checkpoint={path}", game, seed=0)
        except BoardgymError as error:
            assert "\n" not in str(error) and str(path) in str(error), label
            refused += 1
            continue
        # what loads must play: a broken value it accepted would show here
        assert player.act(game, game.initial_state()) in game.legal_actions(game.initial_state()), label
    assert refused >= len(make())


def test_an_architecture_that_does_not_match_the_weights_is_named(tmp_path: Path) -> None:
    payload = alphazero()
    payload["architecture"] = {**payload["architecture"], "channels": 8}
    path = save_checkpoint(tmp_path / "arch.pt", payload, format=ALPHAZERO, game=TICTACTOE)
    with pytest.raises(BoardgymError, match="is damaged: .*weights do not match the architecture"):
        make_agent(f"alphazero:checkpoint={path}", TICTACTOE)
    payload["architecture"] = {**payload["architecture"], "channels": 10**6, "blocks": 10**3}
    path = save_checkpoint(tmp_path / "huge.pt", payload, format=ALPHAZERO, game=TICTACTOE)
    with pytest.raises(BoardgymError, match="blocks=1000 is not a whole number from 0 to 64"):  # allocates nothing
        make_agent(f"alphazero:checkpoint={path}", TICTACTOE)
