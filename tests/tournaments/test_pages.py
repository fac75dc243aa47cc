"""Tournament pages: the organizer's form explains every refusal, players' buttons, notices,
times in each user's own time zone, the live part, the socket."""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.utils import timezone

from tests.tables.helpers import socket_at
from tests.tournaments.conftest import (
    live_matches,
    make_event,
    register_and_check_in,
    start,
)
from tournaments import services
from tournaments.models import Entry, Match, Tournament

FORM = "/tournaments/new/"


def form_data(**overrides: Any) -> dict[str, Any]:
    now = timezone.localtime(timezone.now(), zoneinfo.ZoneInfo("UTC"))
    fmt = "%Y-%m-%dT%H:%M"
    data = {
        "name": "Citizen Cup",
        "description": "",
        "rules_text": "House rules, best of three.",
        "mode": "citizen",
        "shape": "one_on_one",
        "deal": 7,
        "target": 150,
        "bone_set": "double-six",
        "format": "single",
        "best_of": 3,
        "fee_kind": "free",
        "fee_dollars": 0,
        "prize_split": "100",
        "max_entrants": 8,
        "registration_opens": (now - dt.timedelta(minutes=5)).strftime(fmt),
        "registration_closes": (now + dt.timedelta(hours=1)).strftime(fmt),
        "starts_at": (now + dt.timedelta(hours=2)).strftime(fmt),
        "checkin_minutes": 15,
        "round_minutes": 2,
        "noshow_minutes": 3,
        "seeding": "random",
    }
    data.update(overrides)
    return data


@pytest.fixture
def organizer_client(organizer: Any) -> Client:
    client = Client()
    client.force_login(organizer)
    return client


@pytest.mark.django_db
def test_the_nav_links_the_tournaments(client: Client, players: list[Any]) -> None:
    client.force_login(players[0])
    html = client.get("/lobby/").content.decode()
    assert 'href="/tournaments/"' in html


@pytest.mark.django_db
def test_an_organizer_creates_an_event_through_the_form(
    organizer_client: Client, organizer: Any
) -> None:
    response = organizer_client.post(FORM, form_data(shape="partners", get_on=15))
    tournament = Tournament.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/tournaments/{tournament.pk}/"
    assert tournament.status == Tournament.Status.DRAFT and tournament.organizer == organizer
    assert tournament.table_settings["partners"] is True
    assert tournament.table_settings["get_on"] == 15
    assert tournament.best_of == 3 and tournament.prize_split == [100]
    # The organizer's own time zone: UTC here.
    assert tournament.starts_at.tzinfo is not None


