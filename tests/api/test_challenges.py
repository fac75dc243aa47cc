"""Challenges and Play now through the API: the same services as the pages (a challenge sent,
accepted, declined, withdrawn; the pools joined, left, and the Ready a matched table waits
for), each refusal in the services' words with its status, and the scopes."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client

from ledger.services import DOLLARS
from pairing.models import Match as PoolMatch
from pairing.models import PoolEntry
from social.models import Challenge
from tables.models import Seat, Table
from tests.api.helpers import call, token_for
from tests.ledger.helpers import dollars, give, take_all

pytestmark = pytest.mark.django_db

FIVES = {"mode": "fives", "limit": 100}


def bodiless(path: str, token: str) -> Any:
    """A POST with no body at all (as `curl -X POST` sends it)."""
    return Client().post(
        path, data="", content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}"
    )


def challenge(token: str, player: Any, **settings: Any) -> Any:
    return call("POST", "/api/challenges", token, {"player": player.pk, **settings})


def test_a_challenge_sent_and_accepted_seats_both_at_a_new_table(alice: Any, bob: Any) -> None:
    mine, theirs = token_for(alice, "challenge"), token_for(bob, "challenge")
    sent = challenge(mine, bob, **FIVES, rated=False)
    assert sent.status_code == 201, sent.content
    body = sent.json()
    row = Challenge.objects.get()
    assert body["id"] == row.pk and body["status"] == "pending" and body["pending"] is True
    assert body["sent"] is True
    assert (body["challenger"]["name"], body["challenged"]["name"]) == ("Alice", "Bob")
    assert body["mode"] == "fives" and body["options"]["limit"] == 100
    assert body["options"] == row.options and row.options["players"] == 2
    assert body["rated"] is False and row.rated is False
    assert body["stake"] == {"dollars": 0, "canteen": []}
    assert "first to 100" in body["terms"] and "casual (not rated)" in body["terms"]
    expires = dt.datetime.fromisoformat(body["expires_at"])
    created = dt.datetime.fromisoformat(body["created_at"])
    assert expires - created == dt.timedelta(seconds=120)
    assert body["table"] is None and body["url"] == f"/challenges/{row.pk}/"

    # Each side lists it where it belongs.
    bobs = call("GET", "/api/challenges", theirs).json()
    assert [c["id"] for c in bobs["received"]] == [row.pk] and bobs["sent"] == []
    assert bobs["received"][0]["sent"] is False
    alices = call("GET", "/api/challenges", mine).json()
    assert [c["id"] for c in alices["sent"]] == [row.pk] and alices["received"] == []

    accepted = call("POST", f"/api/challenges/{row.pk}/accept", theirs)
    assert accepted.status_code == 200, accepted.content
    answer = accepted.json()
    table = Table.objects.get()
    assert answer == {
        "challenge": row.pk,
        "table": table.pk,
        "url": f"/tables/{table.pk}/",
        "stream": f"/api/tables/{table.pk}/stream",
    }
    assert table.host_id == alice.pk and table.mode == "fives" and table.rated is False
    assert table.settings["limit"] == 100 and table.private
    assert {s.number: s.user_id for s in Seat.objects.filter(table=table)} == {
        0: alice.pk,
        1: bob.pk,
    }
    row.refresh_from_db()
    assert (row.status, row.table_id) == ("accepted", table.pk)
    seen = call("GET", f"/api/challenges/{row.pk}", mine).json()
    assert seen["status"] == "accepted" and seen["table"] == table.pk
    assert seen["table_url"] == f"/tables/{table.pk}/"
    assert call("GET", "/api/challenges", mine).json()["answered"][0]["id"] == row.pk

    # Answered once: a second accept is a conflict, and seats nobody again.
    again = call("POST", f"/api/challenges/{row.pk}/accept", theirs)
    assert again.status_code == 409
    assert again.json() == {
        "code": "challenge_accepted",
        "message": "This challenge was already accepted.",
    }
    assert Table.objects.count() == 1


def test_decline_and_withdraw(alice: Any, bob: Any) -> None:
    mine, theirs = token_for(alice, "challenge"), token_for(bob, "challenge")
    first = challenge(mine, bob, mode="citizen").json()
    declined = call("POST", f"/api/challenges/{first['id']}/decline", theirs)
    assert declined.status_code == 200
    assert declined.json()["status"] == "declined" and declined.json()["pending"] is False
    assert Challenge.objects.get(pk=first["id"]).status == "declined"
    late = call("POST", f"/api/challenges/{first['id']}/withdraw", mine)
    assert late.status_code == 409 and late.json()["code"] == "challenge_declined"
    assert late.json()["message"] == "This challenge was declined."

    second = challenge(mine, bob, mode="citizen").json()
    withdrawn = call("POST", f"/api/challenges/{second['id']}/withdraw", mine)
    assert withdrawn.status_code == 200 and withdrawn.json()["status"] == "withdrawn"
    refused = call("POST", f"/api/challenges/{second['id']}/accept", theirs)
    assert refused.status_code == 409
    assert refused.json()["message"] == "This challenge was withdrawn."
    assert not Table.objects.exists()
    answered = call("GET", "/api/challenges", theirs).json()["answered"]
    assert [(c["id"], c["status"]) for c in answered] == [
        (second["id"], "withdrawn"),
        (first["id"], "declined"),
    ]


def test_bad_settings_are_refused_on_their_fields(alice: Any, bob: Any) -> None:
    mine = token_for(alice, "challenge")
    cases = [
        (
            {"mode": "fives", "shape": "partners"},
            "shape",
            "Fives and Threes are played one on one, by two players.",
        ),
        (
            {"mode": "citizen", "shape": "partners", "deal": 9},
            "deal",
            "Four players can't be dealt 9 bones each: the set has only 28.",
        ),
        ({"mode": "citizen", "clock": 20}, "clock", "Only Gym tables play on the clock."),
        (
            {"mode": "inmate", "get_on": 0},
            "get_on",
            "Inmate tables get on with 10, 15 or 20.",
        ),
    ]
    for settings, field, words in cases:
        refused = challenge(mine, bob, **settings)
        assert refused.status_code == 400, (settings, refused.content)
        body = refused.json()
        assert (body["code"], body["field"], body["message"]) == ("bad_field", field, words)
        assert body["errors"][field] == [words]
    # The schema's own checks: a mode that is none, a negative stake, no player.
    for settings, field in [
        ({"mode": "poker"}, "mode"),
        ({"mode": "citizen", "stake": -5}, "stake"),
        ({"mode": "citizen", "canteen": [{"good": 1, "quantity": -1}]}, "canteen.0.quantity"),
    ]:
        refused = challenge(mine, bob, **settings)
        assert refused.status_code == 400 and refused.json()["field"] == field, refused.content
    nobody = call("POST", "/api/challenges", mine, {"player": 999999, "mode": "citizen"})
    assert nobody.status_code == 404 and nobody.json()["code"] == "no_such_player"
    assert not Challenge.objects.exists() and not Table.objects.exists()


def test_refusals_say_why_in_the_services_words(alice: Any, bob: Any, make_user: Any) -> None:
    carol = make_user("Carol")
    mine, theirs = token_for(alice, "challenge"), token_for(bob, "challenge")
    myself = challenge(mine, alice, mode="citizen")
    assert myself.status_code == 400
    assert myself.json() == {"code": "challenge_self", "message": "You can't challenge yourself."}
    sent = challenge(mine, bob, mode="citizen").json()
    twice = challenge(mine, bob, mode="citizen")
    assert twice.status_code == 409 and twice.json()["code"] == "already_pending"
    assert twice.json()["message"] == (
        "You already challenged Bob: wait for the answer, or withdraw it."
    )
    # Not yours: a stranger learns nothing of it; the challenger cannot answer for Bob.
    stranger = token_for(carol, "challenge")
    for verb in ("accept", "decline", "withdraw"):
        refused = call("POST", f"/api/challenges/{sent['id']}/{verb}", stranger)
        assert refused.status_code == 404 and refused.json()["code"] == "no_challenge"
    assert call("GET", f"/api/challenges/{sent['id']}", stranger).status_code == 404
    own = call("POST", f"/api/challenges/{sent['id']}/accept", mine)
    assert own.status_code == 403
    assert own.json()["message"] == "Only the challenged player can answer this challenge."
    assert call("POST", f"/api/challenges/{sent['id']}/withdraw", theirs).status_code == 403
    assert Challenge.objects.get(pk=sent["id"]).status == "pending"


def test_the_challenger_never_learns_the_other_players_balance(
    alice: Any, bob: Any, warden: Any
) -> None:
    take_all(bob, DOLLARS, warden)
    give(bob, DOLLARS, 3, warden)
    mine, theirs = token_for(alice, "challenge"), token_for(bob, "challenge")
    before = dollars(alice)
    sent = challenge(mine, bob, mode="fives", stake=10)
    assert sent.status_code == 201  # whether Bob can cover it is not asked of Alice's send
    assert sent.json()["stake"] == {"dollars": 10, "canteen": []}
    refused = call("POST", f"/api/challenges/{sent.json()['id']}/accept", theirs)
    assert refused.status_code == 409 and refused.json()["code"] == "cannot_cover"
    assert "3 Dollars" in refused.json()["message"]  # Bob is told his own balance
    seen = call("GET", f"/api/challenges/{sent.json()['id']}", mine)
    assert seen.json()["status"] == "failed"
    text = seen.content.decode()
    assert "cover" not in text and "3 Dollars" not in text and "failure" not in text
    assert dollars(alice) == before and not Table.objects.exists()


def test_a_read_only_token_may_not_challenge(alice: Any, bob: Any) -> None:
    reader = token_for(alice, "read")
    for method, path, body in [
        ("GET", "/api/challenges", None),
        ("POST", "/api/challenges", {"player": bob.pk, "mode": "citizen"}),
        ("POST", "/api/challenges/1/accept", None),
        ("GET", "/api/challenges/pool", None),
        ("POST", "/api/challenges/pool", {"mode": "fives"}),
        ("DELETE", "/api/challenges/pool", None),
    ]:
        refused = call(method, path, reader, body)
        assert refused.status_code == 403, (method, path)
        assert refused.json()["code"] == "missing_scope" and refused.json()["scope"] == "challenge"
    assert call("GET", "/api/challenges").status_code == 401
    assert not Challenge.objects.exists() and not PoolEntry.objects.exists()


def test_play_now_join_leave_and_ready(alice: Any, bob: Any) -> None:
    mine, theirs = token_for(alice, "challenge"), token_for(bob, "challenge")
    joined = call("POST", "/api/challenges/pool", mine, {"mode": "fives", "shape": "1v1"})
    assert joined.status_code == 200, joined.content
    status = joined.json()
    assert (status["state"], status["cell"], status["pool_size"]) == ("waiting", "fives:1v1:0", 1)
    assert status["label"] == "Fives, one on one, for nothing" and status["table"] is None
    assert call("GET", "/api/challenges/pool", mine).json()["state"] == "waiting"
    left = call("DELETE", "/api/challenges/pool", mine).json()
    assert left["left"] is True and left["status"]["state"] == "idle"
    assert PoolEntry.objects.get(user=alice).status == "left"
    assert call("DELETE", "/api/challenges/pool", mine).json()["left"] is False

    # Refused on their fields: a shape Fives never takes, a stake not on the grid.
    wrong = call("POST", "/api/challenges/pool", mine, {"mode": "fives", "shape": "ct3"})
    assert wrong.status_code == 400 and wrong.json()["field"] == "shape"
    assert wrong.json()["message"] == "Choose a game from the grid."
    odd = call("POST", "/api/challenges/pool", mine, {"mode": "citizen", "stake": 20})
    assert odd.status_code == 400 and odd.json()["field"] == "stake"
    assert odd.json()["message"] == "Choose a stake from the list."
    nowhere = call("POST", "/api/challenges/pool/ready", mine, {"ready": True})
    assert nowhere.status_code == 409 and nowhere.json()["code"] == "not_seated"

    # Two who fit are seated at once, and the table waits for both to be ready.
    call("POST", "/api/challenges/pool", mine, {"mode": "fives"})
    seated = call("POST", "/api/challenges/pool", theirs, {"mode": "fives"}).json()
    match = PoolMatch.objects.get()
    assert seated["state"] == "seated" and seated["table"] == match.table_id
    assert seated["url"] == f"/tables/{match.table_id}/" and seated["ready"] is False
    confirm_by = dt.datetime.fromisoformat(seated["confirm_by"])
    assert abs((confirm_by - match.confirm_by).total_seconds()) < 0.01
    assert call("GET", "/api/challenges/pool", mine).json()["table"] == match.table_id
    busy = call("POST", "/api/challenges/pool", mine, {"mode": "threes"})
    assert busy.status_code == 409 and busy.json()["code"] == "already_seated"
    assert busy.json()["table"] == match.table_id

    ready = call("POST", "/api/challenges/pool/ready", mine, {"ready": True}).json()
    assert ready["ready"] is True
    assert Table.objects.get(pk=match.table_id).status == "open"
    empty = bodiless("/api/challenges/pool/ready", theirs)
    assert empty.status_code == 200  # no body at all: ready
    assert Table.objects.get(pk=match.table_id).status == "playing"
    assert set(Seat.objects.filter(table_id=match.table_id).values_list("user_id", flat=True)) == {
        alice.pk,
        bob.pk,
    }
