"""One visitor cannot starve the others: while one client floods the server with new games
and with searches that run to the per-move cap (from several threads at once), another
client plays a whole game against an agent, and each of its agent moves comes back well
within one flood search's time (the bound below: the per-move cap). Every refusal the
flood gets is a 429 of one sentence naming the limit. A search that outgrows a worker's
memory cap ends that worker, which is replaced, with one sentence for the client."""

from __future__ import annotations

import asyncio
import re
import secrets
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from boardgym import make_game
from boardgym.web.pool import AgentPool

JSON = {"content-type": "application/json"}
CAP = 6.0  # seconds: each flood search runs this long; the other client's moves must not wait for one
LONG_SEARCH = "mcts:simulations=1000000000"
FLOOD_THREADS = 6
AGENT_MOVES = 12


def one_sentence(text: str) -> bool:
    return bool(text) and "\n" not in text and not re.search(r"[.;]\s+[A-Z]", text)


def visitor(url: str, address: str = "127.0.0.1") -> httpx.Client:
    """A browser of its own, connecting from ``address`` (any of 127/8 reaches the server on
    Linux): the page's first load gives it its cookie."""
    transport = httpx.HTTPTransport(local_address=address)
    http = httpx.Client(base_url=url, timeout=120, headers=JSON, transport=transport)
    assert http.get("/").status_code == 200 and "boardgym_client" in http.cookies
    return http


class Flood:
    """One address's client sending from many threads: with ``cookies`` "one" it keeps the
    cookie the page gave it; "rotating" loads the page again before every request for a fresh
    signed cookie; "forged" sends a made-up cookie every time."""

    def __init__(self, url: str, cookies: str) -> None:
        self.url, self.cookies = url, cookies
        self.shared = visitor(url)
        self.local = threading.local()

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        if self.cookies == "one":
            return self.shared.post(path, **kwargs)
        http = getattr(self.local, "http", None)
        if http is None:
            http = self.local.http = httpx.Client(base_url=self.url, timeout=120, headers=JSON)
        http.cookies.clear()
        if self.cookies == "rotating":
            assert http.get("/").status_code == 200
        else:
            http.cookies.set("boardgym_client", secrets.token_urlsafe(16))
        return http.post(path, **kwargs)


def flood_while_another_plays(server: Any, cookies: str, other_address: str) -> tuple[list, list, list]:
    """One address floods the server with new games and with searches that run to the cap
    (from several threads, with its ``cookies``); meanwhile another visitor, at
    ``other_address``, plays whole games against an agent. Returns the other visitor's agent
    move times and game creation times, and the flood's refusals."""
    flood = Flood(server.url, cookies)
    refusals: list[tuple[int, str]] = []
    lock = threading.Lock()
    stop = threading.Event()
    searches = []
    for _ in range(FLOOD_THREADS):  # games whose agent thinks until the cap
        response = flood.post("/api/sessions", json={"game": "connect_four", "players": [LONG_SEARCH, "human"]})
        assert response.status_code == 201, response.text
        searches.append(response.json()["id"])

    def search(game_id: str) -> None:
        while not stop.is_set():
            response = flood.post(f"/api/sessions/{game_id}/agent")
            if response.status_code in (409, 429):  # 409: another thread's request on this game
                with lock:
                    refusals.append((response.status_code, response.json()["error"]))
                time.sleep(0.05)
            else:
                assert response.status_code == 422, response.text  # stopped at the cap

    def create() -> None:
        while not stop.is_set():
            response = flood.post("/api/sessions", json={"game": "tictactoe", "players": ["human", "human"]})
            if response.status_code != 201:
                with lock:
                    refusals.append((response.status_code, response.json()["error"]))
                time.sleep(0.05)

    with ThreadPoolExecutor(FLOOD_THREADS + 1) as threads:
        running = [threads.submit(search, game_id) for game_id in searches]
        for _ in range(300):  # the flood's games reach their share before the other visitor comes
            response = flood.post("/api/sessions", json={"game": "tictactoe", "players": ["human", "human"]})
            if response.status_code == 429:
                break
        running.append(threads.submit(create))
        time.sleep(CAP / 2)  # the flood is under way: a worker has had a flood search

        try:  # a failure below must still stop the flood's threads, or the pool's exit waits for ever
            player = visitor(server.url, other_address)
            waits: list[float] = []
            creates: list[float] = []
            while len(waits) < AGENT_MOVES:  # whole games, the agent first, the person's first legal move
                started = time.perf_counter()
                created = player.post(
                    "/api/sessions", json={"game": "tictactoe", "players": ["mcts:simulations=200", "human"]}
                )
                creates.append(time.perf_counter() - started)
                assert created.status_code == 201, created.text  # a new visitor can always create a game
                view = created.json()
                while not view["finished"]:
                    if view["human_to_move"]:
                        action = view["legal"][0]["action"]
                        response = player.post(f"/api/sessions/{view['id']}/move", json={"action": action})
                    else:
                        started = time.perf_counter()
                        response = player.post(f"/api/sessions/{view['id']}/agent")
                        waits.append(time.perf_counter() - started)
                    assert response.status_code == 200, response.text
                    view = response.json()
                assert player.delete(f"/api/sessions/{view['id']}").status_code == 200
        finally:
            stop.set()
        for future in running:
            future.result()
    player.close()
    return waits, creates, refusals


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def report(cookies: str, waits: list[float], creates: list[float], refusals: list) -> None:
    print(
        f"\n{cookies} cookie(s): the other client's agent moves: {len(waits)}, median "
        f"{statistics.median(waits):.3f} s, p95 {p95(waits):.3f} s, max {max(waits):.3f} s; its new games: max "
        f"{max(creates):.3f} s; flood refusals {len(refusals)}"
    )


