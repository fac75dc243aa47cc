"""Every /api/ answer says where its caller's rate limit stands (api.access.count), and is
counted in the metrics (dominoes_api_requests)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase

from dominoes_site.metrics import API_REQUESTS


class RateLimitHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
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
