"""An agent worker process of the play page (``boardgym.web.pool`` starts them): it builds
agents on demand, plays their moves, reports every error as one sentence, ends itself when the
server is gone, and lives within its address-space cap.

Error messages name an agent by its ``label`` (``@NAME`` for a checkpoint), and any
checkpoint path in a message from the worker is replaced by that label (``hide_paths``).
"""

from __future__ import annotations

import os
import resource
import signal
import time
from collections import OrderedDict
from multiprocessing.connection import Connection
from typing import Any

from boardgym.procs import watch_parent
from boardgym.types import BoardgymError

AGENTS_PER_WORKER = 64
PARENT_POLL_SECONDS = 1.0


def hide_paths(message: str, spec: str, label: str) -> str:
    """``message`` with the checkpoint path of ``spec`` (in any form it may take there)
    replaced by ``label``, e.g. ``@az``: the page names checkpoints, never their paths."""
    shown = spec_label(spec)
    if label != shown:  # the worker names the agent by its spec
        message = message.replace(repr(shown), repr(label))
    path = _checkpoint_path(spec)
    if not path:
        return message
    forms = {path, os.path.abspath(path), os.path.realpath(path)}
    for form in sorted(forms, key=len, reverse=True):
        for text in (repr(form), f'"{form}"', form):
            message = message.replace(text, label)
    for form in sorted(forms, key=len, reverse=True):  # what is left of it: its folder
        folder = os.path.dirname(form)
        if len(folder) > 1:
            message = message.replace(folder, "(a folder of the server)")
    return message


def _checkpoint_path(spec: str) -> str | None:
    _, _, rest = spec.partition(":")
    for item in rest.split(","):
        key, _, value = item.strip().partition("=")
        if key == "checkpoint" and value:
            return value
    return None


def spec_label(spec: str) -> str:
    """A spec as shown to the browser: without checkpoint paths."""
    name, _, rest = spec.partition(":")
    kept = [item for item in rest.split(",") if item and not item.strip().startswith("checkpoint=")]
    return name + (":" + ",".join(kept) if kept else "")


def serve_agents(connection: Connection, parent: int, memory_mb: int) -> None:
    """A worker: build agents on demand, play their moves, report errors as one sentence;
    it ends when the server (``parent``) is gone, and lives within ``memory_mb`` of address
    space (0: no cap)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    watch_parent(parent, PARENT_POLL_SECONDS)
    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
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
        except MemoryError:
            _out_of_memory(connection, spec, memory_mb)
            return
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
        except MemoryError:
            _out_of_memory(connection, spec, memory_mb)
            return
        except BoardgymError as error:
            agents.pop(key, None)
            connection.send(("error", str(error)))
        except Exception as error:  # an agent's own failure: say which, keep serving
            agents.pop(key, None)
            connection.send(("error", f"agent {spec_label(spec)!r} failed: {type(error).__name__}: {error}"))


def _out_of_memory(connection: Connection, spec: str, memory_mb: int) -> None:
    """Say so and end: a worker that ran out of memory may be in any state, so it is replaced."""
    try:
        connection.send(
            (
                "fatal",
                f"agent {spec_label(spec)!r} ran out of the {memory_mb} MB a worker may use on this server; "
                "choose a smaller budget (e.g. simulations= or time=)",
            )
        )
    finally:
        os._exit(0)


def address_space(pid: int | None) -> int:
    """The address space of process ``pid`` in bytes (0 where /proc does not say)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _plain(value: Any) -> Any:
    """``last_info`` as plain Python (numpy scalars and arrays unwrapped) for pickling and JSON."""
    if isinstance(value, dict):
        return {k if isinstance(k, (str, int)) else str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist"):
        return value.tolist()
    return value