def test_a_flooding_client_does_not_starve_another(server_factory: Any) -> None:
    with server_factory(workers=2, move_seconds=CAP, max_sessions=200, client_games=20) as server:
        waits, creates, refusals = flood_while_another_plays(server, "one", "127.0.0.2")
    report("one", waits, creates, refusals)
    assert p95(waits) < CAP, f"the other client's agent moves waited for the flood: {waits}"
    assert max(creates) < 2 * CAP
    kinds = {status for status, _ in refusals}
    assert kinds <= {409, 429} and 429 in kinds, refusals[:5]
    messages = {text for _, text in refusals}
    assert all(one_sentence(text) for text in messages), messages
    assert any("20 games open" in text for text in messages), messages  # the games' share was reached
    assert any("thinking" in text for text in messages), messages  # and the moves' share


@pytest.mark.slow  # about 35 s each on 2 cores; the address's shares have fast tests in test_pool.py and below
@pytest.mark.parametrize("cookies", ["rotating", "forged"])
def test_a_flood_rotating_its_cookies_does_not_take_the_server(server_factory: Any, cookies: str) -> None:
    """A fresh cookie for every request made a fresh visitor: 210 creates filled the 200 games
    in a second, and six cookies of long searches delayed a new visitor's game by 33 s. Now
    the flood's address has its share, whatever its cookies."""
    options = {"workers": 2, "move_seconds": CAP, "max_sessions": 200, "client_games": 20, "address_games": 50}
    options["address_waiting"] = 3  # the six searches need 1 thinking + 5 waiting: some are refused
    with server_factory(**options) as server:
        waits, creates, refusals = flood_while_another_plays(server, cookies, "127.0.0.3")
        held = [s for s in server.app.state.store.sessions.values() if s.address == "127.0.0.1"]
        assert len(held) <= 50
    report(cookies, waits, creates, refusals)
    assert p95(waits) < CAP, f"the other client's agent moves waited for the flood: {waits}"
    assert max(creates) < 2 * CAP
    messages = {text for status, text in refusals if status == 429}
    assert all(one_sentence(text) for text in messages), messages
    if cookies == "rotating":
        assert any("your network address holds 50 games" in text for text in messages), messages
        assert any("your network address already has" in text for text in messages), messages
    else:  # a cookie the server did not sign is no cookie: the visitor's own share holds
        assert any("20 games open" in text for text in messages), messages


