"""The visitor cookie: signed by the server that issued it; anything else counts as none."""

from __future__ import annotations

from types import SimpleNamespace

from boardgym.web.visitors import CLIENT_COOKIE, Visitor, VisitorCookies


def request(address: str | None, cookie: str | None) -> SimpleNamespace:
    client = SimpleNamespace(host=address) if address is not None else None
    return SimpleNamespace(client=client, cookies={CLIENT_COOKIE: cookie} if cookie is not None else {})


def test_only_a_cookie_this_server_signed_names_a_visitor() -> None:
    cookies = VisitorCookies()
    value = cookies.issue()
    token = cookies.token(value)
    assert token is not None and value.startswith(token + ".")
    assert cookies.visitor(request("10.1.2.3", value)) == Visitor("10.1.2.3", token)
    other_server = VisitorCookies()
    forged = [value[:-1] + ("A" if value[-1] != "A" else "B"), token, "x" * 40, "", value + "x", f"{token}.{'A' * 22}"]
    for bad in [*forged, other_server.issue()]:
        assert cookies.token(bad) is None, bad
    assert cookies.visitor(request("10.1.2.3", "made-up-cookie-value-123")).key == "10.1.2.3/-"
    assert cookies.visitor(request(None, None)).key == "?/-"


def test_two_issued_cookies_are_two_visitors_of_one_address() -> None:
    cookies = VisitorCookies(secret=b"k" * 32)
    first, second = (cookies.visitor(request("127.0.0.1", cookies.issue())) for _ in range(2))
    assert first.key != second.key and first.address == second.address == "127.0.0.1"
    assert VisitorCookies(secret=b"k" * 32).token(cookies.issue()) is not None  # the same secret reads it
