"""Every /api/ answer says where its caller's rate limit stands (api.access.count), and is
counted in the metrics (dominoes_api_requests). In either mode: the site's chain (settings) runs
it in the request's mode, the API's own chain (api/asgi.py) async."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseBase

from dominoes_site.headers import response_middleware
from dominoes_site.metrics import API_REQUESTS


def limit_headers(request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
    """The rate limit's headers on an /api/ answer, and the answer counted."""
    headers = getattr(request, "api_limit_headers", None)
    if headers is not None:
        for name, value in headers.items():
            if name not in response:
                response[name] = value
    if request.path.startswith("/api/"):
        API_REQUESTS.labels(
            bucket=(headers or {}).get("X-RateLimit-Bucket", "none"),
            status=f"{response.status_code // 100}xx",
        ).inc()
    return response


RateLimitHeadersMiddleware = response_middleware(limit_headers)
