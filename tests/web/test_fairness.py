"""One visitor cannot starve the others: while one client floods the server with new games
and with searches that run to the per-move cap (from several threads at once), another
client plays a whole game against an agent, and each of its agent moves comes back well
within one flood search's time (the bound below: the per-move cap). Every refusal the
flood gets is a 429 of one sentence naming the limit. A search that outgrows a worker's
memory cap ends that worker, which is replaced, with one sentence for the client."""

from __future__ import annotations

import asyncio
import re
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


def visitor(url: str) -> httpx.Client:
    """A browser of its own: the page's first load gives it its cookie."""
    http = httpx.Client(base_url=url, timeout=120, headers=JSON)
    assert http.get("/").status_code == 200 and "boardgym_client" in http.cookies
    return http


def test_a_flooding_client_does_not_starve_another(server_factory: Any) -> None:
    with server_factory(workers=2, move_seconds=CAP, max_sessions=200, client_games=20) as server:
        flood = visitor(server.url)
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
                if response.status_code == 429:
                    with lock:
                        refusals.append((429, response.json()["error"]))
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
            running.append(threads.submit(create))
            time.sleep(CAP / 2)  # the flood is under way: both workers have had a flood search

            player = visitor(server.url)
            waits: list[float] = []
            creates: list[float] = []
            while len(waits) < AGENT_MOVES:  # whole games, the agent first, the person's first legal move
                started = time.perf_counter()
                created = player.post(
                    "/api/sessions", json={"game": "tictactoe", "players": ["mcts:simulations=200", "human"]}
                )
                creates.append(time.perf_counter() - started)
                assert created.status_code == 201, created.text
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
            stop.set()
            for future in running:
                future.result()
        flood.close()
        player.close()

    waits.sort()
    p95 = waits[min(len(waits) - 1, round(0.95 * (len(waits) - 1)))]
    print(
        f"\nthe other client's agent moves: {len(waits)}, median {statistics.median(waits):.3f} s, "
        f"p95 {p95:.3f} s, max {waits[-1]:.3f} s; its new games: max {max(creates):.3f} s; "
        f"flood refusals {len(refusals)}"
    )
    assert p95 < CAP, f"the other client's agent moves waited for the flood: {waits}"
    assert max(creates) < 2 * CAP
    kinds = {status for status, _ in refusals}
    assert kinds == {429}, refusals[:5]
    messages = {text for _, text in refusals}
    assert all(one_sentence(text) for text in messages), messages
    assert any("20 games open" in text for text in messages), messages  # the games' share was reached
    assert any("thinking" in text for text in messages), messages  # and the moves' share


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
