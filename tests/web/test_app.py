"""The play server's JSON API over real HTTP on 127.0.0.1: whole games, undo, records, the
agents' analysis, checkpoints by name, the per-move cap, and a JSON 4xx for each bad request."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import torch

from boardgym import make_game
from boardgym.agents.alphazero.agent import save_network
from boardgym.agents.alphazero.network import build_network
from boardgym.evaluate.records import GameRecord
from boardgym.types import BoardgymError
from boardgym.web.app import checkpoints_from

JSON = {"content-type": "application/json"}  # what every change must carry (the page's own requests do)


@pytest.fixture()
def client(live_server: Any) -> httpx.Client:
    with httpx.Client(base_url=live_server.url, timeout=60, headers=JSON) as http:
        yield http


def new_game(client: httpx.Client, **body: Any) -> dict[str, Any]:
    response = client.post("/api/sessions", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def finish(client: httpx.Client, view: dict[str, Any]) -> dict[str, Any]:
    """Play the person's seats with the first legal move and let the agents move, to the end."""
    for _ in range(400):
        if view["finished"]:
            return view
        if view["human_to_move"]:
            response = client.post(f"/api/sessions/{view['id']}/move", json={"action": view["legal"][0]["action"]})
        else:
            response = client.post(f"/api/sessions/{view['id']}/agent")
        assert response.status_code == 200, response.text
        view = response.json()
    raise AssertionError("the game did not end")


def test_the_page_and_its_files_are_served(client: httpx.Client) -> None:
    page = client.get("/")
    assert page.status_code == 200 and '<script src="/static/app.js">' in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200
    meta = client.get("/api/meta").json()
    assert {game["name"] for game in meta["games"]} >= {"tictactoe", "hex", "setcover", "blackbox"}
    hex_meta = next(game for game in meta["games"] if game["name"] == "hex")
    assert {p["name"]: p["default"] for p in hex_meta["params"]} == {"size": "7", "swap": "false"}
    assert "mcts:simulations=300" in hex_meta["agents"]
    assert "human" not in {agent["name"] for agent in meta["agents"]}


def test_a_whole_game_against_an_agent_with_its_analysis_and_record(client: httpx.Client) -> None:
    view = new_game(client, game="tictactoe", players=["human", "mcts:simulations=50"], seed=3)
    assert view["human_to_move"] and view["svg"].count('class="target"') == 9
    view = client.post(f"/api/sessions/{view['id']}/move", json={"move": "b2"}).json()
    assert not view["human_to_move"] and view["moves"][0]["move"] == "b2"
    view = client.post(f"/api/sessions/{view['id']}/agent").json()
    analysis = view["analysis"]
    assert analysis["by"] == "mcts:simulations=50" and analysis["info"]["simulations"] == 50
    assert 'class="overlay"' in analysis["svg"] and isinstance(analysis["value"], float)
    assert view["moves"][1]["seconds"] > 0
    view = finish(client, view)
    assert view["result"] in ("you win", "you lose", "draw")
    record = client.get(f"/api/sessions/{view['id']}/record")
    assert record.headers["content-disposition"].startswith("attachment")
    saved = GameRecord.from_dict(record.json())
    assert saved.players == ("you", "mcts:simulations=50") and len(saved.moves) == len(view["moves"])
    assert saved.seconds[0] is None and saved.seconds[1] > 0


def test_illegal_moves_are_explained_with_the_legal_ones(client: httpx.Client) -> None:
    view = new_game(client, game="tictactoe", players=["human", "human"])
    game_id = view["id"]
    client.post(f"/api/sessions/{game_id}/move", json={"action": 4})
    for body in ({"action": 4}, {"move": "b2"}):
        response = client.post(f"/api/sessions/{game_id}/move", json=body)
        assert response.status_code == 400
        assert "not legal here" in response.json()["error"] and "a1" in response.json()["legal"]
    response = client.post(f"/api/sessions/{game_id}/move", json={"move": "z9"})
    assert response.status_code == 400 and "cannot read move 'z9'" in response.json()["error"]
    assert client.post(f"/api/sessions/{game_id}/agent").status_code == 409


