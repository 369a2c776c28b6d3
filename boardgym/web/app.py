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
signed with a secret of this server (``boardgym.web.visitors``; a cookie it did not sign
counts as none), and a visitor (its address and that cookie) may hold ``client_games``
games and have one agent move thinking with a few more waiting. Every network address (all
the visitors behind it) may hold ``address_games`` games and have all workers but one
thinking, with a few more moves waiting, so that one address, however many cookies it
rotates, never takes the whole server. The workers serve the waiting addresses in turn, and
each address's visitors in turn. Each refusal is a 429 that names the limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardgym.types import BoardgymError, IllegalActionError
from boardgym.web.offer import checkpoints_from, page_offer
from boardgym.web.pool import ADDRESS_WAITING, CLIENT_RUNNING, CLIENT_WAITING, MEMORY_MB, AgentPool
from boardgym.web.sessions import RequestError, Session, SessionStore, build_game, build_seat
from boardgym.web.visitors import CLIENT_COOKIE, COOKIE_DAYS, VisitorCookies

try:
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import FileResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    from boardgym.web.http_rules import (
        ERROR_HANDLERS,
        SECURITY_HEADERS,
        HostCheck,
        OriginCheck,
        json_response,
        only,
        read_json,
    )
except ImportError:  # pragma: no cover - checked by serve()
    Starlette = None  # type: ignore[assignment,misc]

CLIENT_GAMES = 20
ADDRESS_GAMES = 50
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")
STATIC = Path(__file__).parent / "static"


@dataclass
class Server:
    """What the handlers share: the games, the workers, the named checkpoints, the cookies."""

    store: SessionStore
    pool: AgentPool
    checkpoints: dict[str, str]
    cookies: VisitorCookies
    offer: dict[str, Any]


def create_app(
    checkpoints: Mapping[str, str] | None = None,
    *,
    workers: int = 2,
    move_seconds: float = 10.0,
    max_sessions: int = 200,
    idle_seconds: float = 1800.0,
    allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
    client_games: int = CLIENT_GAMES,
    address_games: int = ADDRESS_GAMES,
    address_running: int | None = None,
    address_waiting: int = ADDRESS_WAITING,
    worker_memory: int = MEMORY_MB,
) -> Starlette:
    """The app. ``checkpoints`` maps a NAME to the agent spec it plays (``checkpoints_from``
    builds it from ``--checkpoint NAME=PATH``); ``client_games`` is one visitor's share of
    the ``max_sessions`` games and ``address_games`` one network address's (every visitor
    behind it), ``address_running`` and ``address_waiting`` its agent moves thinking (default:
    all workers but one) and waiting (``boardgym.web.pool``); ``worker_memory`` caps each agent
    worker's address space in MB (0: no cap)."""
    if Starlette is None:
        raise BoardgymError('boardgym serve needs the web extra: pip install "boardgym[web]"')
    if max_sessions < 1 or not idle_seconds > 0 or client_games < 1 or address_games < 1:
        raise BoardgymError(
            f"max_sessions={max_sessions}, client_games={client_games}, address_games={address_games} and "
            f"idle_seconds={idle_seconds} must be positive"
        )
    store = SessionStore(
        max_sessions,
        idle_seconds,
        client_limit=min(client_games, max_sessions),
        address_limit=min(address_games, max_sessions),
    )
    pool = AgentPool(
        workers,
        move_seconds,
        memory_mb=worker_memory,
        address_running=address_running,
        address_waiting=address_waiting,
    )
    offer = page_offer(dict(checkpoints or {}), pool.move_seconds, store.limit)
    offer["limits"].update(
        {
            "client_games": store.client_limit,
            "address_games": store.address_limit,
            "client_moves_thinking": CLIENT_RUNNING,
            "client_moves_waiting": CLIENT_WAITING,
            "address_moves_thinking": pool.address_running,
            "address_moves_waiting": pool.address_waiting,
            "worker_memory_mb": pool.memory_mb,
        }
    )
    server = Server(store, pool, dict(checkpoints or {}), VisitorCookies(), offer)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await pool.start()
        task = asyncio.create_task(_expire(server, idle_seconds))
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
    hosts = ["*"] if "*" in allowed_hosts else list(allowed_hosts)
    app = Starlette(
        routes=routes,
        exception_handlers=ERROR_HANDLERS,
        middleware=[Middleware(HostCheck, allowed_hosts=hosts), Middleware(OriginCheck)],
        lifespan=lifespan,
    )
    app.state.server = server
    app.state.store = store
    app.state.pool = pool
    return app


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    checkpoints: Sequence[str] = (),
    *,
    workers: int = 2,
    move_seconds: float = 10.0,
    max_sessions: int = 200,
    client_games: int = CLIENT_GAMES,
    address_games: int = ADDRESS_GAMES,
    trusted_proxies: Sequence[str] = (),
    worker_memory: int = MEMORY_MB,
) -> None:
    """Run the server until Ctrl-C or SIGTERM (``boardgym serve``). A visitor's address is
    the connection's, whatever ``X-Forwarded-For`` says, unless the connection comes from one
    of ``trusted_proxies`` (a reverse proxy in front of this server): then the address that
    proxy forwards counts."""
    try:
        import uvicorn
    except ImportError:
        raise BoardgymError('boardgym serve needs the web extra: pip install "boardgym[web]"') from None
    if not 0 < port < 65536:
        raise BoardgymError(f"--port {port} must be from 1 to 65535, e.g. 8000")
    loopback = host in ("127.0.0.1", "localhost", "::1")
    hosts = LOOPBACK_HOSTS if loopback else ("*",)
    app = create_app(
        checkpoints_from(checkpoints),
        workers=workers,
        move_seconds=move_seconds,
        max_sessions=max_sessions,
        allowed_hosts=hosts,
        client_games=client_games,
        address_games=address_games,
        worker_memory=worker_memory,
    )
    if not loopback:
        print(f"warning: serving on {host}: anyone who reaches this address can use the server (no login)")
    print(f"boardgym: play at http://{'localhost' if loopback else host}:{port}/  (Ctrl-C stops)")
    # A search still running at Ctrl-C or SIGTERM is cut short after a moment: its worker ends
    # with the others when the app shuts down.
    uvicorn.run(
        app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2, **proxy_settings(trusted_proxies)
    )


