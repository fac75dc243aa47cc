"""Tournaments through the API: the lists and an event as the pages show them (drafts only to
their organizers), registering, checking in and withdrawing with the fee taken and given back
through the ledger as on the page, a partner's invitation, and the standings of an arena (its
socket's frame) and of a bracket (its rounds, with the winners)."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.utils import timezone

from tests.api.helpers import call, token_for
from tests.tournaments.conftest import (
    make_event,
    play_round,
    quick_user,
    register_and_check_in,
    start,
)
from tests.tournaments.test_arena_flow import STEP, everyone_plays, make_arena
from tests.tournaments.test_money import dollars, give, paid_event, pot
from tournaments import arenas, money, services
from tournaments.models import ORGANIZERS_GROUP, Entry, Match, Tournament

pytestmark = pytest.mark.django_db


def bodiless(path: str, token: str) -> Any:
    """A POST with no body at all (as `curl -X POST` sends it)."""
    return Client().post(
        path, data="", content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}"
    )


@pytest.fixture
def organizer(db: None) -> Any:
    user = quick_user("Olga")
    user.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    return user


def test_the_lists_and_one_event_as_the_pages_show_them(organizer: Any, alice: Any) -> None:
    event = make_event(organizer, name="Friday Fives")
    draft = make_event(organizer, publish=False, name="Secret draft")
    services.entry_register(tournament_id=event.pk, user=quick_user("Ana"))
    reader = token_for(alice, "read")
    lists = call("GET", "/api/tournaments", reader)
    assert lists.status_code == 200
    body = lists.json()
    assert [t["id"] for t in body["upcoming"]] == [event.pk]
    assert body["running"] == [] and body["finished"] == [] and body["drafts"] == []
    line = body["upcoming"][0]
    assert (line["name"], line["entrants"], line["max_entrants"]) == ("Friday Fives", 1, 8)
    assert (line["mode"], line["format"], line["fee"], line["mine"]) == (
        "fives",
        "single",
        "Free",
        False,
    )
    assert line["status"] == event.status and line["url"] == f"/tournaments/{event.pk}/"
    # A draft is its organizer's alone.
    refused = call("GET", f"/api/tournaments/{draft.pk}", reader)
    assert refused.status_code == 404 and refused.json()["code"] == "no_event"
    assert call("GET", f"/api/tournaments/{draft.pk}/standings", reader).status_code == 404
    assert call("GET", "/api/tournaments/999999", reader).status_code == 404
    olga = token_for(organizer, "read")
    assert [t["id"] for t in call("GET", "/api/tournaments", olga).json()["drafts"]] == [draft.pk]
    assert call("GET", f"/api/tournaments/{draft.pk}", olga).json()["status"] == "draft"

    one = call("GET", f"/api/tournaments/{event.pk}", reader).json()
    assert one["rules_text"] == "Fives to 50, best of one. Be on time."
    assert one["organizer"]["name"] == "Olga" and one["best_of"] == 1
    assert one["table_settings"]["limit"] == 50 and one["entrants"] == 1
    assert one["prizes"]["fee"] == "Free" and [r["percent"] for r in one["prizes"]["rows"]] == [100]
    me = one["me"]
    assert me["entry"] is None and me["active"] is False and me["may_register"] is True
    assert me["who_registers"] == "open" and me["may_check_in"] is False


def test_register_and_withdraw_take_and_give_back_the_fee_through_the_ledger(
    organizer: Any, alice: Any, bob: Any
) -> None:
    assert money.unavailable() is None
    event = paid_event(organizer)
    give(alice, 100 - dollars(alice))
    give(bob, 100 - dollars(bob))
    token = token_for(alice, "tournaments", "read")
    registered = call("POST", f"/api/tournaments/{event.pk}/register", token, {})
    assert registered.status_code == 200, registered.content
    me = registered.json()
    entry = Entry.objects.get(tournament=event, player=alice)
    assert me["entry"] == entry.pk and me["active"] is True and me["state"] == "Registered"
    assert me["may_register"] is False and me["may_withdraw"] is True
    assert me["withdraw_refunds"] is True
    assert dollars(alice) == 90 and pot() == 10
    assert money.fee_state(tournament=event, entry=entry, user=alice) == "held"
    one = call("GET", f"/api/tournaments/{event.pk}", token).json()
    assert one["entrants"] == 1 and one["mine"] is True and one["fee"] == "10 Dollars"
    assert one["prizes"]["pool"] == "10 Dollars"

    again = call("POST", f"/api/tournaments/{event.pk}/register", token, {})
    assert again.status_code == 409
    assert again.json() == {
        "code": "already",
        "message": "You are already registered for this event.",
    }
    assert dollars(alice) == 90

    # The page does the very same: Bob registers there, and pays the same.
    page = Client()
    page.force_login(bob)
    page.post(f"/tournaments/{event.pk}/register/", {"partner": ""})
    assert dollars(bob) == 90 and pot() == 20

    withdrawn = call("POST", f"/api/tournaments/{event.pk}/withdraw", token)
    assert withdrawn.status_code == 200
    assert withdrawn.json()["active"] is False and withdrawn.json()["may_register"] is True
    assert dollars(alice) == 100 and pot() == 10
    assert money.fee_state(tournament=event, entry=entry, user=alice) == "refunded"
    twice = call("POST", f"/api/tournaments/{event.pk}/withdraw", token)
    assert twice.status_code == 409
    assert twice.json()["message"] == "You are not registered for this event."
    assert dollars(alice) == 100

    # Without the fee: refused in the ledger's words, and nothing taken.
    carol = quick_user("Carol")
    give(carol, 5 - dollars(carol))
    poor = call(
        "POST", f"/api/tournaments/{event.pk}/register", token_for(carol, "tournaments"), {}
    )
    assert poor.status_code == 409 and "The entry fee is 10 Dollars" in poor.json()["message"]
    assert dollars(carol) == 5 and not Entry.objects.filter(player=carol).exists()


def test_check_in_and_refusals(organizer: Any, alice: Any) -> None:
    now = timezone.now()
    soon = make_event(
        organizer,
        registration_closes=now + dt.timedelta(minutes=5),
        starts_at=now + dt.timedelta(minutes=10),
    )
    later = make_event(organizer, name="Later")  # its check-in opens in 5 minutes
    token = token_for(alice, "tournaments", "read")
    early = call("POST", f"/api/tournaments/{soon.pk}/check-in", token)
    assert early.status_code == 409 and early.json()["code"] == "not_registered"
    alone = bodiless(f"/api/tournaments/{soon.pk}/register", token)
    assert alone.status_code == 200 and alone.json()["active"] is True  # no body: alone
    assert call("GET", f"/api/tournaments/{soon.pk}", token).json()["me"]["may_check_in"] is True
    checked = call("POST", f"/api/tournaments/{soon.pk}/check-in", token)
    assert checked.status_code == 200 and checked.json()["checked_in"] is True
    assert checked.json()["state"] == "Checked in"
    assert Entry.objects.get(tournament=soon, player=alice).player_checked_in_at is not None

    call("POST", f"/api/tournaments/{later.pk}/register", token, {})
    closed = call("POST", f"/api/tournaments/{later.pk}/check-in", token)
    assert closed.status_code == 409 and closed.json() == {
        "code": "checkin_closed",
        "message": "Check-in opens 15 minutes before the start.",
    }
    # One on one: no partner; an unknown partner is refused on its field.
    alone = call("POST", f"/api/tournaments/{later.pk}/register", token, {"partner": 999999})
    assert alone.status_code == 400 and alone.json()["field"] == "partner"
    # Scopes: reading is not registering, and a challenge token reads no events.
    reader = call("POST", f"/api/tournaments/{later.pk}/withdraw", token_for(alice, "read"))
    assert reader.status_code == 403 and reader.json()["code"] == "missing_scope"
    assert reader.json()["scope"] == "tournaments"
    assert call("GET", "/api/tournaments", token_for(alice, "challenge")).status_code == 403
    assert Entry.objects.get(tournament=later, player=alice).withdrawn_at is None


def test_a_partner_accepts_the_invitation(organizer: Any, alice: Any, bob: Any) -> None:
    event = make_event(organizer, mode="citizen", table_options={"players": 4, "partners": True})
    mine, theirs = token_for(alice, "tournaments"), token_for(bob, "tournaments")
    needed = call("POST", f"/api/tournaments/{event.pk}/register", mine, {})
    assert needed.status_code == 400 and needed.json()["field"] == "partner"
    assert needed.json()["code"] == "partner_needed"
    me = call("POST", f"/api/tournaments/{event.pk}/register", mine, {"partner": bob.pk}).json()
    assert me["partner"]["name"] == "Bob" and me["partner_confirmed"] is False
    assert me["state"] == "Waiting for the partner to accept"
    invited = call("GET", f"/api/tournaments/{event.pk}", token_for(bob, "read")).json()["me"]
    assert invited["invitation"] == me["entry"]
    answer = call(
        "POST", f"/api/tournaments/{event.pk}/invitations/{me['entry']}", theirs, {"accept": True}
    )
    assert answer.status_code == 200 and answer.json()["partner_confirmed"] is True
    assert answer.json()["partner"]["name"] == "Alice"
    assert Entry.objects.get(pk=me["entry"]).partner_confirmed is True
    stranger = call(
        "POST",
        f"/api/tournaments/{event.pk}/invitations/{me['entry']}",
        mine,
        {"accept": False},
    )
    assert stranger.status_code == 404 and stranger.json()["code"] == "no_invitation"


def test_an_arenas_standings_are_its_sockets_frame(organizer: Any, alice: Any) -> None:
    tournament = make_arena(organizer)
    people = [quick_user(name) for name in ("Ana", "Ben", "Cruz", "Dee")]
    for user in people:
        services.entry_register(tournament_id=tournament.pk, user=user)
    now = tournament.starts_at
    services.tournament_sweep(now=now)
    played = everyone_plays(tournament, now + STEP, random.Random(3))
    assert played == 2
    tournament.refresh_from_db()
    answer = call("GET", f"/api/tournaments/{tournament.pk}/standings", token_for(alice, "read"))
    assert answer.status_code == 200
    body = answer.json()
    assert body["format"] == "arena" and body["rounds"] == [] and body["swiss"] == []
    frame = body["arena"]
    expected = arenas.standings_frame(tournament)
    assert frame["players"] == 4 and frame["tournament"] == tournament.pk
    assert frame["ranks"] == expected["ranks"] and frame["ends"] == expected["ends"]
    assert [(r["player"], r["rank"], r["score"]) for r in frame["top"]] == [
        (r.player, r.rank, r.score) for r in arenas.standings(tournament)
    ]
    assert sum(r["games"] for r in frame["top"]) == 2 * played
    winners = {m.winner.player_id for m in tournament.matches.filter(status=Match.Status.DONE)}
    assert {r["player"] for r in frame["top"] if r["wins"] == 1} == winners
    assert {r["name"] for r in frame["top"]} == {"Ana", "Ben", "Cruz", "Dee"}


def test_a_brackets_standings_are_its_rounds_with_the_winners(organizer: Any, alice: Any) -> None:
    tournament = make_event(organizer)
    people = [quick_user(name) for name in ("Ana", "Ben", "Cruz", "Dee")]
    register_and_check_in(tournament, people)
    tournament = start(tournament)
    rng = random.Random(7)
    play_round(tournament, rng, tournament.starts_at)
    tournament.refresh_from_db()
    play_round(tournament, rng, tournament.starts_at)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    body = call(
        "GET", f"/api/tournaments/{tournament.pk}/standings", token_for(alice, "read")
    ).json()
    assert body["arena"] is None and body["status"] == "finished"
    assert [r["number"] for r in body["rounds"]] == [1, 2]
    played = {m.key: m for m in tournament.matches.all()}
    shown = [m for r in body["rounds"] for m in r["matches"]]
    assert sorted(m["key"] for m in shown) == sorted(played)
    for match in shown:
        row = played[match["key"]]
        assert match["winner"] == row.winner_id and match["status"] == row.status
        assert {match["a"]["id"], match["b"]["id"]} == {row.entry_a_id, row.entry_b_id}
        assert match["winner"] in (match["a"]["id"], match["b"]["id"])
        assert match["outcome"] == "played" and match["table"] == row.table_id
        assert match["status_words"] == "Finished" and match["url"] is None
    final = body["rounds"][1]["matches"]
    assert len(final) == 1 and len(body["rounds"][0]["matches"]) == 2
    round_one_winners = {m["winner"] for m in body["rounds"][0]["matches"]}
    assert {final[0]["a"]["id"], final[0]["b"]["id"]} == round_one_winners
    one = call("GET", f"/api/tournaments/{tournament.pk}", token_for(alice, "read")).json()
    assert one["placings"][0]["entry"] == final[0]["winner"]


def test_a_bot_enters_only_where_the_organizer_welcomes_bots(organizer: Any) -> None:
    """Off by default: a bot account is refused (in words, nothing held), told it may not
    register, and may not be a human's partner either; on: it registers like anyone."""
    from api.bots import bot_upgrade

    bot = bot_upgrade(quick_user("Robo"))
    give(bot, 500)
    token = token_for(bot, "read", "tournaments")
    people_only = make_event(organizer, name="People's night")
    before = dollars(bot)
    event = call("GET", f"/api/tournaments/{people_only.pk}", token).json()
    assert event["bots_welcome"] is False and event["me"]["may_register"] is False
    refused = call("POST", f"/api/tournaments/{people_only.pk}/register", token, {})
    assert refused.status_code == 409, refused.content
    assert refused.json()["code"] == "bots_not_welcome"
    assert dollars(bot) == before and not Entry.objects.filter(player=bot).exists()
    pairs = make_event(
        organizer, name="Pairs", mode="citizen", table_options={"players": 4, "partners": True}
    )
    with pytest.raises(services.TournamentError) as partner_refused:
        services.entry_register(tournament_id=pairs.pk, user=quick_user("Ana"), partner=bot)
    assert partner_refused.value.code == "bots_not_welcome"

    welcome = make_event(organizer, name="Bots' night", bots_welcome=True)
    assert call("GET", f"/api/tournaments/{welcome.pk}", token).json()["bots_welcome"] is True
    registered = call("POST", f"/api/tournaments/{welcome.pk}/register", token, {})
    assert registered.status_code == 200, registered.content
    assert Entry.objects.filter(player=bot, tournament=welcome).exists()
