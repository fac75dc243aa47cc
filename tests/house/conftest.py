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
    # Eager house moves run inside the on-commit hook of the action that passed them the turn;
    # in a socket's action that would be the event loop's own thread (db_hop), which never
    # happens with a real worker: keep the sockets' database work in channels' thread here.
    settings.SOCKET_DATABASE_INLINE = False
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before