def proxy_settings(trusted_proxies: Sequence[str]) -> dict[str, Any]:
    """uvicorn's settings for ``trusted_proxies``: none (uvicorn's default trusts
    ``X-Forwarded-For`` from 127.0.0.1, so that any local program could pose as many
    addresses) unless proxies are named."""
    if not trusted_proxies:
        return {"proxy_headers": False}
    return {"proxy_headers": True, "forwarded_allow_ips": list(trusted_proxies)}


# -- the handlers ----------------------------------------------------------------------------------
async def index(request: Request) -> Response:
    response = FileResponse(STATIC / "index.html", headers=SECURITY_HEADERS)
    cookies = _server(request).cookies
    if cookies.visitor(request).token is None:  # the browser's id for its share of the server
        response.set_cookie(
            CLIENT_COOKIE, cookies.issue(), max_age=COOKIE_DAYS * 86400, httponly=True, samesite="strict"
        )
    return response


async def favicon(request: Request) -> Response:
    return Response(status_code=204)


async def meta(request: Request) -> Response:
    return json_response(_server(request).offer)


async def create(request: Request) -> Response:
    server = _server(request)
    body = await read_json(request)
    only(body, {"game", "params", "players", "seed"})
    game = build_game(body.get("game"), body.get("params"))
    players = body.get("players", ["human", "random"] if game.num_players == 2 else ["human"])
    if not isinstance(players, list) or len(players) != game.num_players:
        raise RequestError(
            400, f'\'players\' must list {game.num_players} player(s) for {game.name}, e.g. ["human", "random"]'
        )
    seats = tuple(build_seat(player, game, server.checkpoints) for player in players)
    seed = body.get("seed", secrets.randbits(31))
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
        raise RequestError(400, f"'seed' must be an integer from 0 to 2**31 - 1, not {seed!r}")
    visitor = server.cookies.visitor(request)
    session = server.store.add(game, seats, seed, visitor.key, address=visitor.address)
    try:
        for index, seat in enumerate(seats):  # build each agent now: a bad spec is refused here
            if seat.spec is not None:
                await _agent_move(server, session, index, state=None)
    except BoardgymError:
        _end(server, session.id)
        raise
    return json_response(session.view(), status=201)


