"""``boardgym serve``: a local web page to play any game against any agent.

::

    boardgym serve [--host 127.0.0.1] [--port 8000] [--checkpoint NAME=PATH ...]

The page (plain HTML, JS and the games' SVG pictures, from this package's ``static/``) talks
to a small JSON API; every answer to a bad request is a 4xx with ``{"error": "<one
sentence>"}``:

=======================================  ==============================================================
``GET /api/meta``                        games with their parameters, agents, suggested specs,
                                         the checkpoints (by NAME) and the server's limits
``POST /api/sessions``                   ``{"game", "params", "players": [seat 0, seat 1], "seed"}``:
                                         a new game; a player is ``"human"``, an agent spec or
                                         ``"@NAME"`` (a checkpoint the server was started with)
``GET /api/sessions/ID``                 the game: ``svg`` (legal moves carry ``data-action``),
                                         ``status``, ``legal``, ``moves`` (times, agents' infos),
                                         ``analysis`` (the last agent move's visits over its board)
``POST /api/sessions/ID/move``           ``{"action": int}`` or ``{"move": "b2"}``: the person on move
                                         plays; an illegal move gets the rules' reason
``POST /api/sessions/ID/agent``          the agent on move plays (in a worker process, under the
                                         per-move time cap)
``POST /api/sessions/ID/undo``           back to before the person's last move
``GET /api/sessions/ID/record``          the game record (JSON; ``boardgym replay`` reads it)
``DELETE /api/sessions/ID``              end the game
=======================================  ==============================================================

Agents think in worker processes (``boardgym.web.pool``), so a long search never holds up
another game; games are bounded in number and dropped after an idle time. The server binds
127.0.0.1 unless told otherwise, and answers only requests addressed to that host.

Other web sites cannot drive it: a request that changes something (POST, PUT, PATCH,
DELETE) must come from the server's own origin (an ``Origin`` or ``Sec-Fetch-Site`` header
that says otherwise gets a 403) and carry ``Content-Type: application/json`` (else 415; a
request without a body that the browser marks ``Sec-Fetch-Site: same-origin`` may leave it
out), which no form and no ``no-cors`` fetch of another site can send without the browser
asking first.

Each visitor has a share: the page's first load sets an HttpOnly, SameSite=Strict cookie
that names the browser, and a client (its address and that cookie) may hold
``client_games`` games and have one agent move thinking with a few more waiting; the
workers serve the waiting clients in turn. Each refusal is a 429 that names the limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from boardgym.agents.registry import AGENTS, agent_class, spec_parameters
from boardgym.game import Game
from boardgym.games import GAMES, game_class, game_parameters, make_game
from boardgym.registry import read_pairs
from boardgym.runs import jsonable
from boardgym.types import BoardgymError, IllegalActionError
from boardgym.web.pool import CLIENT_RUNNING, CLIENT_WAITING, MEMORY_MB, AgentPool
from boardgym.web.sessions import RequestError, Session, SessionStore, build_game, build_seat

try:
    from starlette.applications import Starlette
    from starlette.datastructures import Headers
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles
except ImportError:  # pragma: no cover - checked by serve()
    Starlette = None  # type: ignore[assignment,misc]

MAX_BODY = 16 * 1024
CLIENT_COOKIE = "boardgym_client"
CLIENT_GAMES = 20
CHANGES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
STATIC = Path(__file__).parent / "static"
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


def create_app(
    checkpoints: Mapping[str, str] | None = None,
    *,
    workers: int = 2,
    move_seconds: float = 10.0,
    max_sessions: int = 200,
    idle_seconds: float = 1800.0,
    allowed_hosts: Sequence[str] = ("127.0.0.1", "localhost", "[::1]", "::1"),
    client_games: int = CLIENT_GAMES,
    worker_memory: int = MEMORY_MB,
) -> Starlette:
    """The app. ``checkpoints`` maps a NAME to the agent spec it plays (``checkpoints_from``
    builds it from ``--checkpoint NAME=PATH``); ``client_games`` is one visitor's share of
    the ``max_sessions`` games; ``worker_memory`` caps each agent worker's address space in
    MB (0: no cap)."""
    if Starlette is None:
        raise BoardgymError('boardgym serve needs the web extra: pip install "boardgym[web]"')
    checkpoints = dict(checkpoints or {})
    if max_sessions < 1 or not idle_seconds > 0 or client_games < 1:
        raise BoardgymError(
            f"max_sessions={max_sessions}, client_games={client_games} and idle_seconds={idle_seconds} must be positive"
        )
    store = SessionStore(max_sessions, idle_seconds, client_limit=min(client_games, max_sessions))
    pool = AgentPool(workers, move_seconds, memory_mb=worker_memory)

    async def index(request: Request) -> Response:
        response = FileResponse(STATIC / "index.html", headers=SECURITY_HEADERS)
        if _client_cookie(request) is None:  # the browser's id for its share of the server
            response.set_cookie(
                CLIENT_COOKIE, secrets.token_urlsafe(16), max_age=400 * 86400, httponly=True, samesite="strict"
            )
        return response

    async def favicon(request: Request) -> Response:
        return Response(status_code=204)

    offer = _meta(checkpoints, pool.move_seconds, store.limit)
    offer["limits"].update(
        {
            "client_games": store.client_limit,
            "client_moves_thinking": CLIENT_RUNNING,
            "client_moves_waiting": CLIENT_WAITING,
            "worker_memory_mb": pool.memory_mb,
        }
    )

    async def meta(request: Request) -> Response:
        return _json(offer)

    async def create(request: Request) -> Response:
        body = await _read_json(request)
        _only(body, {"game", "params", "players", "seed"})
        game = build_game(body.get("game"), body.get("params"))
        players = body.get("players", ["human", "random"] if game.num_players == 2 else ["human"])
        if not isinstance(players, list) or len(players) != game.num_players:
            raise RequestError(
                400, f'\'players\' must list {game.num_players} player(s) for {game.name}, e.g. ["human", "random"]'
            )
        seats = tuple(build_seat(player, game, checkpoints) for player in players)
        seed = body.get("seed", secrets.randbits(31))
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
            raise RequestError(400, f"'seed' must be an integer from 0 to 2**31 - 1, not {seed!r}")
        client = client_key(request)
        session = store.add(game, seats, seed, client)
        try:
            for index, seat in enumerate(seats):  # build each agent now: a bad spec is refused here
                if seat.spec is not None:
                    await pool.act(
                        session.agent_key(index),
                        game.name,
                        game.params(),
                        seat.spec,
                        seed + index,
                        None,
                        client=client,
                        label=seat.label,
                    )
        except BoardgymError:
            _end(store, pool, session.id)
            raise
        return _json(session.view(), status=201)

    async def show(request: Request) -> Response:
        return _json(store.get(request.path_params["session"]).view())

    async def move(request: Request) -> Response:
        session = store.get(request.path_params["session"])
        body = await _read_json(request)
        _only(body, {"action", "move"})
        action, text = body.get("action"), body.get("move")
        if (action is None) == (text is None):
            raise RequestError(400, 'give the move as {"action": <integer>} or as {"move": "<typed move>"}')
        if action is not None and (isinstance(action, bool) or not isinstance(action, int)):
            raise RequestError(400, f"'action' must be an integer action number, not {str(action)[:40]!r}")
        if text is not None and (not isinstance(text, str) or len(text) > 40):
            raise RequestError(400, "'move' must be a move as typed, e.g. \"b2\", of at most 40 characters")
        async with _turn(session):
            mover = session.mover()
            if mover is not None and not session.seats[mover].human:
                raise RequestError(409, f"it is the agent's move ({session.seats[mover].label}), not yours")
            game, state = session.game, session.state
            try:
                move = action if isinstance(action, int) else game.parse_action(state, str(text))
                session.play(move, seconds=None, info={}, by_agent=False)
            except IllegalActionError as error:
                legal = [game.action_to_str(state, a) for a in game.legal_actions(state)]
                return _json({"error": str(error), "legal": legal}, status=400)
        return _json(session.view())

    async def agent(request: Request) -> Response:
        session = store.get(request.path_params["session"])
        body = await _read_json(request)
        _only(body, set())
        async with _turn(session):
            mover = session.mover()
            if mover is None:
                raise RequestError(409, "the game is over; start a new game or undo a move")
            seat = session.seats[mover]
            if seat.spec is None:
                raise RequestError(409, "it is your move: click one of the highlighted moves")
            game = session.game
            played = await pool.act(
                session.agent_key(mover),
                game.name,
                game.params(),
                seat.spec,
                session.seed + mover,
                session.state,
                client=session.client,  # the move counts against the share of who started the game
                label=seat.label,
            )
            try:
                session.play(played.action, seconds=played.seconds, info=played.info, by_agent=True)
            except IllegalActionError as error:
                raise RequestError(422, f"agent {seat.label!r} played an illegal move: {error}") from None
        return _json(session.view())

    async def undo(request: Request) -> Response:
        session = store.get(request.path_params["session"])
        async with _turn(session):
            session.undo()
            for index, seat in enumerate(session.seats):  # a search tree of the undone line is stale
                if not seat.human:
                    pool.forget(session.agent_key(index))
        return _json(session.view())

    async def record(request: Request) -> Response:
        session = store.get(request.path_params["session"])
        name = f"{session.game.name}-{session.id[:8]}.json"
        return Response(
            session.record().to_json() + "\n",
            media_type="application/json",
            headers={"content-disposition": f'attachment; filename="{name}"', **SECURITY_HEADERS},
        )

    async def delete(request: Request) -> Response:
        session = store.get(request.path_params["session"])
        _end(store, pool, session.id)
        return _json({"deleted": session.id})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await pool.start()

        async def expire() -> None:
            while True:
                await asyncio.sleep(min(60.0, idle_seconds / 2))
                for session in store.expire():
                    for index in range(len(session.seats)):
                        pool.forget(session.agent_key(index))

        task = asyncio.create_task(expire())
        try:
            yield
        finally:
            task.cancel()
            pool.close()

    session_path = "/api/sessions/{session:str}"
    routes = [
        Route("/", index),
        Route("/favicon.ico", favicon),
        Route("/api/meta", meta),
        Route("/api/sessions", create, methods=["POST"]),
        Route(session_path, show, methods=["GET"]),
        Route(session_path, delete, methods=["DELETE"]),
        Route(session_path + "/move", move, methods=["POST"]),
        Route(session_path + "/agent", agent, methods=["POST"]),
        Route(session_path + "/undo", undo, methods=["POST"]),
        Route(session_path + "/record", record, methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers = {
        RequestError: _request_error,
        BoardgymError: _boardgym_error,
        HTTPException: _http_error,
        Exception: _server_error,
    }
    hosts = ["*"] if "*" in allowed_hosts else list(allowed_hosts)
    app = Starlette(
        routes=routes,
        exception_handlers=handlers,
        middleware=[Middleware(_HostCheck, allowed_hosts=hosts), Middleware(_OriginCheck)],
        lifespan=lifespan,
    )
    app.state.store = store
    app.state.pool = pool
    return app


def checkpoints_from(items: Sequence[str]) -> dict[str, str]:
    """``["az=runs/hex/alphazero/s0/final.pt"]`` -> ``{"az": "alphazero:checkpoint=..."}``: the
    agent that plays a checkpoint is read from the file's format."""
    pairs = read_pairs(items, what="--checkpoint", example="--checkpoint az=runs/hex/alphazero/s0/final.pt")
    checkpoints: dict[str, str] = {}
    for name, path in pairs.items():
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,40}", name) or not path:
            raise BoardgymError(
                f"cannot read --checkpoint {name}={path}; write NAME=PATH with a short NAME of letters, digits, - _ ."
            )
        checkpoints[name] = f"{checkpoint_agent(path)}:checkpoint={Path(path).resolve()}"
    return checkpoints


