"""Shared fixtures: named players (alice, bob), staff, and the real channel layer's database."""

from __future__ import annotations

import asyncio
import asyncio.runners
import datetime as dt
import signal
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings

from accounts.models import AgeStatus, User

PASSWORD = "correct-horse-battery-9"


def _cancel_all_tasks_bounded(loop: asyncio.AbstractEventLoop) -> None:
    """asyncio's own teardown waits for every cancelled task with no limit; a channel-layer poller
    that swallows its cancellation then hangs the whole run when pytest-asyncio closes the
    session's loop (seen now and then when a subset of the suite runs). Wait 5 s at most and
    name whatever did not stop, so a hang becomes a line on stderr."""
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    if not pending:
        return
    for task in pending:
        task.cancel()
    loop.run_until_complete(asyncio.wait(pending, timeout=5))
    stubborn = [t for t in pending if not t.done()]
    for task in stubborn:
        sys.stderr.write(f"\nasyncio task still running at loop close (left behind): {task!r}\n")


asyncio.runners._cancel_all_tasks = _cancel_all_tasks_bounded  # type: ignore[attr-defined]


def _dump_asyncio_tasks(signum: int, frame: Any) -> None:
    """`kill -USR1 <pytest>`: every asyncio task of the running loop, with where it waits, on
    stderr (a hung test's loop sits idle in select: py-spy cannot see its coroutines)."""
    loop = asyncio._get_running_loop()
    if loop is None:
        sys.stderr.write("\nno event loop running\n")
        return
    for task in asyncio.all_tasks(loop):
        sys.stderr.write(f"\n--- {task!r}\n")
        task.print_stack(file=sys.stderr)
    sys.stderr.flush()


signal.signal(signal.SIGUSR1, _dump_asyncio_tasks)


def clear_cache() -> None:
    """Empty the cache, and only the cache. On the production stack it shares its Redis
    database with the channel layer, and `cache.clear()` is a FLUSHDB: every open socket's
    membership would go too, and the layer (rightly) tells its sockets they may have missed
    messages, a `resync` a test reading exact messages does not expect."""
    from django.core.cache import caches

    from dominoes_site.cache import HouseRedisCache

    cache = caches["default"]
    if isinstance(cache, HouseRedisCache):
        client = cache._cache.get_client(write=True)
        keys = list(client.scan_iter(match=cache.make_key("*"), count=1000))
        if keys:
            client.delete(*keys)
        return
    cache.clear()


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """Rate limits live in the cache: every test starts with none used. So does the house's
    memory of which seats of a game are house players (ids come round again between tests),
    and the games and pictures this process keeps (tables/warm.py, tables/broadcast.py), and
    the watcher counts kept for the lobby's next message (tables/presence.py)."""

    from house import receivers
    from tables import broadcast, presence, warm

    clear_cache()
    receivers._HOUSE_AMONG.clear()
    warm.forget_all()
    broadcast.forget_pictures()
    presence.forget_lobby_counts()
    yield
    clear_cache()
    receivers._HOUSE_AMONG.clear()
    warm.forget_all()
    broadcast.forget_pictures()
    presence.forget_lobby_counts()


@pytest.fixture(autouse=True)
def _english_first() -> Iterator[None]:
    """Every test starts in the site's default language: one that renders a page in Spanish
    leaves this thread's language behind it."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture
def make_user(db: None) -> Callable[..., User]:
    def make(
        name: str,
        *,
        born: dt.date = dt.date(1990, 5, 17),
        staff: bool = False,
        status: str = AgeStatus.DECLARED,
    ) -> User:
        maker = User.objects.create_superuser if staff else User.objects.create_user
        return maker(
            f"{name.lower()}@example.com",
            PASSWORD,
            display_name=name,
            date_of_birth=born,
            age_status=status,
        )

    return make


@pytest.fixture
def alice(make_user: Callable[..., User]) -> User:
    return make_user("Alice")


@pytest.fixture
def bob(make_user: Callable[..., User]) -> User:
    return make_user("Bob")


@pytest.fixture
def warden(make_user: Callable[..., User]) -> User:
    return make_user("Warden", staff=True, status=AgeStatus.VERIFIED)


@pytest.fixture
def frozen_today(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[dt.date], None]]:
    """Set the server's 'now' to noon UTC on the given day."""
    from django.utils import timezone

    def freeze(day: dt.date) -> None:
        moment = dt.datetime(day.year, day.month, day.day, 12, 0, tzinfo=dt.UTC)
        monkeypatch.setattr(timezone, "now", lambda: moment)

    yield freeze


def broker_purge() -> None:
    """Empty the Celery queue before a test starts a real worker: timers and turns queued by
    earlier tests name games that are long gone. The embedded broker is a folder; Redis a list."""
    import shutil
    from pathlib import Path

    from dominoes_site.celery import app

    folder = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}).get("data_folder_in")
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
        Path(folder).mkdir(parents=True)
    else:
        app.control.purge()