async def show(request: Request) -> Response:
    return json_response(_server(request).store.get(request.path_params["session"]).view())


async def move(request: Request) -> Response:
    session = _server(request).store.get(request.path_params["session"])
    body = await read_json(request)
    only(body, {"action", "move"})
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
            chosen = action if isinstance(action, int) else game.parse_action(state, str(text))
            session.play(chosen, seconds=None, info={}, by_agent=False)
        except IllegalActionError as error:
            legal = [game.action_to_str(state, a) for a in game.legal_actions(state)]
            return json_response({"error": str(error), "legal": legal}, status=400)
    return json_response(session.view())


async def agent(request: Request) -> Response:
    server = _server(request)
    session = server.store.get(request.path_params["session"])
    only(await read_json(request), set())
    async with _turn(session):
        mover = session.mover()
        if mover is None:
            raise RequestError(409, "the game is over; start a new game or undo a move")
        seat = session.seats[mover]
        if seat.spec is None:
            raise RequestError(409, "it is your move: click one of the highlighted moves")
        played = await _agent_move(server, session, mover, state=session.state)
        try:
            session.play(played.action, seconds=played.seconds, info=played.info, by_agent=True)
        except IllegalActionError as error:
            raise RequestError(422, f"agent {seat.label!r} played an illegal move: {error}") from None
    return json_response(session.view())


async def undo(request: Request) -> Response:
    server = _server(request)
    session = server.store.get(request.path_params["session"])
    async with _turn(session):
        session.undo()
        for index, seat in enumerate(session.seats):  # a search tree of the undone line is stale
            if not seat.human:
                server.pool.forget(session.agent_key(index))
    return json_response(session.view())


async def record(request: Request) -> Response:
    session = _server(request).store.get(request.path_params["session"])
    name = f"{session.game.name}-{session.id[:8]}.json"
    return Response(
        session.record().to_json() + "\n",
        media_type="application/json",
        headers={"content-disposition": f'attachment; filename="{name}"', **SECURITY_HEADERS},
    )


async def delete(request: Request) -> Response:
    server = _server(request)
    session = server.store.get(request.path_params["session"])
    _end(server, session.id)
    return json_response({"deleted": session.id})


# -- inside ----------------------------------------------------------------------------------------
def _server(request: Request) -> Server:
    server = request.app.state.server
    assert isinstance(server, Server)
    return server


async def _agent_move(server: Server, session: Session, seat: int, state: Any) -> Any:
    """The move of ``session``'s agent at ``seat`` in ``state`` (None: only build it), on the
    share of the visitor who started the game and of its address."""
    game, spec = session.game, session.seats[seat].spec
    assert spec is not None
    return await server.pool.act(
        session.agent_key(seat),
        game.name,
        game.params(),
        spec,
        session.seed + seat,
        state,
        client=session.client,
        address=session.address,
        label=session.seats[seat].label,
    )


async def _expire(server: Server, idle_seconds: float) -> None:
    while True:
        await asyncio.sleep(min(60.0, idle_seconds / 2))
        for session in server.store.expire():
            for index in range(len(session.seats)):
                server.pool.forget(session.agent_key(index))


@contextlib.asynccontextmanager
async def _turn(session: Session) -> AsyncIterator[None]:
    """One change at a time per game: a second one while an agent thinks is refused."""
    if session.lock.locked():
        raise RequestError(409, "the game is busy (an agent is thinking); wait for its move")
    async with session.lock:
        yield


def _end(server: Server, session_id: str) -> None:
    session = server.store.remove(session_id)
    if session is not None:
        for index in range(len(session.seats)):
            server.pool.forget(session.agent_key(index))
