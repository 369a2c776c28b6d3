"""Other web sites cannot drive the server: a change must come as JSON (415 otherwise) and,
when the browser says where it comes from, from the server's own page (403 otherwise).
Over HTTP with Starlette's TestClient, and in Chromium: a page on another port of
127.0.0.1 tries no-cors fetches and form posts and changes nothing, while the real page in
the same browser still plays."""

from __future__ import annotations

import http.server
import re
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from boardgym.web.app import create_app

pytest.importorskip("httpx", reason="the web extra is not installed: pip install 'boardgym[web]'")
from starlette.testclient import TestClient  # noqa: E402

OWN = "http://127.0.0.1:8000"
JSON = {"content-type": "application/json"}
CREATE = b'{"game": "tictactoe", "players": ["human", "human"]}'


def one_sentence(text: str) -> bool:
    return bool(text) and "\n" not in text and not re.search(r"[.;]\s+[A-Z]", text)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(workers=1), base_url=OWN) as http:
        yield http


def games(client: TestClient) -> int:
    return len(client.app.state.store.sessions)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("headers", "status", "phrase"),
    [
        ({"content-type": "text/plain", "origin": "http://evil.example"}, 403, "only from its own page"),
        ({"content-type": "text/plain;charset=UTF-8"}, 415, "Content-Type: application/json"),
        ({"content-type": "application/x-www-form-urlencoded"}, 415, "Content-Type: application/json"),
        ({"content-type": "multipart/form-data; boundary=x"}, 415, "Content-Type: application/json"),
        ({}, 415, "Content-Type: application/json"),
        ({**JSON, "origin": "http://evil.example"}, 403, "not from 'http://evil.example'"),
        ({**JSON, "origin": "http://127.0.0.1:9999"}, 403, "only from its own page at http://127.0.0.1:8000"),
        ({**JSON, "origin": "null"}, 403, "only from its own page"),
        ({**JSON, "sec-fetch-site": "cross-site"}, 403, "not from another site"),
        ({**JSON, "sec-fetch-site": "same-site"}, 403, "not from another site"),
        ({"sec-fetch-site": "same-origin", "content-type": "text/plain"}, 415, "Content-Type: application/json"),
    ],
)
def test_creating_a_game_from_elsewhere_is_refused(
    client: TestClient, headers: dict[str, str], status: int, phrase: str
) -> None:
    before = games(client)
    response = client.post("/api/sessions", content=CREATE, headers=headers)
    assert response.status_code == status, response.text[:200]
    assert phrase in response.json()["error"] and one_sentence(response.json()["error"]), response.text
    assert games(client) == before


def test_the_own_origin_and_clients_without_one_may_change(client: TestClient) -> None:
    before = games(client)
    for headers in (JSON, {**JSON, "origin": OWN}, {**JSON, "origin": OWN, "sec-fetch-site": "same-origin"}):
        assert client.post("/api/sessions", content=CREATE, headers=headers).status_code == 201
    assert games(client) == before + 3
    assert client.get("/api/meta", headers={"origin": "http://evil.example"}).status_code == 200  # reads are fine


def test_moves_undo_and_delete_need_the_same(client: TestClient) -> None:
    view = client.post("/api/sessions", content=CREATE, headers=JSON).json()
    game = f"/api/sessions/{view['id']}"
    evil = {"origin": "http://evil.example"}
    assert (
        client.post(f"{game}/move", content=b'{"action": 4}', headers={"content-type": "text/plain"}).status_code == 415
    )
    assert client.post(f"{game}/move", content=b'{"action": 4}', headers={**JSON, **evil}).status_code == 403
    assert client.post(f"{game}/move", content=b'{"action": 4}', headers=JSON).status_code == 200
    assert client.post(f"{game}/undo").status_code == 415  # no type, no word from a browser
    assert client.post(f"{game}/undo", headers={"sec-fetch-site": "cross-site"}).status_code == 403
    assert client.post(f"{game}/undo", headers={"sec-fetch-site": "same-site", "origin": OWN}).status_code == 403
    assert len(client.get(game).json()["moves"]) == 1
    # The page's own body-less POST: the browser marks it same-origin (and sends its origin).
    assert client.post(f"{game}/undo", headers={"sec-fetch-site": "same-origin", "origin": OWN}).status_code == 200
    assert client.request("DELETE", game, headers=evil).status_code == 403
    assert client.request("DELETE", game).status_code == 415
    assert client.request("DELETE", game, headers={"sec-fetch-site": "same-origin"}).status_code == 200