def checkpoint_agent(path: str | Path) -> str:
    """The agent name that plays the checkpoint in ``path``, from its ``format`` (an SB3 zip:
    ``ppo``; a Tianshou ``state_dict``, which has none: ``tianshou``)."""
    from boardgym.agents import coevolved, evolved_nim, neat_agent, ppo, tabular, torch_policy
    from boardgym.agents.alphazero import agent as alphazero
    from boardgym.agents.sb3_zip import is_sb3_zip
    from boardgym.checkpoints import load_checkpoint

    agents = {
        tabular.FORMAT: "qlearning",
        ppo.FORMAT: "ppo",
        evolved_nim.FORMAT: "es",
        neat_agent.FORMAT: "neat",
        coevolved.FORMAT: "coevolved",
        alphazero.FORMAT: "alphazero",
        torch_policy.FORMAT: "torch",
    }
    if Path(path).is_file() and is_sb3_zip(Path(path)):
        return "ppo"
    payload = load_checkpoint(path)
    kind = agents.get(str(payload.get("format")))
    if (
        kind is None
        and "format" not in payload
        and any(str(key).startswith(torch_policy.TIANSHOU_PREFIXES) for key in payload)
    ):
        kind = "tianshou"
    if kind is None:
        raise BoardgymError(
            f"checkpoint {str(path)!r} has format {payload.get('format')!r}, which no agent plays; pass a final.pt "
            "written by `boardgym train`, an SB3 zip, a Tianshou state_dict or a file of save_policy "
            "(docs/guides/bring-your-model.md)"
        )
    return kind


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    checkpoints: Sequence[str] = (),
    *,
    workers: int = 2,
    move_seconds: float = 10.0,
    max_sessions: int = 200,
    client_games: int = CLIENT_GAMES,
    worker_memory: int = MEMORY_MB,
) -> None:
    """Run the server until Ctrl-C or SIGTERM (``boardgym serve``)."""
    try:
        import uvicorn
    except ImportError:
        raise BoardgymError('boardgym serve needs the web extra: pip install "boardgym[web]"') from None
    if not 0 < port < 65536:
        raise BoardgymError(f"--port {port} must be from 1 to 65535, e.g. 8000")
    loopback = host in ("127.0.0.1", "localhost", "::1")
    hosts = ("127.0.0.1", "localhost", "[::1]", "::1") if loopback else ("*",)
    app = create_app(
        checkpoints_from(checkpoints),
        workers=workers,
        move_seconds=move_seconds,
        max_sessions=max_sessions,
        allowed_hosts=hosts,
        client_games=client_games,
        worker_memory=worker_memory,
    )
    if not loopback:
        print(f"warning: serving on {host}: anyone who reaches this address can use the server (no login)")
    print(f"boardgym: play at http://{'localhost' if loopback else host}:{port}/  (Ctrl-C stops)")
    # A search still running at Ctrl-C or SIGTERM is cut short after a moment: its worker ends
    # with the others when the app shuts down.
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2)


