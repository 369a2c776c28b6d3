"""A fuzz of every endpoint (hypothesis): bad input of every shape gets a 4xx with a JSON
``{"error": ...}``, never a 5xx; requests only to the test server on 127.0.0.1."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardgym.games import GAMES

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)
PARAM_NAMES = ["size", "swap", "heaps", "misere", "k", "max_moves", "problem_size", "num_sets", "density", "seed"]
PARAM_NAMES += ["sets", "instance", "genome_length"]
GAME_NAMES = st.sampled_from(list(GAMES)) | st.text(max_size=12)
SPECS = st.sampled_from(["human", "random", "mcts:simulations=2", "minimax:depth=1", "perfect", "greedy", "@x"])
PLAYERS = st.lists(SPECS | st.text(max_size=20) | JSON, max_size=3) | JSON
PARAMS = (
    st.dictionaries(
        st.sampled_from(PARAM_NAMES) | st.text(max_size=8),
        st.integers(-5, 30) | st.floats() | st.text(max_size=20) | st.booleans() | st.lists(st.integers(-2, 40)),
        max_size=4,
    )
    | JSON
)
CREATE = st.fixed_dictionaries(
    {},
    optional={"game": GAME_NAMES | JSON, "params": PARAMS, "players": PLAYERS, "seed": JSON | st.integers()},
)
MOVE = st.fixed_dictionaries({}, optional={"action": st.integers() | JSON, "move": st.text(max_size=50) | JSON}) | JSON
FUZZ = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def http(live_server: Any) -> httpx.Client:
    with httpx.Client(base_url=live_server.url, timeout=60, headers={"content-type": "application/json"}) as client:
        yield client


def send(http: httpx.Client, method: str, url: str, body: Any) -> httpx.Response:
    """``body`` as JSON, NaN and Infinity included (Python's JSON writes and reads them)."""
    return http.request(method, url, content=json.dumps(body), headers={"content-type": "application/json"})


def check(response: httpx.Response) -> None:
    assert response.status_code < 500, f"{response.request.method} {response.request.url}: {response.text}"
    if response.status_code >= 400:
        assert isinstance(response.json()["error"], str) and response.json()["error"]


@FUZZ
@given(body=CREATE | JSON)
def test_creating_games(http: httpx.Client, body: Any) -> None:
    response = send(http, "POST", "/api/sessions", body)
    check(response)
    if response.status_code == 201:
        http.delete(f"/api/sessions/{response.json()['id']}")


@FUZZ
@given(body=st.binary(max_size=300))
def test_raw_bodies(http: httpx.Client, body: bytes) -> None:
    check(http.post("/api/sessions", content=body))


@pytest.fixture(scope="module")
def session(http: httpx.Client) -> str:
    response = http.post("/api/sessions", json={"game": "quarto", "players": ["human", "human"]})
    assert response.status_code == 201
    return response.json()["id"]


@FUZZ
@given(body=MOVE)
def test_moves(http: httpx.Client, session: str, body: Any) -> None:
    response = send(http, "POST", f"/api/sessions/{session}/move", body)
    check(response)
    if response.status_code == 200 and len(response.json()["moves"]) > 20:  # keep the game going
        check(http.post(f"/api/sessions/{session}/undo"))


@FUZZ
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"]),
    path=st.sampled_from(["/api/sessions/", "/api/sessions/{}/", "/api/", "/static/", "/"]),
    tail=st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126, exclude_characters="/?#%"), max_size=20),
    action=st.sampled_from(["", "/move", "/agent", "/undo", "/record"]),
)
def test_paths_and_methods(http: httpx.Client, session: str, method: str, path: str, tail: str, action: str) -> None:
    url = path.format(session) + tail + action
    check(send(http, method, url, {}))
