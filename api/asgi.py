"""The API's own way through Django: /api/ requests are served by `ApiHandler` (the ASGI router
in dominoes_site/asgi.py sends them here), Django's ASGI handler with a short chain of
middleware, every one async.

The site's chain (settings.MIDDLEWARE) is for pages: sessions, CSRF, messages, the age gate,
static files. Under ASGI most of it runs in Django's one thread-sensitive worker thread (some of
it is synchronous only), with hand-offs back to the event loop and forth again for the rest:
about six a request, each a wait for that one thread (which every request of the process
shares) and for the GIL behind the event loop. An API request needs none of it: it names its
caller with a token, not a session (no cookie, no CSRF). It keeps what it does need, inline on
the event loop:

- the host checked against ALLOWED_HOSTS (400 otherwise, as CommonMiddleware would);
- Django's SecurityMiddleware (HTTPS redirect, HSTS, nosniff, referrer policy) and
  LocaleMiddleware (`message` in the request's Accept-Language), their methods called directly:
  they read and write headers, nothing else;
- the site's own policies (dominoes_site/headers.py) and the rate limit's headers and count
  (api/middleware.py).

A move and the streams do their database work on the event loop through `dominoes_site.db_hop`,
as the sockets do; the other operations are synchronous views, which Django runs in its worker
thread as it does a page. The test client (settings.MIDDLEWARE) answers /api/ the same way:
tests/api/test_asgi.py compares the two.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import markcoroutinefunction
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.exception import convert_exception_to_response
from django.http import HttpRequest, HttpResponseBase
from django.middleware.locale import LocaleMiddleware
from django.middleware.security import SecurityMiddleware
from django.urls import set_script_prefix
from django.utils import timezone

from api import move_route
from api.middleware import RateLimitHeadersMiddleware
from dominoes_site.headers import SecurityHeadersMiddleware

PREFIX = "/api/"


class ApiBasicsMiddleware:
    """The host check, SecurityMiddleware and LocaleMiddleware, inline."""

    sync_capable = False
    async_capable = True

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response
        self.security = SecurityMiddleware(get_response)
        self.locale = LocaleMiddleware(get_response)
        markcoroutinefunction(self)

    async def __call__(self, request: HttpRequest) -> HttpResponseBase:
        request.get_host()  # DisallowedHost: a 400
        redirect = self.security.process_request(request)
        if redirect is not None:
            return redirect
        self.locale.process_request(request)
        response = await self.get_response(request)
        response = self.locale.process_response(request, response)
        return self.security.process_response(request, response)


#: Outermost first.
API_MIDDLEWARE = [ApiBasicsMiddleware, SecurityHeadersMiddleware, RateLimitHeadersMiddleware]


class ApiHandler(ASGIHandler):
    """Django's ASGI handler for /api/, with `API_MIDDLEWARE` instead of settings.MIDDLEWARE,
    and without a thread of its own for each request.

    Django runs each request in a `ThreadSensitiveContext`: a new executor, so a new thread, for
    whatever the request does synchronously (the request signals, a synchronous view): a
    thread started and ended for every request, the event loop waiting for it to start, and a
    database connection opened by each. Here the request's synchronous parts run in the
    process's one thread-sensitive thread instead, on its one long-lived connection (as
    channels' `database_sync_to_async` does for sockets): bench/api_load.py measured the
    threads as the largest part of an API move's cost beyond a socket's.

    A move (api/move_route.py) is answered in front of Django's handler, through the same
    middleware, when the operation would take it as it is (`lean_moves`, on by default)."""

    def __init__(self, *, lean_moves: bool = True) -> None:
        super().__init__()
        self.lean_moves = lean_moves

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"the API serves HTTP only, not {scope['type']}")
        if self.lean_moves and move_route.is_move(scope):
            await self.move(scope, receive, send)
            return
        await self.handle(scope, receive, send)

    async def move(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """A move: answered here when it is plain (move_route.plain_move), else by Django's
        handler, given the body as it came."""
        arrived = timezone.now()  # judged by the clock when the request arrived
        body, more, gone = await move_route.read_body(receive)
        if gone:
            return
        found = None if more else move_route.plain_move(scope, body)
        if found is None:
            await self.handle(scope, move_route.replaying(body, more, receive), send)
            return
        set_script_prefix(get_script_prefix(scope))
        request = move_route.request_for(scope, body, found, arrived)
        response = await self._move_chain(request)
        await self.send_response(response, send)

    def load_middleware(self, is_async: bool = False) -> None:
        assert is_async, "the API's handler serves ASGI only"
        self._view_middleware: list[Any] = []
        self._template_response_middleware: list[Any] = []
        self._exception_middleware: list[Any] = []
        self._middleware_chain = self._chain(self._get_response_async)
        self._move_chain = self._chain(move_route.answer)

    @staticmethod
    def _chain(innermost: Any) -> Any:
        handler = convert_exception_to_response(innermost)
        for middleware in reversed(API_MIDDLEWARE):
            handler = convert_exception_to_response(middleware(handler))
        return handler


class ApiRouter:
    """HTTP requests to /api/ go to `api`, every other to `site`."""

    def __init__(self, site: Any, api: Any) -> None:
        self.site = site
        self.api = api

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        app = self.api if scope.get("path", "").startswith(PREFIX) else self.site
        return await app(scope, receive, send)
