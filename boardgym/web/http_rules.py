"""What the play page's server checks of every request before a handler sees it, and how it
answers: the host it is addressed to (``HostCheck``), the origin and media type of a request
that changes something (``OriginCheck``), the body (``read_json``, ``only``) and every refusal
as JSON ``{"error": "<one sentence>"}`` with its 4xx (``ERROR_HANDLERS``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from boardgym.runs import jsonable
from boardgym.types import BoardgymError
from boardgym.web.sessions import RequestError

MAX_BODY = 16 * 1024
CHANGES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


class HostCheck:
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
                await json_response({"error": f"this server answers only requests for {sorted(self.allowed)}"}, 400)(
                    scope, receive, send
                )
                return
        await self.app(scope, receive, send)


class OriginCheck:
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
                await json_response({"error": refusal[1]}, refusal[0])(scope, receive, send)
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


async def read_json(request: Request) -> dict[str, Any]:
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


def only(body: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(str(key)[:40] for key in body if key not in allowed)
    if unknown:
        expected = ", ".join(sorted(allowed)) or "nothing"
        raise RequestError(400, f"unknown field(s) {', '.join(unknown)}; this request takes: {expected}")


def json_response(content: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(jsonable(content), status_code=status, headers=SECURITY_HEADERS)


async def _request_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, RequestError)
    return json_response({"error": str(error)}, status=error.status)


async def _boardgym_error(request: Request, error: Exception) -> Response:
    return json_response({"error": str(error)}, status=getattr(error, "status", 400))


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    message = {404: "no such page or API endpoint", 405: "this endpoint does not take that method"}
    return json_response({"error": message.get(error.status_code, str(error.detail))}, status=error.status_code)


async def _server_error(request: Request, error: Exception) -> Response:
    return json_response(
        {"error": f"internal error ({type(error).__name__}); the server's log has the details"}, status=500
    )


ERROR_HANDLERS = {
    RequestError: _request_error,
    BoardgymError: _boardgym_error,
    HTTPException: _http_error,
    Exception: _server_error,
}
