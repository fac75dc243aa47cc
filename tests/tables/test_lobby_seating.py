"""Getting to a game from the lobby: "Sit" seats at once, the host goes back to their own table,
names lead to profiles, and on a phone Practice and Create a table are a tap away."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tables import services
from tables.models import Abandonment, Seat, Table

pytestmark = pytest.mark.django_db


def sit(client: Client, table: Table, **extra: Any) -> Any:
    return client.post(reverse("tables:sit", args=[table.pk]), **extra)


def row_of(html: str, table: Table) -> str:
    match = re.search(rf'<li class="table-row[^"]*" data-table="{table.pk}">(.*?)</li>', html, re.S)
    assert match, f"table {table.pk} is not listed"
    return match.group(1)


def test_sit_takes_the_first_free_seat_at_once(client: Client, alice: Any, bob: Any) -> None:
    table = services.table_create(host=alice, mode="citizen", players=3)
    client.force_login(bob)
    response = sit(client, table)
    assert response.status_code == 302 and response["Location"] == table.get_absolute_url()
    assert Seat.objects.get(table=table, user=bob).number == 1
    # a second press (a double tap) changes nothing and still goes to the table
    again = sit(client, table)
    assert again["Location"] == table.get_absolute_url()
    assert Seat.objects.filter(table=table, user=bob).count() == 1


def test_sit_is_a_post_with_its_csrf_token(alice: Any, bob: Any) -> None:
    table = services.table_create(host=alice, mode="citizen", players=2)
    client = Client(enforce_csrf_checks=True)
    client.force_login(bob)
    assert client.get(reverse("tables:sit", args=[table.pk])).status_code == 405
    assert sit(client, table).status_code == 403  # no token: refused
    page = client.get(reverse("tables:lobby")).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', row_of(page, table))
    assert token, "the Sit form carries its token"
    response = sit(client, table, data={"csrfmiddlewaretoken": token.group(1)})
    assert response.status_code == 302
    assert Seat.objects.get(table=table, number=1).user == bob


def test_a_full_or_started_table_is_explained_back_in_the_lobby(
    client: Client, alice: Any, bob: Any, make_user: Any
) -> None:
    carol = make_user("Carol")
    table = services.table_create(host=alice, mode="citizen", players=2)
    services.seat_take(table_id=table.pk, user=carol, number=1)
    client.force_login(bob)
    response = sit(client, table, follow=True)
    assert response.redirect_chain[-1][0] == reverse("tables:lobby")
    assert "That table is full now" in response.content.decode()
    assert not Seat.objects.filter(table=table, user=bob).exists()


def test_a_player_made_to_wait_is_told_why(client: Client, alice: Any, bob: Any) -> None:
    table = services.table_create(host=alice, mode="citizen", players=2)
    for _ in range(2):
        left = services.table_create(host=alice, mode="citizen", players=2, private=True)
        Abandonment.objects.create(user=bob, game=left.games.get())
    client.force_login(bob)
    page = sit(client, table, follow=True).content.decode()
    assert "you can sit again in" in page
    assert not Seat.objects.filter(table=table, user=bob).exists()


def test_nobody_sits_at_a_private_table_from_the_lobby(
    client: Client, alice: Any, bob: Any
) -> None:
    table = services.table_create(host=alice, mode="citizen", players=2, private=True)
    client.force_login(bob)
    page = sit(client, table, follow=True).content.decode()
    assert "There is no such table." in page
    assert not Seat.objects.filter(table=table, user=bob).exists()


def test_the_host_sees_their_own_table_not_sit(client: Client, alice: Any, bob: Any) -> None:
    table = services.table_create(host=alice, mode="citizen", players=3)
    client.force_login(alice)
    mine = row_of(client.get(reverse("tables:lobby_tables")).content.decode(), table)
    assert "Your table" in mine and "Sit (" not in mine
    assert f'href="{table.get_absolute_url()}"' in mine
    client.force_login(bob)
    theirs = row_of(client.get(reverse("tables:lobby_tables")).content.decode(), table)
    assert "Sit (2 seats free)" in theirs and "Your table" not in theirs
    sit(client, table)
    seated = row_of(client.get(reverse("tables:lobby_tables")).content.decode(), table)
    assert "Your table" in seated and "Sit (" not in seated


def test_names_in_the_lobby_link_to_profiles(client: Client, alice: Any, bob: Any) -> None:
    table = services.table_create(host=alice, mode="citizen", players=3)
    client.force_login(bob)
    row = row_of(client.get(reverse("tables:lobby")).content.decode(), table)
    profile = reverse("accounts:profile", args=[alice.pk])
    assert f'href="{profile}">Alice</a>' in row


def test_practice_and_create_are_reachable_from_the_top(client: Client, alice: Any) -> None:
    for n in range(3):  # enough tables to scroll past on a phone
        services.table_create(host=alice, mode="citizen", players=2 + n % 2)
    client.force_login(alice)
    page = client.get(reverse("tables:lobby")).content.decode()
    jump = page.index('class="lobby-jump"')
    assert jump < page.index('id="lobby-list"')
    assert 'href="#practice"' in page[jump:] and 'href="#create"' in page[jump:]
    assert 'id="practice"' in page and 'id="create"' in page
