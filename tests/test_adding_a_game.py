"""Adding a game is its rules module and one line in ``GAMES``: a toy game written to a new
module here, and registered by one ``GameEntry`` line (in this test), plays in the AEC env,
``gym.make``, ``boardgym play``, a tournament, the drawing fallback and the play page's list,
with nothing else touched; the parts other tables used to keep (its page's demo, a shipped
network, coevolution's example weights) come from the same entry."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from boardgym import draw, make_agent, make_game
from boardgym.cli import main
from boardgym.envs import aec_env
from boardgym.envs.registration import register_envs
from boardgym.games import GAMES, Demo, GameEntry, Pretrained, gym_id

TOY_MODULE = '''
"""Take-away: one heap; a move takes 1 (action 0) or 2 (action 1) tokens; taking the last wins."""

import numpy as np

from boardgym.game import GameBase


class TakeAway(GameBase):
    name = "take_away"
    num_actions = 2
    observation_shape = (1,)

    def __init__(self, tokens: int = 7) -> None:
        self.tokens = tokens

    def params(self):
        return {"tokens": self.tokens}

    def initial_state(self):
        return (self.tokens, 0)

    def current_player(self, state):
        return state[1]

    def legal_actions(self, state):
        return [a for a in (0, 1) if a + 1 <= state[0]]

    def apply(self, state, action):
        if action not in self.legal_actions(state):
            self.raise_illegal(state, action)
        return (state[0] - action - 1, 1 - state[1])

    def is_terminal(self, state):
        return state[0] == 0

    def returns(self, state):
        if state[0]:
            return (0.0, 0.0)
        return (1.0, -1.0) if state[1] == 1 else (-1.0, 1.0)  # whoever took the last token wins

    def observation(self, state, player):
        return np.array([state[0] / self.tokens], dtype=np.float32)

    def render(self, state):
        return f"{state[0]} tokens left, player {state[1]} to move"
'''


@pytest.fixture()
def toy_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The toy game's module on the path, and its one line in GAMES."""
    (tmp_path / "toy_take_away.py").write_text(TOY_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(GAMES, "take_away", GameEntry("toy_take_away:TakeAway", "take 1 or 2; the last token wins"))
    yield from registered("take_away")


@pytest.fixture()
def toy_game_with_its_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The toy game with the parts other tables used to keep, in its one entry: its page's
    demo game, a shipped network and coevolution's example weights."""
    (tmp_path / "toy_take_away.py").write_text(TOY_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    entry = GameEntry(
        "toy_take_away:TakeAway",
        "take 1 or 2; the last token wins",
        demo=Demo({"tokens": 5}, ("minimax:depth=6", "random"), seed=3),
        pretrained=Pretrained(params={"tokens": 5}, command="boardgym train alphazero --game take_away"),
        coevolve_weights=(1.0, -0.5),
    )
    monkeypatch.setitem(GAMES, "take_away", entry)
    yield from registered("take_away")


def registered(name: str) -> Iterator[str]:
    register_envs()
    try:
        yield name
    finally:
        gym.registry.pop(gym_id(name), None)
        sys.modules.pop("toy_take_away", None)


def test_the_rules_and_the_search_agents_see_it(toy_game: str) -> None:
    game = make_game(toy_game, tokens=5)
    assert game.params() == {"tokens": 5}
    assert make_agent("minimax:depth=6", game, seed=0).act(game, game.initial_state()) == 1  # leave 3


def test_the_aec_env_sees_it(toy_game: str) -> None:
    env = aec_env(toy_game, tokens=5)
    api_test(env, num_cycles=20)
    env.reset(seed=0)
    assert env.observe("player_0")["action_mask"].tolist() == [1, 1]


def test_gym_make_sees_it(toy_game: str) -> None:
    assert gym_id(toy_game) == "boardgym/TakeAway-v0"
    env = gym.make("boardgym/TakeAway-v0", opponent="minimax:depth=4", tokens=5)
    check_env(env.unwrapped, skip_render_check=True)
    observation, info = env.reset(seed=0)
    assert info["action_mask"].tolist() in ([1, 1], [1, 0])
    assert env.action_masks().tolist() == info["action_mask"].tolist()


def test_boardgym_play_sees_it(toy_game: str, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("0\n0\n0\n0\n0\n0\n0\n"))
    assert main(["play", toy_game, "-p", "tokens=3", "--opponent", "minimax:depth=4", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "you are player 0" in out and "you lose" in out  # from 3 the first player loses to perfect play


def test_a_tournament_sees_it(toy_game: str, tmp_path: Path, capsys) -> None:
    argv = ["evaluate", toy_game, "--agents", "minimax:depth=8", "random", "--games", "6", "--workers", "2"]
    assert main([*argv, "--root", str(tmp_path / "runs"), "--run-name", "t", "--no-plots"]) == 0
    folder = tmp_path / "runs" / toy_game / "evaluate" / "t"
    results = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    assert len(results) == 6 and "minimax:depth=8" in capsys.readouterr().out


def test_the_drawing_falls_back_to_the_text_picture(toy_game: str, tmp_path: Path) -> None:
    game = make_game(toy_game)
    state = game.apply(game.initial_state(), 1)
    assert draw.drawing_of(game) == draw.TEXT_DRAWING
    svg = draw.svg(game, state, [1])
    assert "5 tokens left, player 1 to move" in svg and 'data-move="0"' in svg and 'class="last-move"' in svg
    assert draw.rgb_array(game, state).shape == draw.rgb_array(game, game.initial_state()).shape
    env = gym.make("boardgym/TakeAway-v0", render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().ndim == 3
    assert main(["render", toy_game, "--moves", "1 0", "-o", str(tmp_path / "board.png")]) == 0
    assert (tmp_path / "board.png").read_bytes()[:4] == b"\x89PNG"


def test_the_play_page_lists_it_and_plays_it(toy_game: str) -> None:
    pytest.importorskip("starlette", reason="the web extra is not installed: pip install 'boardgym[web]'")
    from starlette.testclient import TestClient

    from boardgym.web.app import create_app

    with TestClient(create_app(workers=1), base_url="http://127.0.0.1") as client:
        games = {game["name"]: game for game in client.get("/api/meta").json()["games"]}
        assert games[toy_game]["players"] == 2 and games[toy_game]["params"] == [{"name": "tokens", "default": "7"}]
        assert "random" in games[toy_game]["agents"]
        view = client.post("/api/sessions", json={"game": toy_game, "players": ["human", "human"]}).json()
        while not view["finished"]:
            view = client.post(f"/api/sessions/{view['id']}/move", json={"action": view["legal"][-1]["action"]}).json()
        assert view["result"] == "player 1 (you) wins" and "data-action" not in view["svg"]  # 7 -> 5 -> 3 -> 1 -> 0


def test_its_page_s_demo_comes_from_its_entry(toy_game_with_its_tables: str) -> None:
    from boardgym.cli.docs_games import demo_gif, demo_of

    assert demo_of(toy_game_with_its_tables).params == {"tokens": 5}
    files = demo_gif(toy_game_with_its_tables)
    assert files.gif[:3] == b"GIF" and "`minimax:depth=6`" in files.caption and "tokens=5" in files.caption


def test_its_shipped_network_is_named_by_its_entry(toy_game_with_its_tables: str) -> None:
    from boardgym.agents.alphazero.pretrained import pretrained_file, shipped_networks
    from boardgym.types import BoardgymError

    assert shipped_networks()[toy_game_with_its_tables].params == {"tokens": 5}
    with pytest.raises(BoardgymError, match="trained on take_away tokens=5, not on take_away tokens=7"):
        pretrained_file(make_game(toy_game_with_its_tables))
    with pytest.raises(BoardgymError, match="missing from this installation"):  # the entry names it; no file here
        pretrained_file(make_game(toy_game_with_its_tables, tokens=5))


def test_coevolution_measures_against_its_entry_s_weights(toy_game_with_its_tables: str) -> None:
    from boardgym.train.coevolve import weighted_opponents

    game = make_game(toy_game_with_its_tables)
    assert weighted_opponents(game, 3) == {
        "report_weights": "coevolved:weights=1/-0.5,depth=3",
        "random_weights": "coevolved:weights=random,depth=3",
    }
