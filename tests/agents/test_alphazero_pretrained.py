"""alphazero:pretrained=true: the networks shipped in the package load, are checked against
the game's parameters, and refuse what they cannot play in one sentence."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from boardgym import make_agent, make_game
from boardgym.agents.alphazero.agent import AlphaZeroAgent, load_network, save_network
from boardgym.agents.alphazero.network import build_network
from boardgym.agents.alphazero.pretrained import shipped_file, shipped_networks
from boardgym.agents.alphazero.pretrained.__main__ import export
from boardgym.evaluate.match import play_games
from boardgym.games import make_game as make_rules
from boardgym.types import BoardgymError

PRETRAINED = shipped_networks()
"""The shipped networks, by game (each game's ``pretrained`` in ``GAMES``)."""


def _game_of(name: str):
    return make_game(name, **PRETRAINED[name].params)


@pytest.mark.parametrize("name", sorted(PRETRAINED))
def test_every_shipped_network_is_in_the_package_small_and_in_float16(name: str) -> None:
    path = shipped_file(name)
    assert path.is_file(), path
    assert path.stat().st_size < 2_000_000
    payload = torch.load(path, weights_only=True)
    floats = [t for t in payload["state_dict"].values() if t.is_floating_point()]
    assert floats and all(t.dtype == torch.float16 for t in floats)
    assert PRETRAINED[name].command.startswith("boardgym train alphazero") and PRETRAINED[name].budget


@pytest.mark.parametrize("name", sorted(PRETRAINED))
def test_pretrained_agent_loads_in_float32_and_plays_legal_moves(name: str) -> None:
    game = _game_of(name)
    agent = make_agent("alphazero:pretrained=true,simulations=8", game, seed=0)
    assert isinstance(agent, AlphaZeroAgent)
    assert all(p.dtype == torch.float32 for p in agent.network.parameters())
    state = game.initial_state()
    for _ in range(6):
        if game.is_terminal(state):
            break
        action = agent.act(game, state)
        assert action in game.legal_actions(state)
        state = game.apply(state, action)


def test_pretrained_tictactoe_network_never_loses_to_perfect_play() -> None:
    game = make_game("tictactoe")
    summary = play_games(game, "alphazero:pretrained=true,simulations=50", "perfect", 4, seed=0)
    assert summary.losses == 0


def test_game_without_a_pretrained_network_is_one_sentence() -> None:
    with pytest.raises(BoardgymError, match="no pretrained alphazero network ships for nim.*checkpoint=PATH"):
        make_agent("alphazero:pretrained=true", make_game("nim"))


def test_other_game_parameters_are_refused_with_the_size_that_ships() -> None:
    with pytest.raises(BoardgymError, match="trained on hex size=7, not on hex size=11 swap=false"):
        make_agent("alphazero:pretrained=true", make_game("hex"))
    with pytest.raises(BoardgymError, match="trained on quixo size=5 max_moves=100, not on quixo size=4 max_moves=100"):
        make_agent("alphazero:pretrained=true", make_game("quixo", size=4))


def test_pretrained_quixo_network_beats_random_play() -> None:
    summary = play_games(make_game("quixo"), "alphazero:pretrained=true,simulations=16", "random", 4, seed=0)
    assert summary.wins == 4


def test_pretrained_and_checkpoint_together_are_refused(tmp_path: Path) -> None:
    with pytest.raises(BoardgymError, match="not both"):
        make_agent(f"alphazero:pretrained=true,checkpoint={tmp_path / 'x.pt'}", make_game("tictactoe"))


def test_export_writes_float16_that_loads_back_to_the_same_network(tmp_path: Path, monkeypatch) -> None:
    game = make_rules("tictactoe")
    torch.manual_seed(0)
    network = build_network(game, blocks=1, channels=8, value_hidden=8).eval()
    source = save_network(tmp_path / "final.pt", network, game)
    target = tmp_path / "shipped.pt"
    monkeypatch.setattr("boardgym.agents.alphazero.pretrained.__main__.shipped_file", lambda name: target)
    assert export(source) == target
    loaded = load_network(target, game)
    planes = torch.randn(5, *game.observation_shape)
    with torch.no_grad():
        (p1, v1), (p2, v2) = network(planes), loaded(planes)
    assert torch.allclose(p1, p2, atol=2e-2) and torch.allclose(v1, v2, atol=2e-2)