def test_undo_and_delete(client: httpx.Client) -> None:
    view = new_game(client, game="connect_four", players=["human", "random"])
    view = client.post(f"/api/sessions/{view['id']}/move", json={"action": 3}).json()
    view = client.post(f"/api/sessions/{view['id']}/agent").json()
    assert len(view["moves"]) == 2
    view = client.post(f"/api/sessions/{view['id']}/undo").json()
    assert view["moves"] == [] and view["human_to_move"]
    assert client.post(f"/api/sessions/{view['id']}/undo").status_code == 409
    assert client.delete(f"/api/sessions/{view['id']}").status_code == 200
    assert client.get(f"/api/sessions/{view['id']}").status_code == 404


@pytest.mark.parametrize(
    ("game", "params", "players"),
    [
        ("nim", {"heaps": "3,4,5", "misere": "true"}, ["nimsum", "perfect"]),
        ("hex", {"size": 4, "swap": True}, ["random", "mcts:simulations=20"]),
        ("quarto", {}, ["minimax:depth=1", "random"]),
        ("setcover", {"problem_size": 10, "num_sets": 12, "density": 0.4, "seed": 2}, ["greedy"]),
        ("blackbox", {"instance": 2, "genome_length": 10}, ["random"]),
    ],
)
def test_agents_play_whole_games_to_be_watched(client: httpx.Client, game: str, params: dict, players: list) -> None:
    view = finish(client, new_game(client, game=game, params=params, players=players))
    assert view["result"] and view["status"]
    assert all(move["seconds"] is not None for move in view["moves"])


def test_a_second_change_while_an_agent_thinks_is_refused(client: httpx.Client) -> None:
    view = new_game(client, game="connect_four", players=["mcts:time=3", "human"])
    game_id = view["id"]
    thinking = threading.Thread(target=lambda: client.post(f"/api/sessions/{game_id}/agent"))
    thinking.start()
    try:
        answers = []
        for _ in range(200):  # a move of the person's seat: "the agent's move" before, "busy" during
            response = client.post(f"/api/sessions/{game_id}/move", json={"action": 0})
            answers.append(response.json().get("error", ""))
            if "busy" in answers[-1] or response.status_code == 200:
                break
            time.sleep(0.01)
        assert "busy" in answers[-1], answers[-3:]
        other = new_game(client, game="tictactoe", players=["human", "random"])  # other games go on
        assert client.post(f"/api/sessions/{other['id']}/move", json={"action": 0}).status_code == 200
    finally:
        thinking.join()


def test_checkpoints_are_named_never_shown(tmp_path: Path, server_factory: Any) -> None:
    game = make_game("tictactoe")
    torch.manual_seed(0)
    network = build_network(game, blocks=1, channels=8, value_hidden=8)
    path = save_network(tmp_path / "secret-folder" / "net.pt", network, game)
    checkpoints = checkpoints_from([f"tiny={path}"])
    assert checkpoints == {"tiny": f"alphazero:checkpoint={path.resolve()}"}
    with pytest.raises(BoardgymError, match="NAME=PATH"):
        checkpoints_from([f"bad name={path}"])
    with pytest.raises(BoardgymError, match="--checkpoint gives 'a' twice"):
        checkpoints_from([f"a={path}", f"a={path}"])
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(BoardgymError, match="cannot be read"):
        checkpoints_from([f"junk={tmp_path / 'junk.pt'}"])
    with (
        server_factory(checkpoints=checkpoints, workers=1) as server,
        httpx.Client(base_url=server.url, timeout=60, headers=JSON) as http,
    ):
        meta = http.get("/api/meta")
        assert meta.json()["checkpoints"] == [{"name": "@tiny", "agent": "alphazero"}]
        view = finish(http, new_game(http, game="tictactoe", players=["@tiny", "human"]))
        record = http.get(f"/api/sessions/{view['id']}/record").text
        for text in (meta.text, json.dumps(view), record):
            assert "secret-folder" not in text
        assert view["moves"][0]["by"] == "@tiny" and "visits" in view["moves"][0]["info"]
        wrong = http.post("/api/sessions", json={"game": "connect_four", "players": ["@tiny", "human"]})
        assert wrong.status_code == 400 and "trained on tictactoe" in wrong.json()["error"]


