"""My games: a player's tables in progress and finished games, one tap from any page (the
header's "My games" with a count; "History" in the menu)."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from history.services import games_archive_pending
from house import services as house
from tables import services
from tests.history.helpers import play, start_table

pytestmark = pytest.mark.django_db


def test_every_page_has_my_games_with_a_count_and_history(client: Client, alice: Any) -> None:
    services.table_create(host=alice, mode="fives", private=True)
    house.practice_start(user=alice, mode="citizen", level="rookie", players=2)
    client.force_login(alice)
    for name in ("home", "rules", "tables:lobby", "accounts:my_profile"):
        html = client.get(reverse(name), follow=True).content.decode()
        assert 'class="my-games-link"' in html, name
        assert 'data-my-games="2"' in html
        assert f'href="{reverse("my_games")}#games">History</a>' in html
        assert 'aria-controls="site-menu"' in html and 'aria-expanded="false"' in html


def test_no_game_in_play_shows_no_count(client: Client, alice: Any) -> None:
    client.force_login(alice)
    html = client.get(reverse("rules")).content.decode()
    link = html[
        html.index('class="my-games-link"') : html.index("</a>", html.index("my-games-link"))
    ]
    assert 'data-my-games="0"' in link
    assert 'class="count"' not in link  # no "0" badge
    assert "None of your games is being played now" in link


def test_a_visitor_has_no_my_games(client: Client) -> None:
    html = client.get(reverse("rules")).content.decode()
    assert "my-games-link" not in html
    assert "menu-toggle" in html  # the menu button is for everyone
    assert client.get(reverse("my_games")).status_code == 302


def test_my_games_lists_games_in_progress_and_finished_ones(
    client: Client, alice: Any, bob: Any
) -> None:
    finished = play(start_table([alice, bob], "fives", limit=50), [alice, bob], seed=6)
    games_archive_pending()
    waiting = services.table_create(host=alice, mode="threes")
    client.force_login(alice)
    html = client.get(reverse("my_games")).content.decode()
    assert f'data-table="{waiting.pk}"' in html
    assert "Return to the table" in html
    assert f'href="{reverse("history:game", args=[finished.pk])}"' in html
    assert 'id="history-title">History<' in html


def test_my_games_in_spanish(client: Client, alice: Any) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    client.force_login(alice)
    html = client.get(reverse("my_games")).content.decode()
    assert "Mis partidas" in html