@pytest.mark.django_db
def test_an_organizer_welcomes_bots_or_not_and_the_page_says_which(
    organizer_client: Client,
) -> None:
    """Off unless ticked; the event page tells everyone which; the form shows the choice."""
    assert 'name="bots_welcome"' in organizer_client.get(FORM).content.decode()
    organizer_client.post(FORM, form_data(name="People only"))
    organizer_client.post(FORM, form_data(name="Bots' night", bots_welcome="on"))
    people = Tournament.objects.get(name="People only")
    bots = Tournament.objects.get(name="Bots' night")
    assert (people.bots_welcome, bots.bots_welcome) == (False, True)
    assert (
        "People only: bot accounts may not enter."
        in organizer_client.get(f"/tournaments/{people.pk}/").content.decode()
    )
    page = organizer_client.get(f"/tournaments/{bots.pk}/").content.decode()
    assert "Bot accounts may enter" in page
    edit = organizer_client.get(f"/tournaments/{bots.pk}/edit/").content.decode()
    assert 'name="bots_welcome"' in edit and "checked" in edit.split('name="bots_welcome"')[1][:80]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        (
            {
                "starts_at": "2020-01-01T10:00",
                "registration_closes": "2019-12-31T10:00",
                "registration_opens": "2019-12-30T10:00",
            },
            "starts_at",
            "The start time is in the past",
        ),
        (
            {
                "registration_opens": "2999-01-02T10:00",
                "registration_closes": "2999-01-01T10:00",
                "starts_at": "2999-01-03T10:00",
            },
            "registration_closes",
            "must close after it opens",
        ),
        ({"fee_kind": "dollars", "fee_dollars": -5}, "fee_dollars", "can&#x27;t be below zero"),
        ({"prize_split": "50/30"}, "prize_split", "adds up to 80%"),
        ({"prize_split": "fifty"}, "prize_split", "whole percentages"),
        ({"shape": "cut_throat_3"}, "shape", "Select a valid choice"),
        ({"mode": "fives", "limit": 20}, "limit", "50"),
        ({"format": "swiss", "swiss_rounds": ""}, "swiss_rounds", "1 to 15 rounds"),
        ({"best_of": 2}, "best_of", "Select a valid choice"),
        ({"max_entrants": 100}, "max_entrants", "2 to 64"),
        ({"name": ""}, "name", "required"),
        ({"fee_kind": "dollars", "fee_dollars": 10, "mode": "citizen_gym"}, "fee_kind", "workout"),
    ],
)
def test_every_refused_value_is_explained_on_its_field(
    organizer_client: Client, fields: dict[str, Any], field: str, words: str
) -> None:
    response = organizer_client.post(FORM, form_data(**fields))
    assert response.status_code == 400
    html = response.content.decode()
    assert words in html, html[html.find('class="errorlist"') - 300 :][:800]
    # The message sits in its field's own block.
    block = html[html.find(f'data-field="{field}"') :]
    block = block[: block.find("</div>")]
    assert "errorlist" in block and words in block
    assert not Tournament.objects.exists()


@pytest.mark.django_db
def test_players_cannot_reach_the_organizer_pages(
    client: Client, organizer: Any, players: list[Any]
) -> None:
    tournament = make_event(organizer)
    draft = make_event(organizer, publish=False)
    client.force_login(players[0])
    assert client.get(FORM).status_code == 404
    assert client.post(FORM, form_data()).status_code == 404
    for path in ("manage/", "edit/", "cancel/"):
        assert client.get(f"/tournaments/{tournament.pk}/{path}").status_code == 404
    assert client.post(f"/tournaments/{tournament.pk}/publish/").status_code == 404
    assert client.get(f"/tournaments/{draft.pk}/").status_code == 404  # drafts stay hidden
    html = client.get("/tournaments/").content.decode()
    assert html.count("Friday Fives") == 1  # the published one only
    assert Tournament.objects.get(pk=draft.pk).status == Tournament.Status.DRAFT


@pytest.mark.django_db
def test_the_event_page_shows_rules_prizes_and_times_in_my_zone(
    client: Client, organizer: Any, players: list[Any]
) -> None:
    tournament = make_event(organizer, prize_split=[50, 30, 20])
    player = players[0]
    player.time_zone = "America/New_York"
    player.save()
    client.force_login(player)
    html = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Fives to 50, best of one. Be on time." in html
    assert "A free event" in html and "Entry fee:" in html  # prizes: test_money.py
    local = timezone.localtime(tournament.starts_at, zoneinfo.ZoneInfo("America/New_York"))
    assert local.isoformat() in html  # the <time datetime> in the reader's zone
    assert "America/New_York" in html
    assert 'id="register"' in html


@pytest.mark.django_db
def test_register_check_in_and_withdraw_through_the_page(
    client: Client, organizer: Any, players: list[Any]
) -> None:
    tournament = make_event(organizer, checkin_minutes=60)
    client.force_login(players[0])
    url = f"/tournaments/{tournament.pk}/"
    response = client.post(url + "register/", follow=True)
    assert "You are registered." in response.content.decode()
    response = client.post(url + "register/", follow=True)
    assert "already registered" in response.content.decode()
    assert Entry.objects.filter(player=players[0]).count() == 1
    html = client.post(url + "check-in/", follow=True).content.decode()
    assert "You are checked in." in html
    html = client.post(url + "withdraw/", follow=True).content.decode()
    assert "You have withdrawn" in html
    assert Entry.objects.get(player=players[0]).withdrawal == Entry.Withdrawal.PLAYER