def test_a_move_past_the_cap_is_stopped_and_the_server_goes_on(server_factory: Any) -> None:
    with (
        server_factory(workers=1, move_seconds=0.5, max_sessions=3) as server,
        httpx.Client(base_url=server.url, timeout=60, headers=JSON) as http,
    ):
        view = new_game(http, game="connect_four", players=["mcts:simulations=100000000", "human"])
        response = http.post(f"/api/sessions/{view['id']}/agent")
        assert response.status_code == 422 and "did not move within the 0.5 s cap" in response.json()["error"]
        view = http.get(f"/api/sessions/{view['id']}").json()
        assert view["moves"] == [] and not view["finished"]
        quick = new_game(http, game="tictactoe", players=["random", "human"])
        assert http.post(f"/api/sessions/{quick['id']}/agent").status_code == 200  # a fresh worker took over
        new_game(http, game="tictactoe", players=["human", "human"])
        full = http.post("/api/sessions", json={"game": "tictactoe"})
        assert full.status_code == 429 and "maximum of 3 games" in full.json()["error"]


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "message"),
    [
        ("POST", "/api/sessions", {"game": "chess"}, 400, "unknown game 'chess'"),
        ("POST", "/api/sessions", {"game": "tictactoe", "players": ["human"]}, 400, "must list 2 player(s)"),
        ("POST", "/api/sessions", {"game": "tictactoe", "players": ["human", "god"]}, 400, "unknown agent 'god'"),
        ("POST", "/api/sessions", {"game": "tictactoe", "players": ["human", "perfect"], "seed": -1}, 400, "'seed'"),
        ("POST", "/api/sessions", {"game": "hex", "players": ["human", "perfect"]}, 400, "perfect"),
        ("POST", "/api/sessions", {"game": "tictactoe", "extra": 1}, 400, "unknown field(s) extra"),
        ("POST", "/api/sessions", [1, 2], 400, "must be a JSON object"),
        ("POST", "/api/sessions", "x" * 20_000, 413, "larger than 16384 bytes"),
        ("GET", "/api/sessions/nope", None, 404, "no game 'nope'"),
        ("POST", "/api/sessions/nope/move", {"action": 1}, 404, "no game 'nope'"),
        ("GET", "/api/nothing", None, 404, "no such page"),
        ("DELETE", "/api/meta", None, 405, "does not take that method"),
    ],
)
def test_bad_requests_get_one_json_sentence(
    client: httpx.Client, method: str, path: str, body: Any, status: int, message: str
) -> None:
    response = client.request(method, path, json=body) if body is not None else client.request(method, path)
    assert response.status_code == status
    assert message in response.json()["error"]


def test_bad_bodies_and_hosts(client: httpx.Client) -> None:
    view = new_game(client, game="tictactoe", players=["human", "human"])
    move = f"/api/sessions/{view['id']}/move"
    for body, message in [
        (b"{not json", "not valid JSON"),
        (b"[" * 5000 + b"]" * 5000, "the request body"),  # too deep to read, or not an object
        (json.dumps({"action": "4"}).encode(), "'action' must be an integer"),
        (json.dumps({"action": True}).encode(), "'action' must be an integer"),
        (json.dumps({"action": 1e400}).encode(), "'action' must be an integer"),
        (json.dumps({"action": 10**30}).encode(), "outside the action space"),
        (json.dumps({"action": 1, "move": "a1"}).encode(), 'give the move as {"action"'),
        (json.dumps({"move": 5}).encode(), "'move' must be a move as typed"),
        ("\xff".encode("latin-1"), "not valid JSON"),
    ]:
        response = client.post(move, content=body)
        assert response.status_code == 400 and message in response.json()["error"], (body[:20], response.text)
    url = httpx.URL(str(client.base_url))
    with socket.create_connection((url.host, url.port), timeout=10) as raw:  # a length the body never reaches
        raw.sendall(
            b"POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 99999999\r\n\r\n{}"
        )
        answer = ""
        for _ in range(20):  # headers and body may come in separate packets
            chunk = raw.recv(4096).decode()
            answer += chunk
            if not chunk or answer.endswith("}"):
                break
    assert answer.startswith("HTTP/1.1 413") and "larger than 16384 bytes" in answer
    foreign = client.get("/api/meta", headers={"host": "attacker.example"})
    assert foreign.status_code == 400 and "answers only requests for" in foreign.json()["error"]
