"""/api/ under ASGI takes its own short chain of middleware (api/asgi.py), not the site's: the
same answers as the site's chain gives (the test client's), with the same headers, without a
session or a CSRF cookie, and with no middleware run in a worker thread."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator

from dominoes_site.asgi import application
from tests.api.helpers import SHARED_HEADERS, call, token_for


async def asgi(
    method: str, path: str, token: str | None = None, host: str = "localhost", **headers: str
) -> tuple[int, dict[str, str], bytes]:
    sent = [(b"host", host.encode())]
    if token:
        sent.append((b"authorization", f"Bearer {token}".encode()))
    sent += [(name.replace("_", "-").encode(), value.encode()) for name, value in headers.items()]
    answer = await HttpCommunicator(application, method, path, headers=sent).get_response(
        timeout=30
    )
    found = {k.decode().lower(): v.decode() for k, v in answer["headers"]}
    return answer["status"], found, answer["body"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("path", "scopes"),
    [
        ("/api/account", ("read",)),
        ("/api/account", ()),  # no token: refused in words
        ("/api/players/0", ("read",)),  # no such player
        ("/api/tournaments", ("read",)),
    ],
)
async def test_the_api_chain_answers_as_the_sites_does(
    alice: Any, path: str, scopes: tuple[str, ...]
) -> None:
    token = await sync_to_async(token_for)(alice, *scopes) if scopes else None
    for language in ("en", "es"):
        status, headers, body = await asgi("GET", path, token, accept_language=language)
        extra = {"HTTP_ACCEPT_LANGUAGE": language, "HTTP_HOST": "localhost"}
        site = await sync_to_async(call)("GET", path, token, **extra)
        assert status == site.status_code
        assert json.loads(body) == json.loads(site.content)
        for name in SHARED_HEADERS:
            assert headers.get(name.lower()) == site.headers.get(name), name
        assert "set-cookie" not in headers  # no session, no CSRF cookie
        assert headers["content-language"] == language


@pytest.mark.django_db(transaction=True)
async def test_the_api_chain_refuses_a_host_we_do_not_serve(alice: Any) -> None:
    status, _headers, _body = await asgi("GET", "/api/tournaments", host="evil.example")
    assert status == 400


@pytest.mark.django_db(transaction=True)
async def test_the_api_chain_runs_no_middleware_in_a_worker_thread(
    alice: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Django's MiddlewareMixin, in an async chain, hops to a thread for each process_request and
    process_response: none is called in an /api/ request (a page's request calls some)."""
    from django.utils import deprecation

    hops: list[str] = []
    real = deprecation.MiddlewareMixin.__acall__

    async def counted(self: Any, request: Any) -> Any:
        hops.append(type(self).__name__)
        return await real(self, request)

    monkeypatch.setattr(deprecation.MiddlewareMixin, "__acall__", counted)
    token = await sync_to_async(token_for)(alice, "read")
    status, headers, _body = await asgi("GET", "/api/account", token)
    assert status == 200 and headers["x-ratelimit-bucket"] == "read"
    assert hops == []
    status, _headers, _body = await asgi("GET", "/rules/")
    assert status == 200 and "MessageMiddleware" in hops  # the site's own chain
