"""No worker outlives its parent (``boardgym.procs``): every process pool of the package, run in
a parent process of its own, is ended every way a parent ends (a normal end, an exception,
Ctrl-C, SIGTERM to the parent, ``kill -9`` of the parent), and each worker the pool had is
gone soon after."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from boardgym.procs import WorkerPool, child_pids, process_alive

WORKERS = 2
GONE_WITHIN = 30.0  # seconds: a bounded wait, not a timing claim
READY_WITHIN = 120.0

# The parent: starts one pool (argv[1]) on work that lasts (a few seconds for the normal end),
# prints the ids of its child processes once the workers run, and then ends as argv[2] says.
PARENT = r"""
import json, os, signal, sys, threading, time
from pathlib import Path
from boardgym.procs import child_pids

pool, mode = sys.argv[1], sys.argv[2]
long = mode != "normal"
ready = threading.Event()


def command(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:  # ended meanwhile
        return b""


def workers_started():
    kids = child_pids()
    named = [pid for pid in kids if command(pid) and b"\0-c\0from multiprocessing.resource_tracker" not in command(pid)]
    return kids if len(named) >= 2 else None


def announce():
    while (kids := workers_started()) is None:
        time.sleep(0.05)
    print(json.dumps(kids), flush=True)
    ready.set()


def fail(signum, frame):
    raise RuntimeError("an error in the parent")


signal.signal(signal.SIGUSR1, fail)
threading.Thread(target=announce, daemon=True).start()


def wait_ready():
    assert ready.wait(120), "the workers never started"


if pool == "selfplay":
    import torch
    from boardgym.agents.alphazero.network import build_network
    from boardgym.games import make_game
    from boardgym.train.alphazero.selfplay import SelfPlaySettings
    from boardgym.train.alphazero.workers import SelfPlayPool

    game = make_game("connect_four")
    network = build_network(game, blocks=1, channels=4, value_hidden=4).eval()
    workers = SelfPlayPool(2, game, "cpu", False)
    try:
        settings = SelfPlaySettings(simulations=400 if long else 2)
        workers.play_seeded(network, 10_000 if long else 2, parallel=2, settings=settings, seed=(0, 1))
        wait_ready()
    finally:
        workers.close()
elif pool == "tournament":
    from boardgym.evaluate.backends import play_local
    from boardgym.evaluate.schedule import Tournament, TournamentSettings

    specs = ("mcts:simulations=3000", "random") if long else ("random", "random")
    settings = TournamentSettings("connect_four", specs, 400, workers=2, seed=0)
    games = play_local(settings, Tournament("connect_four", {}, specs, 400, 0).schedule())
    try:
        next(games)
        wait_ready()
        for _ in games:
            pass
    finally:
        games.close()
elif pool == "solver":
    import numpy as np
    from boardgym.games import make_game
    from boardgym.train.alphazero.solved import SolverTargets, varied_positions

    labeller = SolverTargets(make_game("connect_four"), min_ply=1, limit=600.0 if long else 1e-3, workers=2)
    try:
        states = varied_positions(200 if long else 40, range(4, 8) if long else range(20, 24), seed=0)
        labeller.positions([(state, np.full(7, 1 / 7, dtype=np.float32), 0.0) for state in states])
        wait_ready()
    finally:
        labeller.close()
elif pool == "strength":
    from boardgym.bench.search_strength import main

    agent = "mcts:simulations=3000" if long else "mcts:simulations=20"
    main(["connect_four", agent, "random", "--games", "2000" if long else "40", "--workers", "2"])
elif pool == "train":
    from boardgym.cli import main

    root = sys.argv[3]
    sys.exit(main([
        "train", "alphazero", "--game", "connect_four", "--workers", "2", "--root", root, "--no-progress",
        "--iterations", "1000", "--games-per-iteration", "64", "--simulations", "200", "--blocks", "1",
        "--channels", "4", "--value-hidden", "4", "--eval-every", "0",
    ]))
"""

POOLS = ["selfplay", "tournament", "solver", "strength"]
ENDINGS = ["normal", "error", "interrupt", "sigterm", "kill"]


def sigint_as_in_a_terminal() -> None:
    """Ctrl-C's default disposition in the child, whatever the caller's: a suite started as a
    background job (``&``, nohup) ignores SIGINT, and children inherit that, so the program
    would never see the Ctrl-C this test sends (Python installs its KeyboardInterrupt handler
    only where SIGINT is not ignored at start)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_parent(pool: str, mode: str, tmp_path: Path) -> tuple[subprocess.Popen[str], list[int]]:
    """The parent process running ``pool``, and the ids of its children once its workers run."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path.cwd()), os.environ.get("PYTHONPATH", "")])}
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, pool, mode, str(tmp_path / "runs")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,  # its own process group, as a command typed in a terminal
        preexec_fn=sigint_as_in_a_terminal,
    )
    assert parent.stdout is not None
    line = parent.stdout.readline()
    if not line:
        parent.wait(READY_WITHIN)
        pytest.fail(f"the parent ended before its workers ran: {parent.stderr.read() if parent.stderr else ''}")
    return parent, json.loads(line)


def assert_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + GONE_WITHIN
    while time.monotonic() < deadline and any(process_alive(pid) for pid in pids):
        time.sleep(0.1)
    left = [pid for pid in pids if process_alive(pid)]
    for pid in left:  # not to leave them running after a failure
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes {left} outlived their parent by {GONE_WITHIN:.0f} s"


def end_parent(parent: subprocess.Popen[str], mode: str) -> int | None:
    if mode == "error":
        parent.send_signal(signal.SIGUSR1)
    elif mode == "interrupt":
        os.killpg(parent.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
    elif mode == "sigterm":
        parent.send_signal(signal.SIGTERM)
    elif mode == "kill":
        parent.send_signal(signal.SIGKILL)
    try:
        return parent.wait(READY_WITHIN)
    except subprocess.TimeoutExpired:
        parent.kill()
        parent.wait()
        return None  # it did not end


@pytest.mark.parametrize("mode", ENDINGS)
@pytest.mark.parametrize("pool", POOLS)
def test_no_worker_outlives_its_parent(pool: str, mode: str, tmp_path: Path) -> None:
    parent, pids = start_parent(pool, mode, tmp_path)
    assert len(pids) >= WORKERS
    code = end_parent(parent, mode)
    assert_gone(pids)  # first: a worker left running would hold the parent's stderr open
    err = parent.stderr.read() if parent.stderr else ""
    expected = {"normal": 0, "error": 1, "interrupt": 1, "sigterm": 143, "kill": -signal.SIGKILL}[mode]
    if mode == "interrupt":
        assert code != 0 and "KeyboardInterrupt" in err, err
    else:
        assert code == expected, err


@pytest.mark.parametrize("mode", ["sigterm", "kill"])
def test_a_training_run_ended_by_a_signal_leaves_no_worker(mode: str, tmp_path: Path) -> None:
    """``boardgym train alphazero --workers 2`` stopped by SIGTERM (a clean exit, status 143)
    or ``kill -9``: its self-play workers and the resource tracker end too."""
    parent, pids = start_parent("train", mode, tmp_path)
    code = end_parent(parent, mode)
    assert_gone(pids)
    err = parent.stderr.read() if parent.stderr else ""
    assert code == (143 if mode == "sigterm" else -signal.SIGKILL), err
    assert "Traceback" not in err, err


def _sleep(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def test_a_pool_left_by_an_exception_stops_its_busy_workers() -> None:
    """In this process: leaving the ``with`` block by an error stops workers in the middle of
    their jobs, without waiting for the jobs; a normal end joins them."""
    with WorkerPool(WORKERS, start_method="spawn") as pool:
        assert pool.submit(_sleep, 0).result(timeout=120) in pool.pids()
        pids = pool.pids()
    assert pids and not [pid for pid in pids if process_alive(pid)]
    with pytest.raises(RuntimeError), WorkerPool(WORKERS, start_method="spawn") as pool:
        jobs = [pool.submit(_sleep, 600) for _ in range(WORKERS)]
        deadline = time.monotonic() + 120
        while len(pool.pids()) < WORKERS and time.monotonic() < deadline:
            time.sleep(0.05)
        pids = pool.pids()
        raise RuntimeError("stop")
    assert_gone(pids)
    assert all(job.done() for job in jobs)
    assert not [pid for pid in child_pids() if pid in pids]
