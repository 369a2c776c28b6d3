"""``boardgym serve`` as a command: it starts on 127.0.0.1, serves, and stops cleanly on Ctrl-C."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest

pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install 'boardgym[web]'")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_serve_runs_until_interrupted() -> None:
    port = free_port()
    command = [sys.executable, "-m", "boardgym.cli", "serve", "--port", str(port), "--workers", "1"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/api/meta", timeout=5)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        assert response.status_code == 200 and response.json()["limits"]["move_seconds"] == 10.0
        created = httpx.post(
            f"http://127.0.0.1:{port}/api/sessions", json={"game": "nim", "players": ["random", "human"]}, timeout=30
        )
        assert created.status_code == 201
        assert httpx.post(
            f"http://127.0.0.1:{port}/api/sessions/{created.json()['id']}/agent",
            headers={"content-type": "application/json"},
            timeout=30,
        ).is_success
    finally:
        server.send_signal(signal.SIGINT)
        output, _ = server.communicate(timeout=30)
    assert f"play at http://localhost:{port}/" in output
    assert "Traceback" not in output and server.returncode in (0, 130)
