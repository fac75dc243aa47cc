"""Ratings where a player is: leaderboards, the profile's charts, the game page, the lobby, the
table's picture; and the casual choice of the create form."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from ratings.models import Rating, RatingChange
from ratings.pools import Pool
from ratings.services import game_rate
from tables import selectors as table_selectors
from tables import services as tables
from tables.models import Table
from tests.history.helpers import play, start_table
from tests.ratings.helpers import finished_game, set_rating

pytestmark = pytest.mark.django_db


@pytest.fixture
def players(make_user: Callable[..., User]) -> list[User]:
    return [make_user(f"Player{n:02d}") for n in range(14)]


def test_the_leaderboard_lists_active_players_with_enough_games(
    players: list[User], client: Client
) -> None:
    pool = Pool.THREES
    now = timezone.now()
    for n, p in enumerate(players[:10]):
        set_rating(p, pool, 1400 + 20 * n, 60, games=10 + n, last_game_at=now)
    set_rating(players[10], pool, 2100, 60, games=9, last_game_at=now)  # too few games
    set_rating(players[11], pool, 2000, 60, games=50, last_game_at=now - dt.timedelta(days=31))
    set_rating(players[12], pool, 1900, 60, games=50, last_game_at=now)  # another pool
    Rating.objects.filter(user=players[12]).update(pool=Pool.FIVES)
    viewer = players[3]
    client.force_login(viewer)
    page = client.get(reverse("ratings:pool", args=[pool.value]))
    assert page.status_code == 200
    top = page.context["top"]
    assert [r["user"] for r in top] == list(reversed(players[:10]))
    assert [r["rank"] for r in top] == list(range(1, 11))
    assert page.context["standing"]["rank"] == 7 and page.context["standing"]["of"] == 10
    html = page.content.decode()
    assert "Player10" not in html and "Player11" not in html and "Player12" not in html
    assert reverse("ratings:leaderboard") in html  # in the site's navigation


def test_where_a_player_not_listed_stands(players: list[User], client: Client) -> None:
    set_rating(players[0], Pool.FIVES, 1550, 90, games=7)
    client.force_login(players[0])
    page = client.get(reverse("ratings:pool", args=[Pool.FIVES.value]))
    assert page.context["standing"]["why"] == "few_games"
    assert "3 more rated games in this pool and you are listed." in page.content.decode()
    assert client.get(reverse("ratings:pool", args=["chess"])).status_code == 404


def test_the_weeks_climbers(players: list[User], client: Client) -> None:
    alice, bob, carol = players[:3]
    for _ in range(3):
        game_rate(game=finished_game([alice, bob], winner=0))
    game_rate(game=finished_game([carol, bob], winner=0))
    client.force_login(carol)
    page = client.get(reverse("ratings:pool", args=[Pool.FIVES.value]))
    climbers = page.context["climbers"]
    assert [c["user"] for c in climbers] == [alice, carol]  # Bob lost every game
    assert climbers[0]["games"] == 3 and climbers[0]["gain"] > climbers[1]["gain"] > 0


def test_the_leaderboard_in_spanish(players: list[User], client: Client) -> None:
    players[0].language = "es"
    players[0].save(update_fields=["language"])
    client.force_login(players[0])
    client.cookies["django_language"] = "es"
    page = client.get(reverse("ratings:leaderboard"), HTTP_ACCEPT_LANGUAGE="es")
    html = page.content.decode()
    assert "Clasificaciones" in html and "Dónde estás" in html


def test_the_profile_draws_a_rating_chart_per_pool(players: list[User], client: Client) -> None:
    alice, bob = players[:2]
    game_rate(game=finished_game([alice, bob], winner=0))
    game_rate(game=finished_game([alice, bob], winner=1))
    game_rate(game=finished_game([alice, bob], mode="threes", winner=0))
    client.force_login(bob)
    html = client.get(reverse("accounts:profile", args=[alice.pk])).content.decode()
    assert html.count('class="rating-chart"') == 2  # Fives and Threes
    assert html.count("<polyline") >= 2
    assert "2 rated games" in html


def test_the_game_page_shows_each_change(players: list[User], client: Client) -> None:
    alice, bob = players[:2]
    table = start_table([alice, bob], mode="fives", limit=50)
    game = play(table, [alice, bob], seed=5)  # rated by game_finished, in its transaction
    changes = {c.user_id: c for c in RatingChange.objects.filter(rated_game__game=game)}
    client.force_login(alice)
    html = client.get(reverse("history:game", args=[game.pk])).content.decode()
    assert "Rated in Fives" in html
    for c in changes.values():
        assert f"1500 → {round(c.rating_after)}" in html
        assert f"({c.delta:+d})" in html


def test_the_table_picture_carries_ratings_and_changes(players: list[User]) -> None:
    alice, bob = players[:2]
    set_rating(alice, Pool.FIVES, 1612.4, 60)
    game = finished_game([alice, bob], winner=0)
    table = game.table
    for n, user in enumerate([alice, bob]):
        table.seats.create(number=n, user=user)
    game_rate(game=game)
    picture = table_selectors.table_picture(table, game)
    assert picture["rating"] == {"pool": "fives", "rated": True}
    seats = {s["number"]: s["player"]["rating"] for s in picture["seats"]}
    assert seats[0]["provisional"] is False and seats[0]["rating"] > 1612
    assert seats[1] == {"rating": seats[1]["rating"], "provisional": True}
    changes = picture["rating_changes"]
    assert changes["rated"] and changes["seats"][0]["delta"] > 0 > changes["seats"][1]["delta"]


def test_the_lobby_shows_ratings_and_creates_casual_tables(
    players: list[User], client: Client
) -> None:
    alice = players[0]
    set_rating(alice, Pool.FIVES, 1733, 50)
    tables.table_create(host=alice, mode="fives")
    client.force_login(players[1])
    html = client.get(reverse("tables:lobby")).content.decode()
    assert "rating-chip" in html and "1733" in html
    response = client.post(
        reverse("tables:lobby"),
        {"mode": "threes", "shape": "one_on_one", "limit": 150, "casual": "on", "stake": "0"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    table = Table.objects.get(host=players[1])
    assert table.rated is False
