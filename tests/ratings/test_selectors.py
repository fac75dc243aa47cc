"""The public read API: a player's rating in a pool as of now."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from ratings.models import Rating
from ratings.pools import Pool
from ratings.selectors import PlayerRating, player_rating, player_ratings

pytestmark = pytest.mark.django_db


def test_a_player_with_no_rating_reads_as_new(make_user: Callable[..., User]) -> None:
    alice = make_user("Alice")
    r = player_rating(alice.pk, Pool.FIVES)
    assert r == PlayerRating(1500, 350, 0.06, 0, True)
    assert r.shown == "1500?"


def test_deviation_grows_with_time_since_the_last_game(make_user: Callable[..., User]) -> None:
    alice, bob = make_user("Alice"), make_user("Bob")
    now = timezone.now()
    Rating.objects.create(
        user=alice,
        pool=Pool.THREES,
        rating=1720,
        deviation=60,
        volatility=0.06,
        games=30,
        last_game_at=now,
    )
    Rating.objects.create(
        user=bob,
        pool=Pool.THREES,
        rating=1720,
        deviation=60,
        volatility=0.06,
        games=30,
        last_game_at=now - dt.timedelta(days=400),
    )
    fresh, away = player_rating(alice.pk, Pool.THREES), player_rating(bob.pk, Pool.THREES)
    assert fresh.deviation == pytest.approx(60, abs=0.01) and not fresh.provisional
    assert fresh.shown == "1720"
    assert away.deviation > 110 and away.provisional
    assert away.rating == 1720 and away.games == 30


def test_many_players_in_one_query(make_user: Callable[..., User]) -> None:
    alice, bob, carol = make_user("Alice"), make_user("Bob"), make_user("Carol")
    Rating.objects.create(user=alice, pool=Pool.ALLFIVES_1V1, rating=1600, deviation=90)
    Rating.objects.create(user=bob, pool=Pool.FIVES, rating=1400, deviation=90)
    with CaptureQueriesContext(connection) as queries:
        got = player_ratings([alice.pk, bob.pk, carol.pk], Pool.ALLFIVES_1V1)
    assert len(queries) == 1
    assert got[alice.pk].rating == 1600 and not got[alice.pk].provisional
    assert got[bob.pk].rating == 1500 and got[bob.pk].games == 0  # a Fives rating is not this pool
    assert got[carol.pk].provisional
