"""Agents think in worker processes, so that a long search never holds up the server, and a
move that runs past the time cap is stopped by ending its process.

``AgentPool(workers, move_seconds)``: ``await pool.act(key, game, spec, seed, state, client=...)``
plays one move of the agent ``key`` (a session and seat) and returns its action, thinking
time and ``last_info``. Each worker keeps the agents it has built (by key, the most recent
``AGENTS_PER_WORKER``), and a key goes back to the worker that served it last when that one
is free, so a search that reuses its tree keeps it. A worker that runs past the cap is
killed and replaced; the agent is rebuilt on its next move. Only the move counts against
the cap: a worker's start-up and the building of an agent (loading a network) do not.

Fair shares: each ``client`` (a visitor of the page) has at most ``client_running`` moves
thinking and ``client_waiting`` more waiting, and each network ``address`` (every visitor
behind it: a household, a proxy) at most ``address_running`` thinking (default: all workers
but one, so that one address never holds them all) and ``address_waiting`` more waiting;
more is refused (HTTP 429). A free worker goes to the waiting addresses in turn
(round-robin), and within an address to its clients in turn, not to the oldest request, so
that a flood of long searches from one address, however many cookies it rotates through,
delays another address's move by at most one move of each address ahead in the round. Each worker's address space is capped (``memory_mb``, RLIMIT_AS, and
the server ends a worker that reaches it, where /proc shows it): a search that outgrows it
fails with one sentence and its worker is replaced. A worker ends
itself when the server's process is gone (its pipe closes or its parent changes), even in
the middle of a search.

Error messages name an agent by its ``label`` (``@NAME`` for a checkpoint), and any
checkpoint path in a message from the worker is replaced by that label.

Protocol: the server sends ``("act", key, game, params, spec, seed, state)``; the worker
answers ``("built",)`` once the agent exists (or ``("error", sentence)``), then
``("ok", action, seconds, info)`` or ``("error", sentence)`` for the move; ``("fatal", sentence)``
when the worker ran out of memory and ends itself.
"""

from __future__ import annotations

import asyncio
import atexit
import multiprocessing
import os
import time
import weakref
from collections import deque
from dataclasses import dataclass
from typing import Any

import anyio

from boardgym.types import BoardgymError
from boardgym.web.worker import address_space, hide_paths, serve_agents, spec_label

__all__ = ["AgentPool", "AgentTimeout", "ClientBusy", "Move", "PoolBusy", "hide_paths", "spec_label"]

STARTUP_SECONDS = 120
MEMORY_MB = 2048  # a worker's address space (torch alone maps about 650 MB of it)
CLIENT_RUNNING = 1
CLIENT_WAITING = 4
ADDRESS_WAITING = 8
MEMORY_POLL_SECONDS = 0.2
MEMORY_WATCH_SHARE = 0.97  # a worker this close to its cap is ended (it may be spinning there)


class AgentTimeout(BoardgymError):
    """The agent did not move within the cap (HTTP 422: the spec asks for more than the server gives)."""

    status = 422


class PoolBusy(BoardgymError):
    """Every worker stayed busy for longer than the wait (HTTP 429: try again)."""

    status = 429


class ClientBusy(BoardgymError):
    """This client already has its share of moves thinking and waiting (HTTP 429)."""

    status = 429


class _AgentError(Exception):
    """A sentence from the worker about the agent (a bad spec, a failed move)."""


@dataclass(frozen=True)
class Move:
    action: int
    seconds: float
    info: dict[str, Any]


