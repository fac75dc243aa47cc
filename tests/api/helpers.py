"""Calling the public API as a program does: a token in the Authorization header."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client

from api.tokens import token_create

#: Headers an /api/ answer carries the same through every way in (tests/api/test_asgi.py,
#: tests/api/test_move_route.py).
SHARED_HEADERS = (
    "Content-Type",
    "Content-Language",
    "Content-Security-Policy",
    "Permissions-Policy",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "Cross-Origin-Opener-Policy",
    "X-RateLimit-Limit",
    "X-RateLimit-Bucket",
)


def token_for(user: Any, *scopes: str, name: str = "my bot") -> str:
    return token_create(user=user, name=name, scopes=list(scopes or ("read",)))[1]


def call(method: str, path: str, token: str | None = None, body: Any = None, **headers: Any) -> Any:
    client = Client()
    if token is not None:
        headers["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    kwargs: dict[str, Any] = dict(headers)
    if body is not None:
        kwargs["data"] = json.dumps(body)
        kwargs["content_type"] = "application/json"
    return getattr(client, method.lower())(path, **kwargs)


def lines(response: Any) -> list[dict[str, Any]]:
    """An NDJSON answer's lines."""
    assert response.status_code == 200, response.content
    text = b"".join(response.streaming_content).decode()
    return [json.loads(line) for line in text.splitlines() if line.strip()]
