"""Every /api/ answer says where its caller's rate limit stands (api.access.count)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase


class RateLimitHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        for name, value in getattr(request, "api_limit_headers", {}).items():
            if name not in response:
                response[name] = value
        return response
