"""The lobby: its lists, filters and the create-table form with every refusal explained."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tables import services
from tables.models import Seat, Table

LOBBY = "/lobby/"


def create(client: Client, **fields: Any) -> Any:
    data = {
        "mode": "citizen",
        "shape": "one_on_one",
        "deal": 7,
        "target": 150,
        "bone_set": "double-six",
    }
    data.update(fields)
    return client.post(LOBBY, data)


@pytest.mark.django_db
def test_lobby_needs_a_login(client: Client) -> None:
    response = client.get(LOBBY)
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


@pytest.mark.django_db
def test_create_a_citizen_table(client: Client, alice: Any) -> None:
    client.force_login(alice)
    response = create(client, shape="partners", get_on=15, count_by=5)
    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.pk}/"
    assert table.settings["players"] == 4 and table.settings["partners"] is True
    assert (table.settings["get_on"], table.settings["count_by"]) == (15, 5)
    assert Seat.objects.get(table=table, number=0).user == alice


@pytest.mark.django_db
def test_create_head_to_head_and_gym(client: Client, alice: Any) -> None:
    client.force_login(alice)
    create(client, mode="threes", bone_set="double-nine", spinner="on", limit=300)
    threes = Table.objects.get(mode="threes")
    assert (threes.settings["set"], threes.settings["deal"], threes.settings["target"]) == (
        "double-nine",
        9,
        300,
    )
    assert threes.settings["spinner"] is True
    create(
        client,
        mode="inmate_gym",
        shape="cut_throat_3",
        clock=12,
        workout_kind="timed",
        workout_amount=60,
    )
    gym = Table.objects.get(mode="inmate_gym")
    assert gym.settings["clock"] == 12
    assert gym.settings["workout"] == {"kind": "timed", "amount": 60}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"mode": "inmate", "get_on": 0}, "get_on", "Inmate"),
        ({"shape": "partners", "deal": 9}, "deal", "9"),
        ({"clock": 10}, "clock", "Gym"),
        ({"mode": "citizen_gym", "clock": 61}, "clock", "60"),
        ({"mode": "citizen_gym", "clock": 2}, "clock", "3"),
        ({"mode": "fives", "limit": 40}, "limit", "50"),
        ({"mode": "fives", "shape": "partners"}, "shape", "two"),
        ({"mode": "checkers"}, "mode", "checkers"),
        ({"target": 200}, "target", "200"),
    ],
)
def test_refused_settings_are_explained_on_their_field(
    client: Client, alice: Any, fields: dict[str, Any], field: str, words: str
) -> None:
    client.force_login(alice)
    response = create(client, **fields)
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert field in errors, errors
    assert any(words in e for e in errors[field]), errors[field]
    assert not Table.objects.exists()


@pytest.mark.django_db
def test_lobby_lists_public_tables_and_filters_by_mode(
    client: Client, alice: Any, bob: Any
) -> None:
    public = services.table_create(host=alice, mode="citizen", players=2)
    services.table_create(host=alice, mode="fives")
    hidden = services.table_create(host=bob, mode="citizen", players=2, private=True)
    client.force_login(bob)
    html = client.get(LOBBY).content.decode()
    assert f'data-table="{public.pk}"' in html
    assert f'data-table="{hidden.pk}"' not in html
    assert "Fives" in html
    only = client.get(reverse("tables:lobby_tables"), {"mode": "fives"}).content.decode()
    assert f'data-table="{public.pk}"' not in only and "Fives" in only


@pytest.mark.django_db
def test_join_by_code(client: Client, alice: Any, bob: Any) -> None:
    table = services.table_create(host=alice, mode="citizen", players=2, private=True)
    client.force_login(bob)
    response = client.get(reverse("tables:join"), {"code": table.invite_code})
    assert response["Location"] == f"/tables/{table.pk}/?code={table.invite_code}"
    response = client.get(reverse("tables:join"), {"code": "nope"}, follow=True)
    assert b"No table has that invite code" in response.content


@pytest.mark.django_db(transaction=True)
async def test_the_lobby_socket_hears_of_public_tables_only(alice: Any, bob: Any) -> None:
    from asgiref.sync import sync_to_async

    from tests.tables.helpers import connect_lobby

    socket = await connect_lobby(bob)
    await sync_to_async(services.table_create)(host=alice, mode="citizen", players=2, private=True)
    public = await sync_to_async(services.table_create)(host=alice, mode="fives")
    message = await socket.receive_json_from(timeout=10)
    assert message["type"] == "table" and message["table"]["id"] == public.pk
    await sync_to_async(services.seat_take)(table_id=public.pk, user=bob, number=1)
    message = await socket.receive_json_from(timeout=10)
    assert [s["player"]["name"] if s["player"] else None for s in message["table"]["seats"]] == [
        "Alice",
        "Bob",
    ]
    assert await socket.receive_nothing(timeout=0.3)
    await socket.disconnect()
