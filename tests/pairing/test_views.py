"""The grid's requests: join (seated at once when someone fits), leave, and the status JSON the
waiting panel polls; the grid and the panel on the home page and the lobby, in both languages."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from pairing.models import PoolEntry

pytestmark = pytest.mark.django_db


def client_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_pressing_a_cell_waits_then_the_second_player_goes_to_the_table(
    alice: Any, bob: Any
) -> None:
    first = client_for(alice)
    page = first.get("/")
    assert 'id="play-now"' in page.content.decode()
    response = first.post("/play/join/", {"cell": "fives:1v1", "stake": "10", "next": "/"})
    assert response.status_code == 302 and response["Location"] == "/#play-now"
    status = first.get("/play/status/").json()
    assert status["state"] == "waiting" and status["pool_size"] == 1
    assert status["cell"] == "fives:1v1:10" and status["range"] >= 100  # ±100, widening
    assert status["label"] == "Fives, one on one, for $10"
    home = first.get("/").content.decode()
    assert "Looking for players: Fives, one on one, for $10" in home
    assert 'id="pool-size" aria-live="polite">1<' in home
    assert "Leave the pool" in home

    second = client_for(bob)
    response = second.post("/play/join/", {"cell": "fives:1v1", "stake": "10", "next": "/lobby/"})
    table = PoolEntry.objects.get(user=bob).match.table
    assert response["Location"] == f"/tables/{table.pk}/"
    status = first.get("/play/status/").json()
    assert status["state"] == "seated" and status["url"] == f"/tables/{table.pk}/"
    assert "Your table is ready." in first.get("/lobby/").content.decode()
    # the waiting page goes to the table by way of /play/table/, which says how long is left
    response = first.get("/play/table/")
    assert response["Location"] == f"/tables/{table.pk}/"
    page = first.get(response["Location"]).content.decode()
    assert re.search(r"Your table is ready: press Ready within \d+ seconds", page)
    assert client_for(bob).get("/play/status/").json()["ready"] is False


def test_leaving_and_refusals_are_explained(alice: Any) -> None:
    client = client_for(alice)
    client.post("/play/join/", {"cell": "citizen:partners", "stake": "0", "next": "/lobby/"})
    response = client.post("/play/leave/", {"next": "/lobby/"}, follow=True)
    assert "You left the pool." in response.content.decode()
    assert client.get("/play/status/").json()["state"] == "idle"
    assert client.get("/play/table/")["Location"] == "/#play-now"  # no table: back to the grid

    response = client.post("/play/join/", {"cell": "fives:ct4", "next": "/"}, follow=True)
    assert "Choose a game from the grid." in response.content.decode()
    response = client.post("/play/join/", {"cell": "fives:1v1", "stake": "7"}, follow=True)
    assert "Choose a stake from the list." in response.content.decode()
    assert not PoolEntry.objects.filter(status="waiting").exists()


def test_the_way_back_never_leaves_the_site(alice: Any) -> None:
    client = client_for(alice)
    response = client.post(
        "/play/join/", {"cell": "citizen:1v1", "next": "https://elsewhere.example/"}
    )
    assert response["Location"] == "/#play-now"


def test_only_players_and_only_posts(client: Client, alice: Any) -> None:
    assert client.get("/play/status/").status_code == 302  # to log in
    assert client.post("/play/join/", {"cell": "citizen:1v1"}).status_code == 302
    assert not PoolEntry.objects.exists()
    assert client_for(alice).get("/play/join/").status_code == 405


def test_the_grid_in_spanish(alice: Any) -> None:
    client = client_for(alice)
    alice.language = "es"
    alice.save(update_fields=["language"])
    client.cookies["django_language"] = "es"
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Jugar ya" in page and "Todos contra todos 3" in page
    client.post("/play/join/", {"cell": "threes:1v1", "stake": "0", "next": "/"})
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Buscando jugadores: Treses, uno contra uno, sin apuesta" in page


def test_staff_see_the_pools_in_admin_read_only(warden: Any, alice: Any, bob: Any) -> None:
    from pairing import services

    services.pool_join(user=alice, cell="citizen:1v1:0")
    services.pool_join(user=bob, cell="citizen:1v1:0")
    client = client_for(warden)
    for name in ("poolentry", "match"):
        page = client.get(f"/admin/pairing/{name}/")
        assert page.status_code == 200
        assert "citizen:1v1:0" in page.content.decode()
    assert client.get("/admin/pairing/poolentry/add/").status_code == 403


@pytest.mark.django_db
def test_being_seated_is_a_card_on_every_page_and_a_countdown_at_the_table(
    alice: Any, bob: Any, make_user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pairing import services
    from pairing.cells import cell_parse
    from pairing.models import Match

    sent: list[tuple[int, str, dict[str, Any]]] = []
    monkeypatch.setattr(services.notices, "notify_users", lambda batch: sent.extend(batch))
    cell = cell_parse("citizen:1v1:0")
    services.pool_join(user=alice, cell=cell)
    services.pool_join(user=bob, cell=cell)
    match = Match.objects.get()
    table = match.table
    confirm_by = int(match.confirm_by.timestamp() * 1000)
    seated = [(uid, data) for uid, kind, data in sent if kind == "pairing_seated"]
    assert sorted(uid for uid, _data in seated) == sorted([alice.pk, bob.pk])
    data = seated[0][1]
    assert data["card_url"] == f"/play/seated/{table.pk}/card/"
    assert data["confirm_by"] == confirm_by
    card = client_for(alice).get(data["card_url"])
    assert card.status_code == 200
    html = card.content.decode()
    assert f'data-expires="{confirm_by}"' in html and f'href="/tables/{table.pk}/"' in html
    assert 'data-notice="pairing-' in html and "data-alert-title" in html
    from django.conf import settings

    reader = client_for(alice)
    reader.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    assert "Tu mesa está lista" in reader.get(data["card_url"]).content.decode()
    # The table page counts the time to press Ready down: it knows until when.
    page = client_for(alice).get(f"/tables/{table.pk}/").content.decode()
    assert f'data-ready-by="{confirm_by}"' in page
    # Nothing to say to someone else, or once ready.
    assert client_for(make_user("Carol")).get(data["card_url"]).status_code == 204
    from tables import services as tables

    tables.seat_ready(table_id=table.pk, user=alice, ready=True)
    assert client_for(alice).get(data["card_url"]).status_code == 204
    assert 'data-ready-by=""' in client_for(alice).get(f"/tables/{table.pk}/").content.decode()
