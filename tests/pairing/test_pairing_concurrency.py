"""200 players join one pool from eight threads while two sweeps pair it at the same time: nobody
is seated twice, every table is full, and once ranges are wide enough everyone is seated.

Each thread has its own database connection on a database the test really commits to
(transaction=True), so the compare-and-set on the waiting rows is what keeps them apart."""

from __future__ import annotations

import datetime as dt
import random
import threading
from collections import Counter
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from accounts.models import AgeStatus, User
from pairing import services
from pairing.cells import cell_parse
from pairing.models import Match, PoolEntry
from ratings.models import Rating
from ratings.pools import pool_for
from tables.models import Seat, Table

pytestmark = pytest.mark.django_db(transaction=True)

PLAYERS = 200
JOINERS = 8


def _players(n: int, pool: str) -> list[User]:
    rng = random.Random(16)
    User.objects.bulk_create(
        User(
            email=f"p{i}@example.com",
            display_name=f"Player {i}",
            date_of_birth=dt.date(1990, 1, 1),
            age_status=AgeStatus.DECLARED,
        )
        for i in range(n)
    )
    users = list(User.objects.filter(email__startswith="p", house_level="").order_by("pk"))
    Rating.objects.bulk_create(
        Rating(user=u, pool=pool, rating=rng.uniform(1300, 1700), deviation=60, games=20)
        for u in users
    )
    return users


def _in_thread(work: Any, errors: list[BaseException]) -> threading.Thread:
    def run() -> None:
        try:
            work()
        except BaseException as exc:  # reported by the test
            errors.append(exc)
        finally:
            connection.close()

    return threading.Thread(target=run)


@pytest.mark.parametrize("key", ["citizen:1v1:0", "citizen:ct4:0"])
def test_200_players_joining_from_threads_with_two_sweeps_are_each_seated_once(
    key: str, settings: Any
) -> None:
    settings.PAIRING_CONFIRM_SECONDS = 3600  # nobody presses Ready here: no seat is given away
    settings.PAIRING_STALE_SECONDS = 3600  # and no page asks how the wait goes
    cell = cell_parse(key)
    users = _players(PLAYERS, pool_for(cell.settings()).value)
    errors: list[BaseException] = []
    joined = threading.Event()
    start = threading.Barrier(JOINERS + 2)

    def joiner(mine: list[User]) -> Any:
        def work() -> None:
            start.wait()
            for user in mine:
                services.pool_join(user=user, cell=cell)

        return work

    def sweeper() -> None:
        start.wait()
        while not joined.is_set():
            services.pairing_sweep()

    joiners = [_in_thread(joiner(users[i::JOINERS]), errors) for i in range(JOINERS)]
    sweepers = [_in_thread(sweeper, errors) for _ in range(2)]
    for thread in joiners + sweepers:
        thread.start()
    for thread in joiners:
        thread.join(300)
    joined.set()
    for thread in sweepers:
        thread.join(300)
    assert not any(t.is_alive() for t in joiners + sweepers)
    assert not errors, errors

    # Ranges wide enough for everyone (ratings 1300 to 1700, ±500 at most): all are seated.
    # (The pool alone: the tables' own checks would give the seats of nobody ready away.)
    services.pool_pair(cell=cell, now=timezone.now() + dt.timedelta(minutes=5))

    ids = [u.pk for u in users]
    entries = list(PoolEntry.objects.filter(user_id__in=ids))
    assert len(entries) == PLAYERS  # each joined once
    assert Counter(e.status for e in entries) == {"seated": PLAYERS}
    seats = list(Seat.objects.filter(user_id__in=ids).values_list("user_id", "table_id"))
    assert len(seats) == PLAYERS  # nobody sits twice, anywhere
    assert {uid for uid, _t in seats} == set(ids)
    by_entry = {e.user_id: e.match.table_id for e in PoolEntry.objects.select_related("match")}
    assert dict(seats) == by_entry  # each sits at the table their entry names
    tables = Counter(table for _uid, table in seats)
    assert len(tables) == PLAYERS // cell.players
    assert set(tables.values()) == {cell.players}  # every table full
    assert Table.objects.count() == Match.objects.count() == len(tables)
    assert not Seat.objects.filter(table__in=tables, user=None).exists()
    # every group fit the range of whoever had waited longest, when it was made
    for match in Match.objects.prefetch_related("entries"):
        group = [
            services.Waiting(e.pk, e.user_id, e.rating, e.joined_at) for e in match.entries.all()
        ]
        assert services.group_fits(group, max(e.seated_at for e in match.entries.all()))
