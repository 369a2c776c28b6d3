"""Who a request of the play page counts against: its network address, and the browser's
cookie when it is one this server issued.

The page's first load sets ``boardgym_client``, an HttpOnly, SameSite=Strict cookie whose
value is a random token and its HMAC under a secret drawn when the server starts
(``VisitorCookies``). A cookie the server did not sign (made up, or from an earlier run of the
server) counts as no cookie, so changing the cookie's value makes no new visitor: a visitor
without a valid cookie shares one share with everyone else at its address without one.

Fresh signed cookies are free to get (load the page again), so a share per cookie alone
holds nobody back: every share also holds per address (``Visitor.address``), which is the
address the connection comes from. Behind a reverse proxy every visitor comes from the
proxy's address and shares its share, unless the proxy is named as trusted
(``boardgym serve --trusted-proxy ADDRESS``): then the address it forwards
(``X-Forwarded-For``) counts instead, and only from that proxy.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from typing import Any

CLIENT_COOKIE = "boardgym_client"
COOKIE_DAYS = 400
_COOKIE = re.compile(r"([A-Za-z0-9_-]{16,64})\.([A-Za-z0-9_-]{22})")


@dataclass(frozen=True)
class Visitor:
    """A request's network ``address`` and its signed cookie's token (None without one)."""

    address: str
    token: str | None

    @property
    def key(self) -> str:
        """The visitor's share: its address and token (``ADDRESS/-`` without a valid cookie)."""
        return f"{self.address}/{self.token or '-'}"


class VisitorCookies:
    """Issues and checks the visitor cookie, signed with a secret of this server's own."""

    def __init__(self, secret: bytes | None = None) -> None:
        self.secret = secret if secret is not None else secrets.token_bytes(32)

    def issue(self) -> str:
        """A new cookie value: ``TOKEN.SIGNATURE``."""
        token = secrets.token_urlsafe(16)
        return f"{token}.{self._sign(token)}"

    def token(self, value: str | None) -> str | None:
        """The token of a cookie value this server signed, else None."""
        match = _COOKIE.fullmatch(value or "")
        if match is None or not hmac.compare_digest(match.group(2), self._sign(match.group(1))):
            return None
        return match.group(1)

    def visitor(self, request: Any) -> Visitor:
        """Who ``request`` (a starlette ``Request``) counts against."""
        address = request.client.host if request.client is not None else "?"
        return Visitor(address, self.token(request.cookies.get(CLIENT_COOKIE)))

    def _sign(self, token: str) -> str:
        digest = hmac.new(self.secret, token.encode(), hashlib.sha256).digest()[:16]
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
