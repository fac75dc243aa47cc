"""Social fixtures: English answers, and the notices each test's services send after commit."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import translation


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    with translation.override("en"):
        yield


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str, dict[str, Any]]]:
    """The notices sent (user id, kind, data), as they leave after commit."""
    from social import notices

    out: list[tuple[int, str, dict[str, Any]]] = []

    def record(messages: list[tuple[str, dict[str, Any]]]) -> None:
        for group, message in messages:
            assert message["type"] == "notice.send"
            out.append((int(group.split(".")[1]), message["kind"], message["data"]))

    monkeypatch.setattr(notices, "group_send_many", record)
    return out
