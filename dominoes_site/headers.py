"""Security headers on every page: a Content-Security-Policy and a Permissions-Policy.

The pages are served without a build step, and none needs an inline script or style: scripts
and styles are files under /static/, data reaches scripts through `data-` attributes or
`<script type="application/json">` blocks (json_script), which are never executed. So the policy
allows only this origin, plus:

- `connect-src` the page's own host over ws: and wss: (table, lobby and tournament sockets;
  `'self'` alone does not cover WebSockets in every browser);
- `img-src data:` for images written inline in CSS or SVG.

Django's admin (5.2) runs under the same policy: its scripts are files and its data attributes.
Its one inline `<style>` is written only for a change list with `actions_on_top` and
`actions_on_bottom` both off, which no admin here sets.

`Permissions-Policy` turns off the browser features the house never uses; the table may play
sounds and copy a link (clipboard) from its own pages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponseBase
from django.utils.decorators import sync_and_async_middleware

CSP_DIRECTIVES: dict[str, list[str]] = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "media-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}

PERMISSIONS_POLICY = ", ".join(
    [
        "accelerometer=()",
        "autoplay=(self)",
        "camera=()",
        "clipboard-write=(self)",
        "display-capture=()",
        "fullscreen=(self)",
        "geolocation=()",
        "gyroscope=()",
        "magnetometer=()",
        "microphone=()",
        "midi=()",
        "payment=()",
        "usb=()",
    ]
)


def content_security_policy(host: str | None) -> str:
    """The policy for a page served to `host` (None: the host was not one we serve)."""
    directives = {name: list(sources) for name, sources in CSP_DIRECTIVES.items()}
    if host:
        directives["connect-src"] += [f"ws://{host}", f"wss://{host}"]
    return "; ".join(f"{name} {' '.join(sources)}" for name, sources in directives.items())


def add_policies(request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
    """The policies on `response`, unless it carries its own."""
    try:
        host: str | None = request.get_host()
    except DisallowedHost:
        host = None
    response.headers.setdefault("Content-Security-Policy", content_security_policy(host))
    response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
    return response


def response_middleware(
    after: Callable[[HttpRequest, HttpResponseBase], HttpResponseBase],
) -> Callable[[Any], Any]:
    """A middleware that passes every response through `after(request, response)`, in the
    request's own mode (sync or async: the API's chain is all async, api/asgi.py)."""

    @sync_and_async_middleware
    def middleware_factory(get_response: Any) -> Any:
        if iscoroutinefunction(get_response):

            async def middleware_async(request: HttpRequest) -> HttpResponseBase:
                return after(request, await get_response(request))

            return middleware_async

        def middleware(request: HttpRequest) -> HttpResponseBase:
            return after(request, get_response(request))

        return middleware

    return middleware_factory


#: Adds the policies to every response that does not already carry its own.
SecurityHeadersMiddleware = response_middleware(add_policies)