def test_a_cookie_the_server_did_not_sign_is_no_new_visitor(server_factory: Any) -> None:
    with server_factory(workers=1, max_sessions=50, client_games=2, address_games=50) as server:
        statuses = []
        for _ in range(5):
            with httpx.Client(base_url=server.url, timeout=60, headers=JSON) as http:
                http.cookies.set("boardgym_client", secrets.token_urlsafe(16))
                response = http.post("/api/sessions", json={"game": "tictactoe", "players": ["human", "human"]})
                statuses.append(response.status_code)
        assert statuses == [201, 201, 429, 429, 429], statuses
        signed = visitor(server.url)  # a cookie the page gave: a visitor of its own
        for _ in range(2):
            created = signed.post("/api/sessions", json={"game": "tictactoe", "players": ["human", "human"]})
            assert created.status_code == 201
        signed.close()


def test_the_address_is_the_connections_unless_a_proxy_is_trusted(server_factory: Any) -> None:
    """X-Forwarded-For is not believed from 127.0.0.1 by default (uvicorn's own default would)."""
    with server_factory(workers=1, max_sessions=50, client_games=50, address_games=2) as server:
        statuses = []
        for n in range(4):
            with httpx.Client(base_url=server.url, timeout=60, headers=JSON) as http:
                http.get("/")
                response = http.post(
                    "/api/sessions",
                    json={"game": "tictactoe", "players": ["human", "human"]},
                    headers={"x-forwarded-for": f"10.0.0.{n}"},
                )
                statuses.append(response.status_code)
        assert statuses == [201, 201, 429, 429], statuses
    with server_factory(trusted_proxies=("127.0.0.1",), workers=1, max_sessions=50, address_games=1) as server:
        for n in range(3):
            with httpx.Client(base_url=server.url, timeout=60, headers=JSON) as http:
                response = http.post(
                    "/api/sessions",
                    json={"game": "tictactoe", "players": ["human", "human"]},
                    headers={"x-forwarded-for": f"10.0.0.{n}"},
                )
                assert response.status_code == 201, response.text
        assert {s.address for s in server.app.state.store.sessions.values()} == {"10.0.0.0", "10.0.0.1", "10.0.0.2"}


def test_a_search_past_the_memory_cap_ends_its_worker_which_is_replaced() -> None:
    connect_four = make_game("connect_four")

    async def scenario() -> tuple[str, int]:
        pool = AgentPool(workers=1, move_seconds=120.0, memory_mb=400)
        await pool.start()
        try:
            with pytest.raises(Exception) as error:
                await pool.act("s:0", "connect_four", {}, LONG_SEARCH, 0, connect_four.initial_state())
            move = await pool.act("s:1", "tictactoe", {}, "random", 0, make_game("tictactoe").initial_state())
            return str(error.value), move.action
        finally:
            pool.close()

    with ThreadPoolExecutor(1) as thread:  # an event loop of its own (playwright's is in this thread)
        message, action = thread.submit(asyncio.run, scenario()).result()
    assert "400 MB" in message or "out of memory" in message, message
    assert one_sentence(message) and action in range(9)


def test_waiting_moves_are_served_client_by_client() -> None:
    """One worker; client a asks for three moves, then client b for one: b's comes second,
    not after all of a's, and a fourth waiting move of a past its share is refused."""
    tictactoe = make_game("tictactoe")
    start = tictactoe.initial_state()

    async def scenario() -> tuple[list[str], str]:
        pool = AgentPool(workers=1, move_seconds=60.0, client_waiting=2)
        await pool.start()
        try:
            await pool.act("warm", "tictactoe", {}, "random", 0, start)  # the worker has started
            done: list[str] = []

            async def move(name: str, client: str) -> None:
                await pool.act(name, "tictactoe", {}, "mcts:simulations=300", 0, start, client=client)
                done.append(name)

            tasks = [asyncio.create_task(move(name, name[0])) for name in ("a1", "a2", "a3", "b1")]
            await asyncio.sleep(0)  # all four are queued, a1 on the worker
            with pytest.raises(Exception) as refused:
                await pool.act("a4", "tictactoe", {}, "random", 0, start, client="a")
            await asyncio.gather(*tasks)
            return done, str(refused.value)
        finally:
            pool.close()

    with ThreadPoolExecutor(1) as thread:
        done, refusal = thread.submit(asyncio.run, scenario()).result()
    assert done == ["a1", "b1", "a2", "a3"], done
    assert "1 agent move(s) thinking and 2 waiting" in refusal and one_sentence(refusal), refusal
