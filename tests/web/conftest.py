"""A live ``boardgym serve`` on 127.0.0.1 (a free port) for the web tests, and a headless
Chromium for the browser tests (skipped, with the reason shown, where either is missing)."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

uvicorn = pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install 'boardgym[web]'")

from boardgym.web.app import create_app, proxy_settings  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
BROWSER_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


class LiveServer:
    """uvicorn serving the app in a thread, on a socket bound to 127.0.0.1 before it starts."""

    def __init__(self, trusted_proxies: tuple[str, ...] = (), **options: Any) -> None:
        self.app = create_app(**options)
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        # as `boardgym serve` runs it: X-Forwarded-For is believed only from a --trusted-proxy
        config = uvicorn.Config(self.app, log_level="warning", lifespan="on", **proxy_settings(trusted_proxies))
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.socket.close()


@pytest.fixture(scope="session")
def server_factory() -> type[LiveServer]:
    """``with server_factory(**create_app_options) as server:`` a server of one's own."""
    return LiveServer


@pytest.fixture(scope="session")
def live_server() -> Iterator[LiveServer]:
    # one client (no cookie) makes most of these tests' games, and every visitor comes from
    # 127.0.0.1: the share of that client and of that address is the whole server
    with LiveServer(
        workers=2,
        move_seconds=20.0,
        max_sessions=120,
        client_games=120,
        address_games=120,
        address_running=2,
        address_waiting=120,
    ) as server:
        yield server


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    if not shutil.which(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium (the browser tests need it)")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    # bypass_csp: the page forbids eval, which wait_for_function needs
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, bypass_csp=True)
    page = context.new_page()
    yield page
    context.close()
