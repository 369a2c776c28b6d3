"""Agents think in worker processes, so that a long search never holds up the server, and a
move that runs past the time cap is stopped by ending its process.

``AgentPool(workers, move_seconds)``: ``await pool.act(key, game, spec, seed, state)`` plays
one move of the agent ``key`` (a session and seat) and returns its action, thinking time and
``last_info``. Each worker keeps the agents it has built (by key, the most recent
``AGENTS_PER_WORKER``), and a key goes back to the worker that served it last when that one
is free, so a search that reuses its tree keeps it. A worker that runs past the cap is
killed and replaced; the agent is rebuilt on its next move. Only the move counts against
the cap: a worker's start-up and the building of an agent (loading a network) do not.

Protocol: the server sends ``("act", key, game, params, spec, seed, state)``; the worker
answers ``("built",)`` once the agent exists (or ``("error", sentence)``), then
``("ok", action, seconds, info)`` or ``("error", sentence)`` for the move.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time
from collections import OrderedDict
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

import anyio

from boardgym.types import BoardgymError

AGENTS_PER_WORKER = 64
STARTUP_SECONDS = 120


class AgentTimeout(BoardgymError):
    """The agent did not move within the cap (HTTP 422: the spec asks for more than the server gives)."""

    status = 422


class PoolBusy(BoardgymError):
    """Every worker stayed busy for longer than the cap (HTTP 429: try again)."""

    status = 429


class _AgentError(Exception):
    """A sentence from the worker about the agent (a bad spec, a failed move)."""


@dataclass(frozen=True)
class Move:
    action: int
    seconds: float
    info: dict[str, Any]


class _Worker:
    def __init__(self, context: Any) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True)
        self.process.start()
        child.close()
        self.ready = False  # until its imports are done: that time does not count against a move's cap

    def wait_ready(self) -> None:
        if not self.ready:
            if not self.connection.poll(STARTUP_SECONDS):
                raise BoardgymError(f"an agent worker process did not start within {STARTUP_SECONDS} s")
            self.connection.recv()
            self.ready = True

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)
        self.connection.close()


class AgentPool:
    """Worker processes that run agents' moves under a time cap (see the module docstring)."""

    def __init__(self, workers: int = 2, move_seconds: float = 10.0) -> None:
        if workers < 1:
            raise BoardgymError(f"workers={workers} must be at least 1")
        if not move_seconds > 0:
            raise BoardgymError(f"move_seconds={move_seconds!r} must be a positive number of seconds")
        self.move_seconds = float(move_seconds)
        self.size = workers
        self._context = multiprocessing.get_context("spawn")  # the server runs threads: never fork it
        self._workers: list[_Worker] = []
        self._free: asyncio.Queue[int] | None = None
        self._last_worker: dict[str, int] = {}

    async def start(self) -> None:
        """Start the workers and bind the pool to the running event loop (call once from it)."""
        self._workers = [_Worker(self._context) for _ in range(self.size)]
        self._free = asyncio.Queue()
        for index in range(self.size):
            self._free.put_nowait(index)

    async def act(self, key: str, game_name: str, params: dict[str, Any], spec: str, seed: int, state: Any) -> Move:
        """One move of agent ``key`` (built from ``spec`` on first use) in ``state``; a
        ``state`` of None only builds the agent, to report a bad spec early."""
        index = await self._take(key)
        worker = self._workers[index]
        try:
            await anyio.to_thread.run_sync(worker.wait_ready)
            worker.connection.send(("act", key, game_name, params, spec, seed, state))
            if not await anyio.to_thread.run_sync(worker.connection.poll, STARTUP_SECONDS):
                raise BoardgymError(f"agent {spec_label(spec)!r} was not built within {STARTUP_SECONDS} s")
            built = worker.connection.recv()
            if built[0] == "error":
                raise _AgentError(built[1])
            if state is None:
                self._last_worker[key] = index
                return Move(-1, 0.0, {})
            ready = await anyio.to_thread.run_sync(worker.connection.poll, self.move_seconds + 1.0)
            if not ready:
                raise AgentTimeout(
                    f"agent {spec_label(spec)!r} did not move within the {self.move_seconds:g} s cap of this "
                    "server; choose a smaller budget (e.g. simulations= or time=)"
                )
            reply = worker.connection.recv()
        except _AgentError as error:  # the agent's own error: the worker is fine
            raise BoardgymError(str(error)) from None
        except BoardgymError:  # past the cap, or a worker that never started: start another
            self._replace(index)
            raise
        except (EOFError, OSError, BrokenPipeError):
            self._replace(index)
            raise BoardgymError(f"agent {spec_label(spec)!r} stopped its worker process (out of memory?)") from None
        except asyncio.CancelledError:  # a reply may still be on its way: that worker's pipe is out of step
            self._replace(index)
            raise
        finally:
            self._give_back(index)
        self._last_worker[key] = index
        if reply[0] == "error":
            raise BoardgymError(reply[1])
        _, action, seconds, info = reply
        return Move(int(action), float(seconds), info)

    def forget(self, key: str) -> None:
        """Drop agent ``key`` (its session ended) from the worker that holds it."""
        index = self._last_worker.pop(key, None)
        if index is not None:
            try:
                self._workers[index].connection.send(("forget", key))
            except OSError:
                pass

    def close(self) -> None:
        for worker in self._workers:
            worker.stop()
        self._workers = []

    # -- internals ----------------------------------------------------------------------------
    async def _take(self, key: str) -> int:
        assert self._free is not None, "call start() first"
        try:
            first = await asyncio.wait_for(self._free.get(), timeout=self.move_seconds)
        except TimeoutError:
            raise PoolBusy(
                f"every agent worker stayed busy for {self.move_seconds:g} s; try the move again shortly"
            ) from None
        preferred = self._last_worker.get(key)
        if preferred is None or preferred == first:
            return first
        # Swap for the worker that holds this agent if it is free too (its tree is there).
        waiting = []
        while not self._free.empty():
            waiting.append(self._free.get_nowait())
        if preferred in waiting:
            waiting.remove(preferred)
            waiting.append(first)
            first = preferred
        for index in waiting:
            self._free.put_nowait(index)
        return first

    def _give_back(self, index: int) -> None:
        assert self._free is not None
        self._free.put_nowait(index)

    def _replace(self, index: int) -> None:
        self._workers[index].stop()
        self._workers[index] = _Worker(self._context)
        for key in [k for k, i in self._last_worker.items() if i == index]:
            del self._last_worker[key]