# -- in the browser ------------------------------------------------------------------------------
ATTACK = """<!doctype html><html><body>
<iframe name="sink1"></iframe><iframe name="sink2"></iframe>
<form id="undo" method="POST" action="{base}/api/sessions/{game}/undo" target="sink1"></form>
<form id="create" method="POST" action="{base}/api/sessions" enctype="text/plain" target="sink2">
<input name='{{"game":"tictactoe","players":["human","' value='human"]}}'></form>
<script>
const base = "{base}";
const body = JSON.stringify({{game: "tictactoe", players: ["human", "human"]}});
const loaded = (name) => new Promise((done) => {{ document.querySelector(`iframe[name=${{name}}]`).onload = done; }});
(async () => {{
  await Promise.allSettled([
    fetch(base + "/api/sessions", {{method: "POST", mode: "no-cors", body}}),
    fetch(base + "/api/sessions", {{method: "POST", mode: "no-cors", body, headers: {{"content-type": "application/json"}}}}),
    fetch(base + "/api/sessions", {{method: "POST", mode: "cors", body, headers: {{"content-type": "application/json"}}}}),
    fetch(base + "/api/sessions/{game}/move", {{method: "POST", mode: "no-cors", body: JSON.stringify({{action: 4}})}}),
    fetch(base + "/api/sessions/{game}/agent", {{method: "POST", mode: "no-cors"}}),
  ]);
  const first = loaded("sink1");
  document.getElementById("undo").submit();
  await first;
  const second = loaded("sink2");
  document.getElementById("create").submit();
  await second;
  document.title = "done";
}})();
</script></body></html>"""


def test_another_origin_in_the_browser_changes_nothing(page: Any, server_factory: Any) -> None:
    with server_factory(workers=1) as server:
        store = server.app.state.store
        with httpx.Client(base_url=server.url, headers=JSON, timeout=60) as api:
            view = api.post("/api/sessions", content=CREATE).json()
            assert api.post(f"/api/sessions/{view['id']}/move", json={"action": 0}).status_code == 200
        before = set(store.sessions)

        html = ATTACK.format(base=server.url, game=view["id"]).encode()

        class Attacker(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/html")
                self.send_header("content-length", str(len(html)))
                self.end_headers()
                self.wfile.write(html)

            def log_message(self, *args: Any) -> None:
                pass

        other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
        thread = threading.Thread(target=other.serve_forever, daemon=True)
        thread.start()
        try:
            page.goto(f"http://127.0.0.1:{other.server_address[1]}/")
            page.wait_for_function("document.title === 'done'", timeout=60_000)
        finally:
            other.shutdown()
            other.server_close()
        assert set(store.sessions) == before, "a page of another origin created a game"
        assert [move.action for move in store.sessions[view["id"]].moves] == [0], "it changed a game"

        # The real page, in the same browser, still plays: a move of the person, one of the agent.
        page.goto(server.url)
        page.wait_for_selector("#game option[value='tictactoe']", state="attached")
        page.select_option("#game", "tictactoe")
        page.select_option("#seat0", "human")
        page.select_option("#seat1", "random")
        page.click("#new-game")
        page.wait_for_selector("#board:not(.waiting) .target")
        assert page.text_content("#message") == ""
        mine = [session for key, session in store.sessions.items() if key not in before]
        assert len(mine) == 1 and not mine[0].client.endswith("/-"), "the page's game has no client cookie"
        with page.expect_response(lambda response: response.url.endswith("/agent")):
            page.locator("#board:not(.waiting) .target").first.click()
        for _ in range(100):
            if len(mine[0].moves) >= 2:
                break
            page.wait_for_timeout(100)
        assert len(mine[0].moves) == 2 and mine[0].moves[1].by_agent, "the page's agent move did not happen"
