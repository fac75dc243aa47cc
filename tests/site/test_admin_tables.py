"""Staff tools for tables: the Tables admin, voiding the game staff selected (never another),
closing a stuck table, each with a reason, recorded with who and when, and told to the table."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from django.utils import translation

from ledger import services as ledger
from ledger.models import Posting, Reason
from ledger.services import StakeSpec
from staff import services as staff
from staff.models import StaffAction
from tables import services as tables
from tables.models import Game, Table
from tests.ledger.helpers import assert_books_balance, dollars, finish, staked_game

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    with translation.override("en"):
        yield


@pytest.fixture
def told(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """Every message the tables sent to the channel layer (after commit)."""
    sent: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr("tables.broadcast.group_send_many", lambda batch: sent.extend(batch))
    return sent


def events_told(sent: list[tuple[str, dict[str, Any]]], table_id: int) -> dict[str, set[str]]:
    """The event types each of the table's groups was sent."""
    groups: dict[str, set[str]] = {}
    for group, message in sent:
        if group.startswith(f"table.{table_id}."):
            groups.setdefault(group, set()).update(e["type"] for e in message["events"])
    return groups


def rematch(table: Table, players: list[Any]) -> Game:
    for player in players:
        tables.rematch_offer(table_id=table.pk, user=player)
    return Game.objects.get(table=table, status=Game.Status.PLAYING)


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


# --- the list and the page ------------------------------------------------------------------


