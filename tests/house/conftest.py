"""House players run their moves inline here: Celery tasks eager, no pace."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture
def eager(settings: Any) -> Iterator[None]:
    """Celery tasks run at once, in the process that queues them (after commit), with no pace."""
    from dominoes_site.celery import app

    settings.HOUSE_PLAYER_PACE_SECONDS = 0
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before