# -- requests and answers -------------------------------------------------------------------------
class _HostCheck:
    """Answer only requests addressed to an allowed host name (so that a web page elsewhere
    cannot reach this server through a DNS name it controls), with a JSON 400 otherwise."""

    def __init__(self, app: Any, allowed_hosts: Sequence[str]) -> None:
        self.app = app
        self.allowed = {host.lower() for host in allowed_hosts}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and "*" not in self.allowed:
            host = Headers(scope=scope).get("host", "").lower()
            name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if name not in self.allowed:
                await _json({"error": f"this server answers only requests for {sorted(self.allowed)}"}, 400)(
                    scope, receive, send
                )
                return
        await self.app(scope, receive, send)


class _OriginCheck:
    """Refuse a request that changes something unless it comes from this server's own page:
    403 when its ``Origin`` is another one (or ``Sec-Fetch-Site`` says another site sent
    it), 415 when it is not JSON (a form or a ``no-cors`` fetch of another site cannot send
    ``Content-Type: application/json`` without the browser asking this server first, which
    it does not allow)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] in CHANGES:
            refusal = _refusal(scope)
            if refusal is not None:
                await _json({"error": refusal[1]}, refusal[0])(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _refusal(scope: Any) -> tuple[int, str] | None:
    headers = Headers(scope=scope)
    own = f"{scope.get('scheme', 'http')}://{headers.get('host', '')}".lower()
    fetch_site = headers.get("sec-fetch-site", "").lower()
    origin = headers.get("origin")
    if fetch_site in ("cross-site", "same-site"):
        return 403, f"this server takes changes only from its own page at {own}, not from another site"
    if origin is not None and origin.lower().rstrip("/") != own:
        return 403, f"this server takes changes only from its own page at {own}, not from {origin[:80]!r}"
    media = headers.get("content-type", "").split(";")[0].strip().lower()
    if media == "application/json":
        return None
    bodiless = headers.get("content-length", "0") == "0" and "transfer-encoding" not in headers
    if not media and bodiless and fetch_site == "same-origin":  # the page's own body-less POST
        return None
    sent = f"not {media[:60]!r}" if media else "it had none"
    return 415, (
        f"this server takes changes only as JSON: send the header Content-Type: application/json ({sent}), "
        "with a JSON object or an empty body"
    )


def client_key(request: Request) -> str:
    """Who a request counts against: its address and the browser's cookie (every visitor
    behind 127.0.0.1 has the same address)."""
    address = request.client.host if request.client is not None else "?"
    return f"{address}/{_client_cookie(request) or '-'}"


def _client_cookie(request: Request) -> str | None:
    value = request.cookies.get(CLIENT_COOKIE)
    return value if value is not None and re.fullmatch(r"[A-Za-z0-9_-]{16,64}", value) else None


async def _read_json(request: Request) -> dict[str, Any]:
    """The body as a JSON object (an empty body is ``{}``); 413 past ``MAX_BODY`` bytes."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise RequestError(413, f"the request body is larger than {MAX_BODY} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise RequestError(413, f"the request body is larger than {MAX_BODY} bytes")
        chunks.append(chunk)
    body = b"".join(chunks)
    if not body.strip():
        return {}
    try:
        values = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise RequestError(400, "the request body is not valid JSON") from None
    if not isinstance(values, dict):
        raise RequestError(400, "the request body must be a JSON object")
    return values