@pytest.mark.django_db
def test_partners_register_by_display_name(
    client: Client, organizer: Any, players: list[Any]
) -> None:
    tournament = make_event(
        organizer, mode="citizen", table_options={"players": 4, "partners": True}
    )
    client.force_login(players[0])
    url = f"/tournaments/{tournament.pk}/"
    html = client.post(url + "register/", {"partner": "nobody-here"}, follow=True).content.decode()
    assert "No player is called nobody-here." in html
    html = client.post(url + "register/", {"partner": "ben"}, follow=True).content.decode()
    assert "Ben must now accept" in html
    entry = Entry.objects.get()
    partner = Client()
    partner.force_login(players[1])
    html = partner.get(url).content.decode()
    assert "registered you as their partner" in html
    partner.post(url + f"invitations/{entry.pk}/", {"answer": "accept"})
    entry.refresh_from_db()
    assert entry.partner_confirmed


@pytest.mark.django_db
def test_a_notice_and_a_link_when_my_table_is_ready(
    client: Client, organizer: Any, players: list[Any]
) -> None:
    tournament = make_event(organizer)
    register_and_check_in(tournament, players[:2])
    tournament = start(tournament)
    (match,) = live_matches(tournament)
    client.force_login(match.entry_a.player)
    html = client.get(f"/tournaments/{tournament.pk}/live/").content.decode()
    assert "Your match table is ready" in html
    assert f"/tables/{match.table_id}/?code={match.table.invite_code}" in html
    assert match.entry_b.player.display_name in html
    # The link works for the player, and for anyone following the event (to watch).
    assert (
        client.get(f"/tables/{match.table_id}/?code={match.table.invite_code}").status_code == 200
    )
    watcher = Client()
    watcher.force_login(players[5])
    html = watcher.get(f"/tournaments/{tournament.pk}/live/").content.decode()
    assert "Your match table is ready" not in html
    assert "Watch" in html


@pytest.mark.django_db
def test_organizer_pages(organizer_client: Client, organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer)
    register_and_check_in(tournament, players[:4])
    tournament = start(tournament)
    first, second = live_matches(tournament)
    html = organizer_client.get(f"/tournaments/{tournament.pk}/manage/").content.decode()
    assert "Checked in" in html and "Settle by hand" in html and "Disqualify" in html
    url = f"/tournaments/{tournament.pk}/matches/{first.pk}/settle/"
    html = organizer_client.post(
        url, {"winner": second.entry_a_id, "reason": "x"}, follow=True
    ).content.decode()
    assert "The winner must be one of the two entrants of this match." in html
    first.refresh_from_db()
    assert first.status == Match.Status.WAITING
    organizer_client.post(url, {"winner": first.entry_a_id, "reason": "Agreed"})
    first.refresh_from_db()
    assert first.outcome == Match.Outcome.SETTLED and first.settled_reason == "Agreed"
    html = organizer_client.get(f"/tournaments/{tournament.pk}/manage/live/").content.decode()
    assert "Agreed" in html and organizer.display_name in html
    dq = f"/tournaments/{tournament.pk}/entries/{second.entry_a_id}/disqualify/"
    html = organizer_client.post(dq, {"reason": ""}, follow=True).content.decode()
    assert "Say why" in html
    organizer_client.post(dq, {"reason": "No-show at check-in desk"})
    assert Entry.objects.get(pk=second.entry_a_id).disqualified_reason == "No-show at check-in desk"
    response = organizer_client.post(f"/tournaments/{tournament.pk}/cancel/", {"reason": ""})
    assert response.status_code == 400
    organizer_client.post(f"/tournaments/{tournament.pk}/cancel/", {"reason": "Power cut"})
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED


