"""The smoke test of an installed boardgym: what a user does first, from a folder outside the
repository, with the package as the wheel installed it (``tests/test_release.py`` builds the
wheel, installs it in a clean venv and runs this there; it also runs by hand in any venv)::

    python tests/smoke_installed.py REPOSITORY

It plays a move against ``alphazero:pretrained=true`` for every shipped network, grades a few
positions of the shipped Connect Four set, times the solver on three of Pons's shipped test
positions, renders a picture, starts ``boardgym serve`` and fetches the page and its static
files; each step prints one line with its time. Exit status 0 when every step passed; an
``AssertionError`` (or the error itself) otherwise.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path


def installed(repository: Path) -> None:
    import boardgym

    location = Path(boardgym.__file__).resolve()
    assert repository not in location.parents, f"boardgym came from the repository ({location}), not the wheel"
    assert Path(sys.prefix).resolve() in location.parents, f"boardgym is not installed in {sys.prefix}: {location}"
    assert importlib.metadata.version("boardgym") == boardgym.__version__
    version = subprocess.run([_script("boardgym"), "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.strip() == f"boardgym {boardgym.__version__}", version.stdout


def play_against_pretrained() -> None:
    import gymnasium as gym

    from boardgym import make_agent, make_game
    from boardgym.agents.alphazero.pretrained import shipped_networks

    for name, shipped in shipped_networks().items():
        game = make_game(name, **shipped.params)
        agent = make_agent("alphazero:pretrained=true,simulations=8", game, seed=0)
        state = game.initial_state()
        assert int(agent.act(game, state)) in game.legal_actions(state), name
    env = gym.make("boardgym/TicTacToe-v0", opponent="alphazero:pretrained=true", seat=0)
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(4)
    assert "opponent_action" in info and not terminated and reward == 0.0, info


def grade_positions() -> None:
    from boardgym import make_game
    from boardgym.evaluate.grade import grade, position_set

    game = make_game("connect_four")
    positions = position_set(game)  # the set file shipped in the package
    assert len(positions) > 100, len(positions)
    result = grade(game, "alphazero:pretrained=true,simulations=16", positions=positions[:4], positions_name="smoke")
    assert result.positions == 4 and 0 <= result.mistakes <= 4, result
    timed = subprocess.run(
        [_script("boardgym"), "bench", "solver", "--sets", "End-Easy", "--limit", "3"],
        capture_output=True,
        text=True,
        check=True,
    )  # Pons's test positions, shipped in the package
    assert "| End-Easy | 3/3 |" in timed.stdout and "matched the published" in timed.stdout, timed.stdout


def render_picture() -> None:
    subprocess.run([_script("boardgym"), "render", "connect_four", "--moves", "4 4 3", "-o", "board.png"], check=True)
    assert Path("board.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from boardgym.envs import tictactoe_v0

    env = tictactoe_v0.env(render_mode="rgb_array")
    env.reset(seed=0)
    picture = env.render()
    assert picture.ndim == 3 and picture.shape[2] == 3 and picture.min() < 128 < picture.max()


def serve_page() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    command = [_script("boardgym"), "serve", "--port", str(port), "--workers", "1"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                page = _fetch(base + "/")
                break
            except (urllib.error.URLError, ConnectionError):
                assert server.poll() is None, "boardgym serve ended before it served"
                assert time.monotonic() < deadline, "boardgym serve did not answer within 120 s"
                time.sleep(0.3)
        assert "/static/app.js" in page and "/static/style.css" in page, page[:300]
        for path in ("/static/app.js", "/static/style.css", "/api/meta"):
            assert _fetch(base + path), path
        body = json.dumps({"game": "tictactoe", "players": ["alphazero:pretrained=true", "human"]}).encode()
        created = json.loads(_fetch(base + "/api/sessions", body))
        moved = json.loads(_fetch(f"{base}/api/sessions/{created['id']}/agent", b"{}"))
        assert len(moved["moves"]) == 1, moved
    finally:
        server.send_signal(signal.SIGINT)
        output, _ = server.communicate(timeout=60)
    assert "Traceback" not in output, output


def _fetch(url: str, body: bytes | None = None) -> str:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"} if body else {})
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status in (200, 201), (url, response.status)
        return str(response.read().decode())


def _script(name: str) -> str:
    """A console script of this environment (the venv's ``bin`` folder)."""
    folder = Path(sys.executable).parent
    return str(folder / (name + (".exe" if os.name == "nt" else "")))


def main(argv: list[str]) -> int:
    repository = Path(argv[1]).resolve()
    steps: list[tuple[str, Callable[[], None]]] = [
        ("installed", lambda: installed(repository)),
        ("play", play_against_pretrained),
        ("grade", grade_positions),
        ("render", render_picture),
        ("serve", serve_page),
    ]
    for name, step in steps:
        started = time.perf_counter()
        step()
        print(f"smoke {name}: ok in {time.perf_counter() - started:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
