"""The play page's player menus: for every game, the strongest agents the package ships (its
network, its exact solver, perfect play where search reaches the end) are offered, and each
offered spec plays at the page's starting parameters."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from boardgym import make_agent, make_game
from boardgym.agents.alphazero.pretrained import shipped_file
from boardgym.games import GAMES, game_class, game_parameters
from boardgym.registry import parse_value


@pytest.fixture(scope="module")
def meta(live_server: Any) -> dict[str, dict[str, Any]]:
    with httpx.Client(base_url=live_server.url, timeout=60) as http:
        return {game["name"]: game for game in http.get("/api/meta").json()["games"]}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_menus_offer_the_strongest_shipped_agents(meta: dict[str, dict[str, Any]], name: str) -> None:
    offered = meta[name]["agents"]
    game = make_game(name)
    assert ("alphazero:pretrained=true" in offered) == shipped_file(name).is_file(), offered
    assert ("solver" in offered) == (name == "connect_four"), offered
    if game.num_players == 2 and game.solvable_by_search:
        assert "perfect" in offered, offered


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_offered_agent_plays_at_the_page_s_starting_parameters(
    meta: dict[str, dict[str, Any]], name: str
) -> None:
    # the page's parameters are text, typed as the command line types them
    params = {p["name"]: p["default"] for p in meta[name]["params"] if p["default"] != ""}
    annotations = game_parameters(game_class(name))
    game = make_game(name, **{key: parse_value(text, annotations[key], name=key) for key, text in params.items()})
    state = game.initial_state()
    for spec in meta[name]["agents"]:
        if spec.startswith("mcts:time="):
            continue  # seconds a move, the same agent as mcts:simulations=...
        agent = make_agent(spec, game, seed=0)
        assert agent.act(game, state) in game.legal_actions(state), spec
