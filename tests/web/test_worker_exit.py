"""The agent workers end with the server, whichever way it ends: Ctrl-C, SIGTERM, SIGKILL
(the workers notice their parent is gone, even in the middle of a search), an exception
or Ctrl-C in a program that holds the pool itself. Each case lists the server's child
processes before it ends and checks that none is left after a bounded wait."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install 'boardgym[web]'")

from boardgym.procs import child_pids, process_alive  # noqa: E402

JSON = {"content-type": "application/json"}
LONG_SEARCH = "mcts:simulations=1000000000"  # thinks until the cap, far past the test's wait
ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_gone(pids: set[int], seconds: float = 30.0) -> set[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = {pid for pid in pids if process_alive(pid)}
        if not left:
            return left
        time.sleep(0.2)
    return {pid for pid in pids if process_alive(pid)}


def sigint_as_in_a_terminal() -> None:
    """Ctrl-C's default disposition in the child, whatever the caller's (a suite started as a
    background job ignores SIGINT, and children inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads child processes from /proc (Linux)")
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["ctrl-c", "sigterm", "kill-9"])
def test_serve_leaves_no_worker_behind(how: signal.Signals) -> None:
    port = free_port()
    command = [sys.executable, "-m", "boardgym.cli", "serve", "--port", str(port), "--workers", "2"]
    command += ["--move-seconds", "120"]
    server = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=environment(), preexec_fn=sigint_as_in_a_terminal
    )
    url = f"http://127.0.0.1:{port}"
    searching = None
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{url}/api/meta", timeout=5)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        created = httpx.post(
            f"{url}/api/sessions", json={"game": "connect_four", "players": [LONG_SEARCH, "human"]}, timeout=60
        )
        assert created.status_code == 201, created.text

        def search() -> None:  # a worker busy with a search when the server ends
            try:
                httpx.post(f"{url}/api/sessions/{created.json()['id']}/agent", headers=JSON, timeout=150)
            except httpx.TransportError:
                pass

        searching = threading.Thread(target=search, daemon=True)
        searching.start()
        time.sleep(1.0)
        workers = set(child_pids(server.pid))
        assert len(workers) >= 2, workers
        server.send_signal(how)
        server.wait(timeout=60)
        assert not wait_gone(workers), f"worker processes left after {how.name}"
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        if searching is not None:
            searching.join(timeout=10)


POOL_PROGRAM = """
import asyncio, os, sys, time
from boardgym.web.pool import AgentPool

async def main():
    pool = AgentPool(workers=2, move_seconds=60)
    await pool.start()
    await pool.act("k", "tictactoe", {}, "random", 0, None)
    print(" ".join(str(pid) for pid in pool.pids()), flush=True)
    if sys.argv[1] == "raise":
        raise RuntimeError("the program holding the pool fails")
    await asyncio.sleep(60)  # Ctrl-C arrives here

asyncio.run(main())
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads child processes from /proc (Linux)")
@pytest.mark.parametrize("how", ["raise", "ctrl-c"])
def test_a_program_holding_the_pool_leaves_no_worker_behind(how: str) -> None:
    program = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(POOL_PROGRAM), how],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(),
        preexec_fn=sigint_as_in_a_terminal,
    )
    try:
        assert program.stdout is not None
        line = program.stdout.readline()
        workers = {int(pid) for pid in line.split()}
        assert len(workers) == 2, (line, program.stderr.read() if program.poll() is not None else "")
        if how == "ctrl-c":
            program.send_signal(signal.SIGINT)
        program.wait(timeout=60)
        assert program.returncode != 0
        assert not wait_gone(workers), f"worker processes left after {how}"
    finally:
        if program.poll() is None:
            program.kill()
            program.wait()