@pytest.mark.django_db
def test_organizer_seeding(organizer_client: Client, organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer, seeding="organizer")
    register_and_check_in(tournament, players[:3])
    entries = list(tournament.entries.order_by("pk"))
    wanted = {entries[0].pk: 3, entries[1].pk: 1, entries[2].pk: 2}
    organizer_client.post(
        f"/tournaments/{tournament.pk}/manage/seeds/",
        {f"seed_{pk}": seed for pk, seed in wanted.items()},
    )
    tournament = start(tournament)
    got = dict(tournament.entries.values_list("pk", "seed"))
    assert got == wanted
    # Seed 1 has the bye.
    w11 = tournament.matches.get(key="W1-1")
    assert w11.status == Match.Status.WALKOVER and w11.winner_id == entries[1].pk


@pytest.mark.django_db
def test_finished_events_keep_their_bracket(
    client: Client, organizer: Any, players: list[Any]
) -> None:
    tournament = make_event(organizer)
    register_and_check_in(tournament, players[:2])
    tournament = start(tournament)
    (match,) = live_matches(tournament)
    services.match_settle(
        match_id=match.pk, by=organizer, winner_entry_id=match.entry_b_id, reason="Agreed"
    )
    services.tournament_sweep(now=tournament.starts_at)
    client.force_login(players[3])
    html = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Final placings" in html and '<svg class="t-bracket"' in html
    assert "Settled by the organizer" in html
    listing = client.get("/tournaments/").content.decode()
    assert tournament.name in listing[listing.find("finished-title") :]


@pytest.mark.django_db
def test_swiss_standings_on_the_page(client: Client, organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer, format="swiss", swiss_rounds=2)
    register_and_check_in(tournament, players[:3])
    start(tournament)
    client.force_login(players[0])
    html = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Buchholz" in html and "has a bye" in html


