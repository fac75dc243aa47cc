"""Property tests from the API's schema alone (schemathesis): every operation of /api/schema,
with a token that may do everything, with one that may only read, and with none, with inputs
generated from the schema (valid and not): no answer is a server error, and every answer's
status, content type, headers and body are the ones the schema documents. (One check is left
out: that every schema-valid request is accepted. A move's action, a stake, an event's rules
are the game's to judge, not the schema's: a schema-valid move that breaks a rule is refused.)

The two live streams (`/api/stream/events`, `/api/tables/{id}/stream`) never end by
themselves: tests/api/test_streams.py checks them line by line instead."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import positive_data_acceptance

from tests.api.helpers import token_for
from tests.history.helpers import play, start_table


@pytest.fixture
def api_schema(db: None) -> Iterator[Any]:
    """The schema as the app serves it, the app called in-process (as Django's test client
    does: the test's database connection stays open between requests)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi("/api/schema", get_wsgi_application())
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def headers_for(kind: str, make_user: Any) -> dict[str, str]:
    """The Authorization header of a run: every scope, only read, or no token at all. The
    account has a game finished and one being played, so ids the generator finds lead
    somewhere."""
    alice, bob = make_user("Alice"), make_user("Bob")
    play(start_table([alice, bob], "fives", limit=50), [alice, bob], seed=3)
    start_table([alice, bob], "fives", limit=50)
    if kind == "none":
        return {}
    scopes = ("read",) if kind == "read" else ("read", "play", "challenge", "tournaments")
    return {"Authorization": f"Bearer {token_for(alice, *scopes)}"}


@pytest.fixture
def every_scope(make_user: Any) -> dict[str, str]:
    return headers_for("all", make_user)


@pytest.fixture
def read_only(make_user: Any) -> dict[str, str]:
    return headers_for("read", make_user)


@pytest.fixture
def no_token(make_user: Any) -> dict[str, str]:
    return headers_for("none", make_user)


RUN = settings(
    max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)


def every_operation(schema: Any, headers: dict[str, str]) -> list[str]:
    """Run each operation (the streams aside) on generated cases; the ones run."""
    ran = []
    for result in schema.get_all_operations():
        operation = result.ok()
        if "/stream" in operation.path:
            continue

        @given(case=operation.as_strategy())
        @RUN
        def check(case: Any) -> None:
            case.call_and_validate(headers=headers, excluded_checks=[positive_data_acceptance])

        check()
        ran.append(f"{operation.method.upper()} {operation.path}")
    return ran


def test_with_a_token_that_may_do_everything(api_schema: Any, every_scope: dict[str, str]) -> None:
    ran = every_operation(api_schema, every_scope)
    assert "POST /api/tables/{table_id}/move" in ran and len(ran) >= 20


def test_with_a_read_only_token(api_schema: Any, read_only: dict[str, str]) -> None:
    assert every_operation(api_schema, read_only)


def test_with_no_token(api_schema: Any, no_token: dict[str, str]) -> None:
    assert every_operation(api_schema, no_token)
