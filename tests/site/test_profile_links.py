"""Players' names lead to their profiles wherever pages show them (the table page aside)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from house import services as house
from tests.history.helpers import play, start_table
from tests.tournaments.conftest import make_event
from tournaments import services as tournament_services
from tournaments.models import ORGANIZERS_GROUP

pytestmark = pytest.mark.django_db


def link(user: Any, name: str | None = None) -> str:
    return f'href="{reverse("accounts:profile", args=[user.pk])}">{name or user.display_name}</a>'


def test_history_links_every_player(client: Client, alice: Any, bob: Any, make_user: Any) -> None:
    carol, dan = make_user("Carol"), make_user("Dan")
    table = start_table([alice, bob, carol, dan], mode="citizen", partners=True, target=150)
    game = play(table, [alice, bob, carol, dan], seed=2)
    client.force_login(alice)
    page = client.get(reverse("history:game", args=[game.pk])).content.decode()
    result = page[page.index('id="result-title"') : page.index("</table>", page.index("result"))]
    for user in (alice, bob, carol, dan):
        assert link(user) in result
    # partners: one side, both named
    assert f'{link(alice)} & <a class="player-link" {link(carol)}' in result
    profile = client.get(reverse("accounts:profile", args=[alice.pk])).content.decode()
    games = profile[profile.index('id="history-title"') :]
    assert f'with <a class="player-link" {link(carol)}' in games
    assert link(bob) in games and link(dan) in games


def test_house_players_link_to_their_profiles_too(client: Client, alice: Any) -> None:
    table = house.practice_start(user=alice, mode="citizen", level="shark", players=2)
    bot = table.seats.get(number=1).user
    client.force_login(alice)
    home = client.get(reverse("home")).content.decode()
    assert f'<a class="player-link house" {link(bot)}' in home
    assert bot.shown_name == bot.display_name  # in English, the stored name
    assert client.get(reverse("accounts:profile", args=[bot.pk])).status_code == 200


def test_tournament_pages_link_the_organizer_and_entrants(
    client: Client, alice: Any, bob: Any, make_user: Any
) -> None:
    olga = make_user("Olga")
    olga.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    event = make_event(olga)
    tournament_services.entry_register(tournament_id=event.pk, user=bob)
    client.force_login(alice)
    page = client.get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert link(olga) in page
    assert link(bob) in page