def test_the_tables_list_shows_who_sits_where_and_each_game(
    client: Client, warden: Any, alice: Any, bob: Any
) -> None:
    staked = staked_game([alice, bob], stake=StakeSpec(dollars=20))
    open_table = tables.table_create(host=bob, mode="fives")
    client.force_login(warden)
    listing = client.get(reverse("admin:tables_table_changelist"))
    assert listing.status_code == 200
    html = listing.content.decode()
    assert "0: Alice, 1: Bob" in html
    assert f"Game {staked.game.pk} (no. 1): Playing" in html
    assert "20 Dollars" in html
    live = client.get(reverse("admin:tables_table_changelist"), {"activity": "live"})
    assert f"Table {open_table.pk} " in live.content.decode()
    page = client.get(reverse("admin:tables_table_change", args=[staked.table.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Who sits where" in html and "Alice" in html and "Bob" in html
    assert reverse("admin:tables_table_void", args=[staked.table.pk, staked.game.pk]) in html
    assert reverse("admin:tables_table_close", args=[staked.table.pk]) in html
    # Read-only: nothing to save, add or delete.
    assert 'name="_save"' not in html
    assert client.get(reverse("admin:tables_table_add")).status_code == 403


def test_tables_are_found_by_search_for_autocomplete(
    client: Client, warden: Any, alice: Any
) -> None:
    table = tables.table_create(host=alice, mode="citizen", players=2)
    client.force_login(warden)
    found = client.get(
        reverse("admin:autocomplete"),
        {"app_label": "chat", "model_name": "chattimeout", "field_name": "table", "term": "Ali"},
    ).json()
    assert [r["id"] for r in found["results"]] == [str(table.pk)]
    by_number = client.get(
        reverse("admin:autocomplete"),
        {"app_label": "chat", "model_name": "chattimeout", "field_name": "table", "term": table.pk},
    ).json()
    assert [r["id"] for r in by_number["results"]] == [str(table.pk)]


# --- voiding --------------------------------------------------------------------------------


def test_void_asks_why_then_voids_that_game_refunds_and_records_who(
    client: Client,
    warden: Any,
    alice: Any,
    bob: Any,
    told: list[Any],
    django_capture_on_commit_callbacks: Any,
) -> None:
    before = [dollars(alice), dollars(bob)]
    staked = staked_game([alice, bob], stake=StakeSpec(dollars=25))
    assert dollars(alice) < before[0]  # held for the game
    client.force_login(warden)
    url = reverse("admin:tables_table_void", args=[staked.table.pk, staked.game.pk])
    asked = client.get(url)
    assert asked.status_code == 200
    assert "Why is the game voided?" in asked.content.decode()
    assert "Yes: refunded" in asked.content.decode()
    # No reason: asked again, nothing done.
    blank = client.post(url, {"apply": "1", "reason": "   "})
    assert blank.status_code == 400
    assert Game.objects.get(pk=staked.game.pk).status == Game.Status.PLAYING
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(url, {"apply": "1", "reason": "Server restart broke the deal"})
    assert done.status_code == 302
    assert Game.objects.get(pk=staked.game.pk).status == Game.Status.ABORTED
    assert [dollars(alice), dollars(bob)] == before
    action = StaffAction.objects.get()
    assert action.kind == StaffAction.Kind.GAME_VOID and action.by == warden
    assert action.game_id == staked.game.pk and action.table_id == staked.table.pk
    assert action.reason == "Server restart broke the deal" and action.created_at is not None
    assert action.detail["refund"] == ledger.refund_key(staked.game.pk)
    # Every seat and the watchers were told.
    groups = events_told(told, staked.table.pk)
    assert set(groups) == {
        f"table.{staked.table.pk}.seat.0",
        f"table.{staked.table.pk}.seat.1",
        f"table.{staked.table.pk}.public",
    }
    assert all("game_voided" in types for types in groups.values())
    # Sent again (a double click, the back button): refused, still one refund, one record.
    again = client.post(url, {"apply": "1", "reason": "again"}, follow=True)
    assert any("already aborted or voided" in m for m in messages_of(again))
    assert Posting.objects.filter(game=staked.game, reason=Reason.REFUND).count() == 1
    assert StaffAction.objects.count() == 1
    assert [dollars(alice), dollars(bob)] == before
    assert_books_balance()
    # The record is in admin, read-only.
    listing = client.get(reverse("admin:staff_staffaction_changelist"))
    assert "Server restart broke the deal" in listing.content.decode()
    assert "stakes refunded" in listing.content.decode()


def test_void_acts_on_the_selected_game_not_the_rematch_in_play(
    client: Client, warden: Any, alice: Any, bob: Any
) -> None:
    """The bug: selecting a finished, settled game after a rematch voided the new game."""
    staked = staked_game([alice, bob], stake=StakeSpec(dollars=10))
    finish(staked.game, winner=0)
    ledger.game_settle(game_id=staked.game.pk)
    new = rematch(staked.table, [alice, bob])
    client.force_login(warden)
    # From the ledger's list of staked games, the old game selected.
    url = reverse("admin:ledger_stakedgame_changelist")
    action = {"action": "void_games", "_selected_action": [staked.game.pk]}
    asked = client.post(url, action)
    assert asked.status_code == 200 and "Over: it cannot be voided." in asked.content.decode()
    done = client.post(url, {**action, "apply": "1", "reason": "wrong result"}, follow=True)
    assert any(
        f"Game {staked.game.pk} is over and its stakes were settled" in m for m in messages_of(done)
    )
    assert Game.objects.get(pk=new.pk).status == Game.Status.PLAYING
    assert not Posting.objects.filter(reason=Reason.REFUND).exists()
    assert not StaffAction.objects.exists()
    # From the table's page, the old game's void page refuses it as well.
    old = reverse("admin:tables_table_void", args=[staked.table.pk, staked.game.pk])
    client.post(old, {"apply": "1", "reason": "wrong result"})
    assert Game.objects.get(pk=new.pk).status == Game.Status.PLAYING
    # The new game, selected, is the one voided.
    client.post(url, {**action, "_selected_action": [new.pk], "apply": "1", "reason": "stuck"})
    assert Game.objects.get(pk=new.pk).status == Game.Status.ABORTED
    assert Game.objects.get(pk=staked.game.pk).status == Game.Status.FINISHED
    assert StaffAction.objects.get().game_id == new.pk
    assert_books_balance()


def test_the_tables_action_voids_the_game_its_page_named(
    client: Client, warden: Any, alice: Any, bob: Any
) -> None:
    staked = staked_game([alice, bob])
    client.force_login(warden)
    url = reverse("admin:tables_table_changelist")
    action = {"action": "void_live_games", "_selected_action": [staked.table.pk]}
    asked = client.post(url, action)
    assert f'name="game" value="{staked.game.pk}"' in asked.content.decode()
    # The game ends and a rematch starts before staff confirm: the rematch is not voided.
    finish(staked.game, winner=1)
    ledger.game_settle(game_id=staked.game.pk)
    new = rematch(staked.table, [alice, bob])
    done = client.post(
        url, {**action, "game": [staked.game.pk], "apply": "1", "reason": "stuck"}, follow=True
    )
    assert any("is over" in m for m in messages_of(done))
    assert Game.objects.get(pk=new.pk).status == Game.Status.PLAYING
    # A game of another table named on the page is ignored.
    other = staked_game([warden, alice], stake=None)
    client.post(url, {**action, "game": [other.game.pk], "apply": "1", "reason": "x"})
    assert Game.objects.get(pk=other.game.pk).status == Game.Status.PLAYING


def test_an_unstaked_game_is_voided_too(warden: Any, alice: Any, bob: Any) -> None:
    table = tables.table_create(host=alice, mode="fives")
    tables.seat_take(table_id=table.pk, user=bob, number=1)
    game = Game.objects.get(table=table)  # waiting: nobody pressed ready
    action = staff.game_void(game_id=game.pk, by=warden, reason="test table")
    assert Game.objects.get(pk=game.pk).status == Game.Status.ABORTED
    assert action.detail["refund"] is None


def test_only_staff_with_the_permission_void_or_close(
    client: Client, make_user: Any, alice: Any, bob: Any
) -> None:
    staked = staked_game([alice, bob])
    clerk = make_user("Clerk")
    clerk.is_staff = True
    clerk.save()
    clerk.user_permissions.add(Permission.objects.get(codename="view_table"))
    client.force_login(clerk)
    assert client.get(reverse("admin:tables_table_changelist")).status_code == 200
    page = client.get(reverse("admin:tables_table_change", args=[staked.table.pk]))
    assert "Close this table" not in page.content.decode()
    void = reverse("admin:tables_table_void", args=[staked.table.pk, staked.game.pk])
    assert client.post(void, {"apply": "1", "reason": "x"}).status_code == 403
    close = reverse("admin:tables_table_close", args=[staked.table.pk])
    assert client.post(close, {"apply": "1", "reason": "x"}).status_code == 403
    assert Game.objects.get(pk=staked.game.pk).status == Game.Status.PLAYING
    with pytest.raises(tables.TableError, match="Only staff"):
        staff.game_void(game_id=staked.game.pk, by=alice, reason="x")
    with pytest.raises(tables.TableError, match="Only staff"):
        staff.table_close(table_id=staked.table.pk, by=alice, reason="x")
    clerk.user_permissions.add(Permission.objects.get(codename="void_game"))
    client.post(void, {"apply": "1", "reason": "clerk voids"})
    assert Game.objects.get(pk=staked.game.pk).status == Game.Status.ABORTED


# --- closing --------------------------------------------------------------------------------


def test_closing_a_stuck_table_voids_its_game_and_closes_it_for_good(
    client: Client, warden: Any, alice: Any, bob: Any, told: list[Any]
) -> None:
    before = [dollars(alice), dollars(bob)]
    staked = staked_game([alice, bob], stake=StakeSpec(dollars=15))
    client.force_login(warden)
    url = reverse("admin:tables_table_close", args=[staked.table.pk])
    asked = client.get(url)
    assert "Why is the table closed?" in asked.content.decode()
    done = client.post(url, {"apply": "1", "reason": "Both players gone for an hour"})
    assert done.status_code == 302
    assert Table.objects.get(pk=staked.table.pk).status == Table.Status.ABORTED
    assert Game.objects.get(pk=staked.game.pk).status == Game.Status.ABORTED
    assert [dollars(alice), dollars(bob)] == before
    action = StaffAction.objects.get()
    assert (action.kind, action.by, action.game_id) == (
        StaffAction.Kind.TABLE_CLOSE,
        warden,
        staked.game.pk,
    )
    # Closed twice: refused, one record.
    again = client.post(url, {"apply": "1", "reason": "again"}, follow=True)
    assert any("already closed" in m for m in messages_of(again))
    assert StaffAction.objects.count() == 1
    assert_books_balance()


def test_closing_a_finished_table_stops_the_rematch(
    warden: Any,
    alice: Any,
    bob: Any,
    told: list[Any],
    django_capture_on_commit_callbacks: Any,
) -> None:
    staked = staked_game([alice, bob], stake=None)
    finish(staked.game, winner=0)
    tables.rematch_offer(table_id=staked.table.pk, user=alice)
    with django_capture_on_commit_callbacks(execute=True):
        action = staff.table_close(table_id=staked.table.pk, by=warden, reason="host left")
    assert action.game is None
    assert Table.objects.get(pk=staked.table.pk).status == Table.Status.ABORTED
    assert Game.objects.get(pk=staked.game.pk).status == Game.Status.FINISHED
    with pytest.raises(tables.TableError):
        tables.rematch_offer(table_id=staked.table.pk, user=bob)
    with pytest.raises(tables.TableError):
        tables.seat_take(table_id=staked.table.pk, user=warden, number=1)
    groups = events_told(told, staked.table.pk)
    assert groups and all("table_closed" in types for types in groups.values())


def test_closing_a_table_nobody_joined(client: Client, warden: Any, alice: Any) -> None:
    table = tables.table_create(host=alice, mode="citizen", players=3)
    client.force_login(warden)
    url = reverse("admin:tables_table_changelist")
    action = {"action": "close_tables", "_selected_action": [table.pk]}
    asked = client.post(url, action)
    assert "No game waiting or in play." not in asked.content.decode()  # its game is waiting
    client.post(url, {**action, "apply": "1", "reason": "abandoned at creation"})
    assert Table.objects.get(pk=table.pk).status == Table.Status.ABORTED
    assert StaffAction.objects.get().kind == StaffAction.Kind.TABLE_CLOSE


# --- tournaments ----------------------------------------------------------------------------


def test_a_voided_tournament_game_is_replayed_at_a_new_table(
    client: Client,
    warden: Any,
    make_user: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from django.contrib.auth.models import Group

    from tests.tournaments.conftest import (
        make_event,
        press_ready,
        quick_user,
        register_and_check_in,
        start,
    )
    from tournaments.models import ORGANIZERS_GROUP, Match

    organizer = quick_user("Olga")
    organizer.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    entrants = [quick_user(name) for name in ("Ana", "Ben")]
    tournament = make_event(organizer)
    from tournaments import services as tournaments

    tournaments.tournament_sweep(now=tournament.registration_opens)
    register_and_check_in(tournament, entrants)
    tournament = start(tournament)
    match = Match.objects.get(tournament=tournament)
    press_ready(match)
    tournaments.tournament_sweep(now=tournament.starts_at)
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    game = Game.objects.get(table_id=match.table_id)
    old_table = match.table_id
    client.force_login(warden)
    page = client.get(reverse("admin:tables_table_change", args=[old_table]))
    assert "Friday Fives (W1-1)" in page.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("admin:tables_table_void", args=[old_table, game.pk]),
            {"apply": "1", "reason": "Ben's client crashed on a deal"},
        )
    assert Game.objects.get(pk=game.pk).status == Game.Status.ABORTED
    match.refresh_from_db()
    assert match.table_id != old_table and match.status == Match.Status.WAITING
    replay = Table.objects.get(pk=match.table_id)
    assert set(replay.seats.values_list("user_id", flat=True)) == {e.pk for e in entrants}
    action = StaffAction.objects.get()
    assert action.detail["tournament"] == tournament.pk and action.detail["match"] == "W1-1"
    assert action.detail["replay_table"] == replay.pk
    # The sweep that follows finds the replay already open: one new table, not two.
    tournaments.tournament_sweep(now=tournament.starts_at + dt.timedelta(seconds=5))
    match.refresh_from_db()
    assert match.table_id == replay.pk
