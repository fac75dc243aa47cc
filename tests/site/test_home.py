"""The home page gets a player to a game and back; greetings, dates and the play-money notice."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from django.utils import formats, translation

from house import services as house
from tables import services
from tables.models import Table
from tests.tournaments.conftest import make_event, quick_user
from tournaments.models import ORGANIZERS_GROUP

pytestmark = pytest.mark.django_db


def my_games(html: str) -> str:
    start = html.index('id="my-games-title"')
    return html[start : html.index("</section>", start)]


def test_home_lists_every_game_in_progress_with_a_way_back(
    client: Client, alice: Any, bob: Any, make_user: Any
) -> None:
    public = services.table_create(host=bob, mode="citizen", players=3)
    services.seat_take(table_id=public.pk, user=alice, number=1)
    private = services.table_create(host=alice, mode="fives", private=True)
    practice = house.practice_start(user=alice, mode="citizen", level="rookie", players=2)
    not_mine = services.table_create(host=bob, mode="threes")
    over = services.table_create(host=alice, mode="citizen", players=2)
    Table.objects.filter(pk=over.pk).update(status=Table.Status.ABORTED)
    client.force_login(alice)
    section = my_games(client.get(reverse("home")).content.decode())
    for table in (public, private, practice):
        assert f'data-table="{table.pk}"' in section
        assert f'href="{table.get_absolute_url()}">Return to the table</a>' in section
    for table in (not_mine, over):
        assert f'data-table="{table.pk}"' not in section
    assert section.count("Return to the table") == 3
    practice_row = section[section.index(f'data-table="{practice.pk}"') :]
    assert "Practice" in practice_row[:400]
    bot = practice.seats.exclude(user=alice).get().user
    assert f'href="{reverse("accounts:profile", args=[bot.pk])}"' in practice_row
    public_row = section[section.index(f'data-table="{public.pk}"') :]
    assert f'href="{reverse("accounts:profile", args=[bob.pk])}">Bob</a>' in public_row[:900]
    assert "Waiting for 1 player" in public_row[:900]


def test_it_is_your_turn_is_said(client: Client, alice: Any) -> None:
    from engine import GameState

    for _ in range(30):
        table = house.practice_start(user=alice, mode="citizen", level="rookie", players=2)
        if GameState.from_json(table.games.get().state).to_act == 0:
            break
    else:
        pytest.skip("the house led every time")
    client.force_login(alice)
    section = my_games(client.get(reverse("home")).content.decode())
    row = section[section.index(f'data-table="{table.pk}"') :]
    assert "Your turn" in row[:600]


def test_one_obvious_play_entry(client: Client, alice: Any) -> None:
    client.force_login(alice)
    page = client.get(reverse("home")).content.decode()
    assert f'<a class="btn btn-play" href="{reverse("tables:lobby")}">Play</a>' in page
    assert "You are not at any table right now." in page
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    assert ">Jugar</a>" in client.get(reverse("home")).content.decode()


def test_welcome_back_is_not_said_right_after_sign_up(client: Client) -> None:
    from accounts.models import User

    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    response = client.post(
        reverse("account_signup"),
        {
            "email": "rosa@example.com",
            "display_name": "Rosa",
            "date_of_birth": "1990-03-04",
            "password1": "bones-on-the-table-7",
            "password2": "bones-on-the-table-7",
            "confirm_adult": "on",
            "time_zone": "Europe/Madrid",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    home = client.get(reverse("home")).content.decode()
    assert "Welcome to the house, Rosa." in home and "Welcome back" not in home
    rosa = User.objects.get(email="rosa@example.com")
    later = Client()
    later.force_login(rosa)
    assert "Welcome back, Rosa." in later.get(reverse("home")).content.decode()


def test_one_date_format_across_the_site() -> None:
    moment = dt.datetime(2026, 12, 1, 14, 5, tzinfo=dt.UTC)
    with translation.override("en"):
        assert formats.date_format(moment, "DATETIME_FORMAT") == "1 Dec 2026, 14:05"
        assert formats.date_format(moment, "SHORT_DATETIME_FORMAT") == "1 Dec 2026, 14:05"
        assert formats.date_format(moment, "DATE_FORMAT") == "1 Dec 2026"
        assert formats.date_format(moment, "SHORT_DATE_FORMAT") == "1 Dec 2026"
        assert formats.time_format(moment, "TIME_FORMAT") == "14:05"
    with translation.override("es"):
        assert formats.date_format(moment, "DATETIME_FORMAT") == "1 dic 2026, 14:05"
        assert formats.date_format(moment, "SHORT_DATE_FORMAT") == "1 dic 2026"


def test_no_page_writes_a_m_or_p_m(client: Client, alice: Any) -> None:
    """Tournament times were "2 p.m." (and "p.m.." at the end of a sentence)."""
    organizer = quick_user("Olga")
    organizer.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    event = make_event(organizer)
    client.force_login(alice)
    for url in (reverse("tournaments:list"), reverse("tournaments:detail", args=[event.pk])):
        page = client.get(url).content.decode()
        assert not re.search(r"\b[ap]\.m\.", page), url
        assert re.search(r"\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d", page), url


@pytest.mark.parametrize("name", ["home", "tables:lobby", "ledger:locker", "ledger:commissary"])
def test_the_play_money_notice_is_said_once_per_page(client: Client, alice: Any, name: str) -> None:
    client.force_login(alice)
    page = client.get(reverse(name)).content.decode()
    assert page.count("Play money only.") == 1
    assert page.count("no cash value") == 1


def test_the_table_page_says_it_once_too(client: Client, alice: Any) -> None:
    table = services.table_create(host=alice, mode="citizen", players=2, stake=None)
    client.force_login(alice)
    page = client.get(table.get_absolute_url()).content.decode()
    assert page.count("Play money only.") == 1