def spec_label(spec: str) -> str:
    """A spec as shown to the browser: without checkpoint paths."""
    name, _, rest = spec.partition(":")
    kept = [item for item in rest.split(",") if item and not item.strip().startswith("checkpoint=")]
    return name + (":" + ",".join(kept) if kept else "")


def _serve(connection: Connection) -> None:
    """A worker: build agents on demand, play their moves, report errors as one sentence."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from boardgym.agents.registry import make_agent
    from boardgym.games import make_game

    connection.send(("ready",))
    agents: OrderedDict[str, tuple[Any, Any]] = OrderedDict()
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message[0] == "forget":
            agents.pop(message[1], None)
            continue
        _, key, game_name, params, spec, seed, state = message
        try:
            if key not in agents:
                game = make_game(game_name, **params)
                agent = make_agent(spec, game, seed=seed)
                if hasattr(agent, "reset"):
                    agent.reset(seed=seed)
                agents[key] = (game, agent)
                while len(agents) > AGENTS_PER_WORKER:
                    agents.popitem(last=False)
            agents.move_to_end(key)
            game, agent = agents[key]
        except BoardgymError as error:
            connection.send(("error", str(error)))
            continue
        except Exception as error:  # a constructor's own failure: say which, keep serving
            connection.send(
                ("error", f"agent {spec_label(spec)!r} could not be built: {type(error).__name__}: {error}")
            )
            continue
        connection.send(("built",))
        if state is None:
            continue
        try:
            started = time.perf_counter()
            action = agent.act(game, state)
            seconds = time.perf_counter() - started
            info = dict(getattr(agent, "last_info", {}) or {})
            connection.send(("ok", int(action), seconds, _plain(info)))
        except BoardgymError as error:
            agents.pop(key, None)
            connection.send(("error", str(error)))
        except Exception as error:  # an agent's own failure: say which, keep serving
            agents.pop(key, None)
            connection.send(("error", f"agent {spec_label(spec)!r} failed: {type(error).__name__}: {error}"))


def _plain(value: Any) -> Any:
    """``last_info`` as plain Python (numpy scalars and arrays unwrapped) for pickling and JSON."""
    if isinstance(value, dict):
        return {k if isinstance(k, (str, int)) else str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist"):
        return value.tolist()
    return value
