"""Load: 50 games at once through the HTTP API on 127.0.0.1, each played to its end (a person's
seat choosing random legal moves, an agent in the other), with no error. Bounded: 50 sessions,
at most 200 requests each, one server on this machine only."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

SESSIONS = 50
MAX_REQUESTS = 200
GAMES = [
    ("tictactoe", {}, "random"),
    ("connect_four", {}, "random"),
    ("nim", {"heaps": "2,3,4"}, "nimsum"),
    ("rastros", {}, "random"),
    ("hex", {"size": 4}, "random"),
]


def play_one(url: str, number: int) -> tuple[str, int]:
    game, params, agent = GAMES[number % len(GAMES)]
    rng = random.Random(number)
    players = ["human", agent] if number % 2 == 0 else [agent, "human"]
    with httpx.Client(base_url=url, timeout=60, headers={"content-type": "application/json"}) as http:
        assert http.get("/").status_code == 200  # a visitor of its own: the page sets its cookie
        assert "boardgym_client" in http.cookies
        response = http.post("/api/sessions", json={"game": game, "params": params, "players": players, "seed": number})
        assert response.status_code == 201, response.text
        view = response.json()
        for _ in range(MAX_REQUESTS):
            if view["finished"]:
                assert http.get(f"/api/sessions/{view['id']}/record").status_code == 200
                assert http.delete(f"/api/sessions/{view['id']}").status_code == 200
                return view["result"], len(view["moves"])
            if view["human_to_move"]:
                move = rng.choice(view["legal"])["action"]
                response = http.post(f"/api/sessions/{view['id']}/move", json={"action": move})
            else:
                response = http.post(f"/api/sessions/{view['id']}/agent")
            assert response.status_code == 200, f"{game} session {number}: {response.status_code} {response.text}"
            view = response.json()
    raise AssertionError(f"{game} session {number} did not finish within {MAX_REQUESTS} requests")


def test_fifty_concurrent_games_finish_without_an_error(live_server: Any) -> None:
    assert live_server.url.startswith("http://127.0.0.1:")
    with ThreadPoolExecutor(SESSIONS) as pool:
        results = list(pool.map(lambda n: play_one(live_server.url, n), range(SESSIONS)))
    assert len(results) == SESSIONS
    assert all(result in ("you win", "you lose", "draw") and moves > 0 for result, moves in results)