@pytest.mark.django_db
def test_spanish_pages(client: Client, organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    client.force_login(players[0])
    html = client.get("/tournaments/").content.decode()
    assert "Torneos" in html and "Próximos" in html
    html = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Reglas oficiales" in html and "Inscribirse" in html


# --- the socket ----------------------------------------------------------------------------------


async def socket_for(user: Any, watch: dict[str, Any] | None) -> WebsocketCommunicator:
    """The site-wide notices socket, watching an event or the list (as tournament.js has it)."""
    socket = await socket_at(user, "/ws/notices/")
    assert (await socket.receive_json_from(timeout=10))["type"] == "hello"
    if watch is not None:
        await socket.send_json_to({"type": "watch", **watch})
        assert (await socket.receive_json_from(timeout=10))["type"] == "watching"
    return socket


@pytest.mark.django_db(transaction=True)
async def test_the_event_socket_says_when_it_changed(organizer: Any, players: list[Any]) -> None:
    tournament = await sync_to_async(make_event)(organizer)
    page = await socket_for(players[3], {"topic": "tournament", "id": tournament.pk})
    listing = await socket_for(players[4], {"topic": "tournaments"})
    await sync_to_async(services.entry_register)(tournament_id=tournament.pk, user=players[0])
    for socket in (page, listing):
        message = await socket.receive_json_from(timeout=10)
        assert message["type"] == "notice" and message["kind"] == "tournament_changed"
        assert message["tournament"] == tournament.pk
        assert set(message) == {"type", "kind", "tournament", "seq"}  # nothing private
    seq = message["seq"]
    assert seq == (await Tournament.objects.aget(pk=tournament.pk)).seq
    await page.disconnect()
    await listing.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_watching_answer_says_the_version_a_page_should_show(
    client: Client, organizer: Any, players: list[Any]
) -> None:
    """A page rendered before a change it did not hear (it was not watching yet) learns of it
    from the `watching` answer: the version there differs from the one it was rendered at."""
    tournament = await sync_to_async(make_event)(organizer)
    await sync_to_async(client.force_login)(players[3])
    page = await sync_to_async(client.get)(f"/tournaments/{tournament.pk}/")
    listing = await sync_to_async(client.get)("/tournaments/")
    rendered = re.search(r'data-live-version="(\d+)"', page.content.decode())
    rendered_list = re.search(r'data-live-version="(\d+)"', listing.content.decode())
    assert rendered and rendered_list

    async def versions() -> tuple[int, int]:
        found = []
        for watch in ({"topic": "tournament", "id": tournament.pk}, {"topic": "tournaments"}):
            socket = await socket_at(players[3], "/ws/notices/")
            assert (await socket.receive_json_from(timeout=10))["type"] == "hello"
            await socket.send_json_to({"type": "watch", **watch})
            answer = await socket.receive_json_from(timeout=10)
            assert answer["type"] == "watching"
            found.append(answer["version"])
            await socket.disconnect()
        return found[0], found[1]

    # Nothing changed: the page shows what the socket says is current.
    assert await versions() == (int(rendered[1]), int(rendered_list[1]))
    # A change (as between the page's rendering and its socket's watch): both versions rise.
    await sync_to_async(services.entry_register)(tournament_id=tournament.pk, user=players[0])
    event_now, list_now = await versions()
    assert event_now > int(rendered[1]) and list_now > int(rendered_list[1])
    row = await Tournament.objects.aget(pk=tournament.pk)
    assert event_now == row.seq + row.standings_seq


@pytest.mark.django_db(transaction=True)
async def test_watching_another_event_stops_the_first(organizer: Any, players: list[Any]) -> None:
    first = await sync_to_async(make_event)(organizer)
    second = await sync_to_async(make_event)(organizer)
    socket = await socket_for(players[3], {"topic": "tournament", "id": first.pk})
    await socket.send_json_to({"type": "watch", "topic": "tournament", "id": second.pk})
    assert (await socket.receive_json_from(timeout=10))["type"] == "watching"
    await sync_to_async(services.entry_register)(tournament_id=first.pk, user=players[0])
    await sync_to_async(services.entry_register)(tournament_id=second.pk, user=players[0])
    message = await socket.receive_json_from(timeout=10)
    assert message["tournament"] == second.pk  # the first event's change never came
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_players_hear_their_table_is_ready_on_any_page(
    organizer: Any, players: list[Any]
) -> None:
    tournament = await sync_to_async(make_event)(organizer)
    await sync_to_async(register_and_check_in)(tournament, players[:2])
    seated = [await socket_for(player, None) for player in players[:2]]
    onlooker = await socket_for(players[5], None)
    tournament = await sync_to_async(start)(tournament)
    (match,) = await sync_to_async(live_matches)(tournament)
    table = await sync_to_async(lambda: match.table)()
    for socket in seated:
        notice = await socket.receive_json_from(timeout=10)
        assert notice == {
            "type": "notice",
            "kind": "tournament_table_ready",
            "tournament": tournament.pk,
            "table": table.pk,
            "url": f"/tables/{table.pk}/?code={table.invite_code}",
            "card_url": f"/tournaments/{tournament.pk}/notice/",
        }
        await socket.disconnect()
    await onlooker.send_json_to({"type": "ping"})
    assert (await onlooker.receive_json_from(timeout=10))["type"] == "pong"  # nothing before it
    await onlooker.disconnect()


@pytest.mark.django_db
def test_the_notice_card_is_the_players_own(
    client: Client, organizer: Any, players: list[Any]
) -> None:
    tournament = make_event(organizer)
    register_and_check_in(tournament, players[:2])
    tournament = start(tournament)
    (match,) = live_matches(tournament)
    client.force_login(match.entry_a.player)
    card = client.get(f"/tournaments/{tournament.pk}/notice/").content.decode()
    assert "Your match table is ready" in card and 'role="alertdialog"' in card
    assert f"/tables/{match.table_id}/?code={match.table.invite_code}" in card
    assert 'id="go-to-table"' not in card  # the event's page may be open under the card
    watcher = Client()
    watcher.force_login(players[5])
    assert watcher.get(f"/tournaments/{tournament.pk}/notice/").status_code == 204
