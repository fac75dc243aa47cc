"""The ASGI stack served by daphne.

HTTP goes to Django (whitenoise serves static files inside it); /api/ takes its own short way
through Django (api/asgi.py). WebSockets pass, outermost
first, through the origin check (only our own pages, on the port the socket was opened on), the
session auth middleware and the URL router. Importing this module also makes daphne stamp every
incoming WebSocket frame with the moment it read it (dominoes_site/arrival.py): the `daphne`
command imports the application before it serves anything.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dominoes_site.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddleware, get_user  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import WebsocketDenier  # noqa: E402
from channels.sessions import CookieMiddleware, SessionMiddleware  # noqa: E402
from django.conf import settings  # noqa: E402
from django.http.request import split_domain_port, validate_host  # noqa: E402

from api.asgi import ApiHandler, ApiRouter  # noqa: E402
from dominoes_site import db_hop  # noqa: E402
from dominoes_site.routing import websocket_urlpatterns  # noqa: E402

DEFAULT_PORTS = {"http": 80, "https": 443}
#: One machine's own names for itself: a page at one may open a socket to another.
LOOPBACK = {"localhost", "127.0.0.1", "[::1]"}


def origin_allowed(headers: list[tuple[bytes, bytes]]) -> bool:
    """Whether a WebSocket handshake with these headers comes from one of the site's own pages.

    The `Origin` must be listed in CSRF_TRUSTED_ORIGINS, or name one of ALLOWED_HOSTS with the
    host and port of the request's `Host` header (the port the socket was opened on; a Host
    without a port means the default port of the origin's scheme, as behind a proxy that
    passes `Host $host`). Loopback names (localhost, 127.0.0.1, [::1]) count as one host. A
    handshake with no Host header (test clients) is checked against ALLOWED_HOSTS alone.
    """
    found = dict(headers)
    try:
        origin = found[b"origin"].decode("latin-1").strip()
        parsed = urlsplit(origin)
        origin_port = parsed.port
    except (KeyError, ValueError):
        return False
    scheme, hostname = parsed.scheme.lower(), parsed.hostname
    if scheme not in DEFAULT_PORTS or not hostname:
        return False
    trusted = {o.lower().rstrip("/") for o in settings.CSRF_TRUSTED_ORIGINS}
    if f"{scheme}://{parsed.netloc.lower()}" in trusted:
        return True
    origin_host = f"[{hostname}]" if ":" in hostname else hostname
    allowed_hosts = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed_hosts:
        allowed_hosts = sorted(LOOPBACK)
    if not validate_host(origin_host, allowed_hosts):
        return False
    if b"host" not in found:
        return True
    request_host, request_port = split_domain_port(found[b"host"].decode("latin-1"))
    if not request_host:
        return False
    if (origin_port or DEFAULT_PORTS[scheme]) != (
        int(request_port) if request_port else DEFAULT_PORTS[scheme]
    ):
        return False
    return origin_host == request_host or {origin_host, request_host} <= LOOPBACK


class SameOriginValidator:
    """Refuses (HTTP 403 at the handshake) a WebSocket opened from any page but the site's own:
    the browser sends its cookies with every socket, so another site's page must not get one."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not origin_allowed(scope.get("headers", [])):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)


class InlineAuthMiddleware(AuthMiddleware):  # type: ignore[misc]
    """channels' AuthMiddleware, with the session and the user read as the sockets' own database
    work is (dominoes_site/db_hop.py: inline, and once more on a fresh connection if the
    database dropped the one it found) rather than through a hop to a worker thread: after a
    restart or a drain hundreds of sockets open at once, and each hop waited for the thread and
    for the GIL behind the event loop's work."""

    async def resolve_scope(self, scope: dict[str, Any]) -> None:
        scope["user"]._wrapped = await db_hop.run(get_user.func, scope)


def auth_stack(inner: Any) -> Any:
    """channels' AuthMiddlewareStack, with the user read inline (`InlineAuthMiddleware`)."""
    return CookieMiddleware(SessionMiddleware(InlineAuthMiddleware(inner)))


application = ProtocolTypeRouter(
    {
        "http": ApiRouter(django_asgi_app, ApiHandler()),
        "websocket": SameOriginValidator(auth_stack(URLRouter(websocket_urlpatterns))),
    }
)

# A daphne starting: the open-socket counts of this host's processes that are gone are dropped.
from dominoes_site import metrics  # noqa: E402

metrics.clear_dead_processes()

# Every incoming WebSocket frame stamped with when daphne read it (dominoes_site/arrival.py).
from dominoes_site import arrival  # noqa: E402

arrival.install()

# Short garbage-collection pauses for a long-lived server (dominoes_site/gc_policy.py).
from dominoes_site import gc_policy  # noqa: E402

gc_policy.install(settings.SERVER_GC_FULL_SECONDS)