class _Worker:
    def __init__(self, context: Any, memory_mb: int) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(target=serve_agents, args=(child, os.getpid(), memory_mb), daemon=True)
        self.process.start()
        child.close()
        self.ready = False  # until its imports are done: that time does not count against a move's cap

    def wait_ready(self) -> None:
        if not self.ready:
            if not self.connection.poll(STARTUP_SECONDS):
                raise BoardgymError(f"an agent worker process did not start within {STARTUP_SECONDS} s")
            self.connection.recv()
            self.ready = True

    def wait_reply(self, seconds: float, memory_mb: int) -> str:
        """Wait up to ``seconds`` for the reply to a move: ``"ready"``, ``"timeout"``, or
        ``"memory"`` when the worker's address space reached its cap. At the cap CPython may
        spin in its exception handling instead of raising MemoryError, so the server watches
        (where /proc tells it) rather than wait for the worker to say so."""
        deadline = time.monotonic() + seconds
        limit = memory_mb * 1024 * 1024 * MEMORY_WATCH_SHARE
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout"
            if self.connection.poll(min(left, MEMORY_POLL_SECONDS)):
                return "ready"
            if memory_mb > 0 and address_space(self.process.pid) >= limit:
                return "memory"

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)
        self.connection.close()


class AgentPool:
    """Worker processes that run agents' moves under a time cap, shared fairly among clients
    (see the module docstring)."""

    def __init__(
        self,
        workers: int = 2,
        move_seconds: float = 10.0,
        *,
        memory_mb: int = MEMORY_MB,
        client_running: int = CLIENT_RUNNING,
        client_waiting: int = CLIENT_WAITING,
        address_running: int | None = None,
        address_waiting: int = ADDRESS_WAITING,
        wait_seconds: float | None = None,
    ) -> None:
        if workers < 1:
            raise BoardgymError(f"workers={workers} must be at least 1")
        if not move_seconds > 0:
            raise BoardgymError(f"move_seconds={move_seconds!r} must be a positive number of seconds")
        if memory_mb != 0 and memory_mb < 256:
            raise BoardgymError(f"worker memory {memory_mb} MB is too small; give at least 256 MB, or 0 for no cap")
        if client_running < 1 or client_waiting < 0:
            raise BoardgymError(
                f"client_running={client_running} must be at least 1 and client_waiting={client_waiting} at least 0"
            )
        self.move_seconds = float(move_seconds)
        self.size = workers
        self.memory_mb = int(memory_mb)
        self.client_running = client_running
        self.client_waiting = client_waiting
        self.address_running = max(1, workers - 1) if address_running is None else address_running
        self.address_waiting = address_waiting
        if self.address_running < 1 or address_waiting < 0:
            raise BoardgymError(
                f"address_running={self.address_running} must be at least 1 and address_waiting={address_waiting} "
                "at least 0"
            )
        # How long a move may wait for a worker: a few moves of the clients ahead in the round.
        self.wait_seconds = float(wait_seconds) if wait_seconds is not None else 3 * self.move_seconds + 10.0
        self._context = multiprocessing.get_context("spawn")  # the server runs threads: never fork it
        self._workers: list[_Worker] = []
        self._idle: list[int] = []
        self._queues: dict[str, deque[tuple[str, asyncio.Future[int]]]] = {}
        self._running: dict[str, int] = {}
        self._served: dict[str, int] = {}  # client -> the turn it was last served in
        self._address: dict[str, str] = {}  # client -> its network address, while it has moves
        self._address_running: dict[str, int] = {}
        self._address_served: dict[str, int] = {}  # address -> the turn it was last served in
        self._turns = 0
        self._last_worker: dict[str, int] = {}
        self._started = False

    async def start(self) -> None:
        """Start the workers and bind the pool to the running event loop (call once from it)."""
        self._workers = [_Worker(self._context, self.memory_mb) for _ in range(self.size)]
        self._idle = list(range(self.size))
        self._started = True
        _LIVE_POOLS.add(self)

    async def act(
        self,
        key: str,
        game_name: str,
        params: dict[str, Any],
        spec: str,
        seed: int,
        state: Any,
        *,
        client: str = "",
        address: str | None = None,
        label: str | None = None,
    ) -> Move:
        """One move of agent ``key`` (built from ``spec`` on first use) in ``state``, for
        ``client`` at network ``address`` (default: a client is an address of its own); a
        ``state`` of None only builds the agent, to report a bad spec early. Messages name the
        agent ``label`` (default: the spec without checkpoint paths)."""
        name = label if label is not None else spec_label(spec)
        index = await self._take(key, client, client if address is None else address)
        worker = self._workers[index]
        try:
            await anyio.to_thread.run_sync(worker.wait_ready, abandon_on_cancel=True)
            worker.connection.send(("act", key, game_name, params, spec, seed, state))
            if not await anyio.to_thread.run_sync(worker.connection.poll, STARTUP_SECONDS, abandon_on_cancel=True):
                raise BoardgymError(f"agent {name!r} was not built within {STARTUP_SECONDS} s")
            built = worker.connection.recv()
            if built[0] == "fatal":
                raise _WorkerLost(built[1])
            if built[0] == "error":
                raise _AgentError(built[1])
            if state is None:
                self._last_worker[key] = index
                return Move(-1, 0.0, {})
            outcome = await anyio.to_thread.run_sync(
                worker.wait_reply, self.move_seconds + 1.0, self.memory_mb, abandon_on_cancel=True
            )
            if outcome == "memory":
                raise _WorkerLost("out of memory")
            if outcome == "timeout":
                raise AgentTimeout(
                    f"agent {name!r} did not move within the {self.move_seconds:g} s cap of this "
                    "server; choose a smaller budget (e.g. simulations= or time=)"
                )
            reply = worker.connection.recv()
            if reply[0] == "fatal":
                raise _WorkerLost(reply[1])
        except _AgentError as error:  # the agent's own error: the worker is fine
            raise BoardgymError(hide_paths(str(error), spec, name)) from None
        except _WorkerLost:  # out of memory: the worker ended itself
            self._replace(index)
            raise BoardgymError(
                f"agent {name!r} ran out of the {self.memory_mb} MB a worker may use on this server; "
                "choose a smaller budget (e.g. simulations= or time=)"
            ) from None
        except BoardgymError:  # past the cap, or a worker that never started: start another
            self._replace(index)
            raise
        except (EOFError, OSError, BrokenPipeError):
            self._replace(index)
            raise BoardgymError(
                f"agent {name!r} stopped its worker process (out of memory?); choose a smaller budget "
                "(e.g. simulations= or time=)"
            ) from None
        except asyncio.CancelledError:  # a reply may still be on its way: that worker's pipe is out of step
            self._replace(index)
            raise
        finally:
            self._give_back(index, client)
        self._last_worker[key] = index
        if reply[0] == "error":
            raise BoardgymError(hide_paths(str(reply[1]), spec, name))
        _, action, seconds, info = reply
        return Move(int(action), float(seconds), info)

    def forget(self, key: str) -> None:
        """Drop agent ``key`` (its session ended) from the worker that holds it."""
        index = self._last_worker.pop(key, None)
        if index is not None and index < len(self._workers):
            try:
                self._workers[index].connection.send(("forget", key))
            except OSError:
                pass

    def close(self) -> None:
        """End every worker process (also run at the interpreter's exit)."""
        workers, self._workers = self._workers, []
        for worker in workers:
            worker.stop()
        _LIVE_POOLS.discard(self)

    def pids(self) -> list[int]:
        """The worker processes' ids (for tests and diagnostics)."""
        return [worker.process.pid for worker in self._workers if worker.process.pid is not None]

    # -- internals ----------------------------------------------------------------------------
    async def _take(self, key: str, client: str, address: str) -> int:
        """A free worker for ``client`` at ``address``, in its turn: the addresses with a move
        waiting are served round-robin, and each address's clients in turn, each within its
        share of moves thinking."""
        assert self._started, "call start() first"
        queue = self._queues.get(client)
        waiting = len(queue) if queue else 0
        if self._running.get(client, 0) + waiting >= self.client_running + self.client_waiting:
            raise ClientBusy(
                f"you already have {self.client_running} agent move(s) thinking and {waiting} waiting, this "
                "server's share for one visitor; wait for them to finish before asking for more"
            )
        shared = self._address_running.get(address, 0) + self._address_waiting(address)
        if shared >= self.address_running + self.address_waiting:
            raise ClientBusy(
                f"your network address already has {shared} agent moves thinking or waiting, this server's share "
                "for one address (every visitor behind it); wait for them to finish before asking for more"
            )
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._queues.setdefault(client, deque()).append((key, future))
        self._address[client] = address
        self._dispatch()
        try:
            async with asyncio.timeout(self.wait_seconds):
                return await future
        except (TimeoutError, asyncio.CancelledError) as error:
            if future.done() and not future.cancelled():  # a worker came just now: hand it on
                self._give_back(future.result(), client)
            else:
                future.cancel()
                self._drop(client, future)
            if isinstance(error, TimeoutError):
                raise PoolBusy(
                    f"every agent worker stayed busy for {self.wait_seconds:g} s with other visitors' moves; "
                    "try the move again shortly"
                ) from None
            raise

    def _dispatch(self) -> None:
        """Hand free workers to waiting moves, one address after another and one client of an
        address after another: of the clients with a move waiting and a move to spare (theirs
        and their address's), the one whose address was served longest ago (or never) goes
        first, and of its clients the one served longest ago."""
        while self._idle and self._queues:
            eligible = []
            for client, queue in self._queues.items():
                while queue and queue[0][1].done():  # cancelled while waiting
                    queue.popleft()
                address = self._address[client]
                if (
                    queue
                    and self._running.get(client, 0) < self.client_running
                    and self._address_running.get(address, 0) < self.address_running
                ):
                    eligible.append(client)
            for client in [c for c, q in self._queues.items() if not q]:
                del self._queues[client]
                self._forget_turn(client)
            if not eligible:
                return
            chosen = min(
                eligible, key=lambda c: (self._address_served.get(self._address[c], -1), self._served.get(c, -1))
            )
            address = self._address[chosen]
            queue = self._queues[chosen]
            key, future = queue.popleft()
            if not queue:
                del self._queues[chosen]
            self._turns += 1
            self._served[chosen] = self._address_served[address] = self._turns
            preferred = self._last_worker.get(key)  # the worker that holds this agent's tree
            index = preferred if preferred in self._idle else self._idle[0]
            self._idle.remove(index)
            self._running[chosen] = self._running.get(chosen, 0) + 1
            self._address_running[address] = self._address_running.get(address, 0) + 1
            future.set_result(index)

    def _address_waiting(self, address: str) -> int:
        return sum(len(queue) for client, queue in self._queues.items() if self._address.get(client) == address)

    def _forget_turn(self, client: str) -> None:
        """A client with nothing thinking or waiting starts afresh (first in the next round),
        and so does an address none of whose clients has."""
        if client not in self._queues and client not in self._running:
            self._served.pop(client, None)
            address = self._address.pop(client, None)
            if address is not None and address not in self._address.values():
                self._address_served.pop(address, None)

    def _drop(self, client: str, future: asyncio.Future[int]) -> None:
        queue = self._queues.get(client)
        if queue is not None:
            for item in list(queue):
                if item[1] is future:
                    queue.remove(item)
            if not queue:
                del self._queues[client]
        self._forget_turn(client)

    def _give_back(self, index: int, client: str) -> None:
        running = self._running.get(client, 0) - 1
        if running > 0:
            self._running[client] = running
        else:
            self._running.pop(client, None)
        address = self._address.get(client, client)
        shared = self._address_running.get(address, 0) - 1
        if shared > 0:
            self._address_running[address] = shared
        else:
            self._address_running.pop(address, None)
        self._idle.append(index)
        self._dispatch()
        self._forget_turn(client)

    def _replace(self, index: int) -> None:
        if not self._workers:  # closed: the server is going
            return
        self._workers[index].stop()
        self._workers[index] = _Worker(self._context, self.memory_mb)
        for key in [k for k, i in self._last_worker.items() if i == index]:
            del self._last_worker[key]


_LIVE_POOLS: weakref.WeakSet[AgentPool] = weakref.WeakSet()


@atexit.register
def _close_pools() -> None:
    """The server's interpreter is ending (an exception, Ctrl-C): its workers end with it."""
    for pool in list(_LIVE_POOLS):
        pool.close()


class _WorkerLost(Exception):
    """A sentence from a worker that ends itself (it ran out of memory)."""
