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

from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse

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


class SecurityHeadersMiddleware:
    """Adds the policies to every response that does not already carry its own."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        try:
            host: str | None = request.get_host()
        except DisallowedHost:
            host = None
        response.headers.setdefault("Content-Security-Policy", content_security_policy(host))
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response