def _only(body: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(str(key)[:40] for key in body if key not in allowed)
    if unknown:
        expected = ", ".join(sorted(allowed)) or "nothing"
        raise RequestError(400, f"unknown field(s) {', '.join(unknown)}; this request takes: {expected}")


@contextlib.asynccontextmanager
async def _turn(session: Session) -> AsyncIterator[None]:
    """One change at a time per game: a second one while an agent thinks is refused."""
    if session.lock.locked():
        raise RequestError(409, "the game is busy (an agent is thinking); wait for its move")
    async with session.lock:
        yield


def _end(store: SessionStore, pool: AgentPool, session_id: str) -> None:
    session = store.remove(session_id)
    if session is not None:
        for index in range(len(session.seats)):
            pool.forget(session.agent_key(index))


def _json(content: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(jsonable(content), status_code=status, headers=SECURITY_HEADERS)


async def _request_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, RequestError)
    return _json({"error": str(error)}, status=error.status)


async def _boardgym_error(request: Request, error: Exception) -> Response:
    return _json({"error": str(error)}, status=getattr(error, "status", 400))


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    message = {404: "no such page or API endpoint", 405: "this endpoint does not take that method"}
    return _json({"error": message.get(error.status_code, str(error.detail))}, status=error.status_code)


async def _server_error(request: Request, error: Exception) -> Response:
    return _json({"error": f"internal error ({type(error).__name__}); the server's log has the details"}, status=500)


# -- what the page offers ------------------------------------------------------------------------
def _meta(checkpoints: Mapping[str, str], move_seconds: float, max_sessions: int) -> dict[str, Any]:
    games = []
    for name, entry in GAMES.items():
        cls = game_class(name)
        default = make_game(name)
        params = []
        for key in game_parameters(cls):
            value = entry.web_defaults.get(key, default.params().get(key))
            params.append({"name": key, "default": _param_text(value)})
        games.append(
            {
                "name": name,
                "summary": entry.summary,
                "players": default.num_players,
                "params": params,
                "agents": suggested_agents(default, entry.opponents),
            }
        )
    agents = [
        {"name": name, "summary": entry.summary, "params": sorted(spec_parameters_of(name))}
        for name, entry in AGENTS.items()
        if name != "human"
    ]
    named = []
    for name, spec in checkpoints.items():
        named.append({"name": f"@{name}", "agent": spec.partition(":")[0]})
    return {
        "games": games,
        "agents": agents,
        "checkpoints": named,
        "limits": {"move_seconds": move_seconds, "max_sessions": max_sessions},
    }


def spec_parameters_of(name: str) -> list[str]:
    try:
        return [key for key in spec_parameters(agent_class(name)) if key != "checkpoint"]
    except Exception:  # an agent whose module cannot load here (a missing extra)
        return []


def suggested_agents(game: Game, own: Sequence[str] = ()) -> list[str]:
    """The agents the page suggests for ``game``: the generic ones, with the game's own
    (``opponents`` of its entry) after them, or before them for a puzzle."""
    if game.num_players == 1:
        return [*own, "random"]
    generic = ["random", "minimax:depth=2", "mcts:simulations=300", "mcts:time=2"]
    if game.solvable_by_search:
        generic.append("perfect")
    return [*generic, *own]


def _param_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)
