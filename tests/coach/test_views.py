"""Who may ask for a review and see it, never for a game in play, the stored result shown at
once; the Hint's refusals and what it gives at a practice table."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any
from unittest import mock

import pytest
from django.test import Client
from django.utils import timezone

from coach.models import Hint, Review
from coach.services import is_choice
from engine import GameState, parse_action
from house import services as house
from tables import services as tables
from tables.models import Game, Table
from tests.history.helpers import play, start_table


def client_for(user: Any, **kwargs: Any) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    return client


JSON = {"HTTP_ACCEPT": "application/json"}


def review_data(html: str) -> Any:
    match = re.search(
        r'<script id="review-data" type="application/json">(.*?)</script>', html, re.S
    )
    assert match
    return json.loads(match.group(1))


@pytest.fixture
def finished(alice: Any, bob: Any, fixed_seeds: None) -> Game:
    table = start_table([alice, bob], "fives", limit=50)
    return play(table, [alice, bob], seed=8)


@pytest.mark.django_db
def test_a_player_asks_and_the_result_is_stored_and_shown_at_once(
    alice: Any, bob: Any, finished: Game, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    client = client_for(alice)
    page = client.get(f"/games/{finished.pk}/").content.decode()
    assert 'id="review-form"' in page and "Ask the Shark for a review" in page
    assert review_data(page) is None
    assert client.get(f"/games/{finished.pk}/review/", **JSON).status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/games/{finished.pk}/review/", **JSON)
    assert response.status_code == 202
    review = Review.objects.get(game=finished, user=alice)
    assert review.status == Review.Status.DONE and review.seat == 0
    status = client.get(f"/games/{finished.pk}/review/", **JSON).json()
    assert status["status"] == "done" and status["done"] == status["total"] == len(
        status["decisions"]
    )
    assert status["summary"]["lines"] and {m["mark"] for m in status["marks"]} == {
        "best",
        "good",
        "inaccuracy",
        "mistake",
        "blunder",
    }
    for d in status["decisions"]:
        assert d["reason"] and d["mark_label"] and d["played"]
        if not d["same"]:
            assert d["board"] and d["board"]["lead"] is not None
    # The next visit shows it at once, from the page itself; asking again computes nothing.
    page = client.get(f"/games/{finished.pk}/").content.decode()
    embedded = review_data(page)
    assert embedded["status"] == "done" and embedded["decisions"] == status["decisions"]
    finished_at = review.finished_at
    with django_capture_on_commit_callbacks(execute=True) as queued:
        again = client.post(f"/games/{finished.pk}/review/", **JSON)
    assert again.status_code == 202 and not queued
    review.refresh_from_db()
    assert review.finished_at == finished_at
    # Without the page's script: the form posts and comes back to the game.
    plain = client_for(bob).post(f"/games/{finished.pk}/review/")
    assert plain.status_code == 302 and plain["Location"].endswith(f"/games/{finished.pk}/#review")


@pytest.mark.django_db
def test_the_review_in_spanish(
    alice: Any, finished: Game, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    client = client_for(alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/games/{finished.pk}/review/", **JSON)
    alice.language = "es"
    alice.save(update_fields=["language"])
    data = client.get(f"/games/{finished.pk}/review/", **JSON).json()
    assert "decisiones" in data["summary"]["lines"][0]
    assert all("Tiburón" in " ".join(d["reason"]) for d in data["decisions"])
    assert all("Shark" not in " ".join(d["reason"]) for d in data["decisions"])


@pytest.mark.django_db
def test_only_its_players_may_ask_or_see(
    alice: Any, bob: Any, make_user: Any, finished: Game, eager: None
) -> None:
    watcher = make_user("Watcher")
    client = client_for(watcher)
    page = client.get(f"/games/{finished.pk}/").content.decode()
    assert "review-form" not in page and "review-data" not in page  # a public game, no review
    response = client.post(f"/games/{finished.pk}/review/", **JSON)
    assert response.status_code == 403 and response.json()["code"] == "not_a_player"
    assert client.get(f"/games/{finished.pk}/review/", **JSON).status_code == 403
    assert not Review.objects.exists()
    anonymous = Client().post(f"/games/{finished.pk}/review/", **JSON)
    assert anonymous.status_code == 302 and "/login" in anonymous["Location"]
    assert client_for(alice).post("/games/999999/review/", **JSON).status_code == 404


@pytest.mark.django_db
def test_never_for_a_game_in_play_or_without_a_result(
    alice: Any, bob: Any, warden: Any, fixed_seeds: None, eager: None
) -> None:
    table = start_table([alice, bob], "fives", limit=50)
    game = play(table, [alice, bob], seed=8, stop=lambda state: state.deal_number >= 2)
    assert game.status == Game.Status.PLAYING
    client = client_for(alice)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "review-form" not in page and "once the game is over" in page
    response = client.post(f"/games/{game.pk}/review/", **JSON)
    assert response.status_code == 409 and response.json()["code"] == "not_finished"
    assert not Review.objects.exists()
    tables.game_void(game_id=game.pk, by=warden, reason="A test of a voided game.")
    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED
    response = client.post(f"/games/{game.pk}/review/", **JSON)
    assert response.status_code == 409 and "no result" in response.json()["error"]


@pytest.mark.django_db
def test_a_lost_or_failed_review_is_worked_out_again(
    alice: Any, finished: Game, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    long_ago = timezone.now() - dt.timedelta(hours=1)
    Review.objects.create(game=finished, user=alice, seat=0, status="queued")
    Review.objects.filter(game=finished).update(created_at=long_ago)
    with django_capture_on_commit_callbacks(execute=True):
        client_for(alice).post(f"/games/{finished.pk}/review/", **JSON)
    assert Review.objects.get(game=finished).status == Review.Status.DONE
    Review.objects.filter(game=finished).update(status="failed", result=None)
    with django_capture_on_commit_callbacks(execute=True):
        client_for(alice).post(f"/games/{finished.pk}/review/", **JSON)
    assert Review.objects.get(game=finished).status == Review.Status.DONE


# --- hints ------------------------------------------------------------------------------------


def practice(user: Any, capture: Any) -> Table:
    with capture(execute=True):
        return house.practice_start(user=user, mode="fives", level="rookie", limit=50)


def act(game: Game, user: Any, action: dict[str, Any], capture: Any) -> None:
    """A move by the person; the house players answer at once (eager tasks, after commit)."""
    action = {k: v for k, v in action.items() if k != "seat"}
    with capture(execute=True):
        tables.game_act(table_id=game.table_id, user=user, version=game.version, action=action)


def my_turn(game: Game, seat: int, capture: Any) -> Game:
    """Play the game on (house players move by themselves) until `seat` has a choice to make."""
    for _ in range(400):
        game.refresh_from_db()
        state = GameState.from_json(game.state)
        if state.to_act == seat and is_choice(state):  # not a draw: a choice of plays
            return game
        assert state.to_act == seat, "house players move at once under eager tasks"
        act(game, game_user(game, seat), state.legal_actions()[0].to_dict(), capture)
    raise AssertionError("no choice came")


def game_user(game: Game, seat: int) -> Any:
    from accounts.models import User

    return User.objects.get(pk=game.players[seat])


@pytest.mark.django_db
def test_a_hint_at_practice_is_the_sharks_move_and_is_remembered(
    alice: Any, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    table = practice(alice, django_capture_on_commit_callbacks)
    game = my_turn(Game.objects.get(table=table), 0, django_capture_on_commit_callbacks)
    client = client_for(alice, enforce_csrf_checks=True)
    page = client.get(f"/tables/{table.pk}/").content.decode()
    assert 'id="coach-hint"' in page
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = client.post(f"/tables/{table.pk}/hint/", HTTP_X_CSRFTOKEN=token, **JSON)
    assert response.status_code == 200, response.content
    hint = response.json()
    state = GameState.from_json(game.state)
    legal = [a.to_dict() for a in state.legal_actions()]
    assert {**hint["action"], "seat": 0} in legal or hint["action"] in legal
    assert hint["version"] == game.version and hint["move"] and hint["reason"]
    assert Hint.objects.get(game=game).version == game.version
    # Asked again at the same turn: the same hint, read back, not worked out again.
    with mock.patch("coach.services.analyse", side_effect=AssertionError("worked out again")):
        again = client.post(f"/tables/{table.pk}/hint/", HTTP_X_CSRFTOKEN=token, **JSON)
    assert again.json() == hint
    # Played: the review of the game marks that move as hinted.
    action = {k: v for k, v in hint["action"].items() if k != "seat"}
    act(game, alice, action, django_capture_on_commit_callbacks)
    for _ in range(2000):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        state = GameState.from_json(game.state)
        act(game, alice, state.legal_actions()[0].to_dict(), django_capture_on_commit_callbacks)
    assert game.status == Game.Status.FINISHED
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/games/{game.pk}/review/", HTTP_X_CSRFTOKEN=token, **JSON)
    result = Review.objects.get(game=game).result
    hinted = [d for d in result["decisions"] if d["hinted"]]
    assert [d["version"] for d in hinted] == [Hint.objects.get(game=game).version + 1]
    assert parse_action({**hinted[0]["options"][hinted[0]["played"]]["action"]}).to_dict() == {
        **action,
        "seat": 0,
        "type": action["type"],
    }
    assert result["summary"]["hinted"] == 1


@pytest.mark.django_db
def test_the_hint_refuses_everywhere_but_your_turn_at_practice(
    alice: Any, bob: Any, make_user: Any, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    # Not your turn: house players move at once here, so the game is made to wait on one.
    table = practice(alice, django_capture_on_commit_callbacks)
    game = my_turn(Game.objects.get(table=table), 0, django_capture_on_commit_callbacks)
    client = client_for(alice)
    state = GameState.from_json(game.state)
    state.to_act = 1
    Game.objects.filter(pk=game.pk).update(state=state.to_json())
    response = client.post(f"/tables/{table.pk}/hint/", **JSON)
    assert response.status_code == 409 and response.json()["code"] == "not_your_turn"
    # Someone else at a practice table (not seated): refused.
    carol = make_user("Carol")
    response = client_for(carol).post(f"/tables/{table.pk}/hint/", **JSON)
    assert response.status_code == 403 and response.json()["code"] == "not_seated"
    # A table with another person: never, and no button on its page.
    people = start_table([alice, bob], "fives", limit=50)
    other = Game.objects.get(table=people)
    seat = GameState.from_json(other.state).to_act
    user = [alice, bob][seat]
    assert "coach-hint" not in client_for(user).get(f"/tables/{people.pk}/").content.decode()
    response = client_for(user).post(f"/tables/{people.pk}/hint/", **JSON)
    assert response.status_code == 403 and response.json()["code"] == "not_practice"
    assert not Hint.objects.exists()
    # A GET, a post without the CSRF token, a visitor not logged in.
    assert client.get(f"/tables/{table.pk}/hint/").status_code == 405
    strict = client_for(alice, enforce_csrf_checks=True)
    assert strict.post(f"/tables/{table.pk}/hint/", **JSON).status_code == 403
    assert Client().post(f"/tables/{table.pk}/hint/", **JSON).status_code == 302
    assert client.post("/tables/999999/hint/", **JSON).status_code == 404


@pytest.mark.django_db
def test_no_hint_at_a_tournament_table(
    alice: Any, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    from tournaments.models import Match, Tournament

    table = practice(alice, django_capture_on_commit_callbacks)
    game = my_turn(Game.objects.get(table=table), 0, django_capture_on_commit_callbacks)
    now = timezone.now()
    tournament = Tournament.objects.create(
        organizer=alice,
        name="Cup",
        mode="fives",
        table_settings=game.state["settings"],
        format="single",
        max_entrants=2,
        registration_opens=now - dt.timedelta(hours=1),
        registration_closes=now - dt.timedelta(minutes=30),
        starts_at=now - dt.timedelta(minutes=20),
    )
    Match.objects.create(
        tournament=tournament, key="w1-1", round=1, bracket="w", stage=1, number=1, table=table
    )
    response = client_for(alice).post(f"/tables/{table.pk}/hint/", **JSON)
    assert response.status_code == 403 and response.json()["code"] == "not_practice"
    assert "coach-hint" not in client_for(alice).get(f"/tables/{table.pk}/").content.decode()


@pytest.mark.django_db
def test_staff_see_reviews_and_hints_read_only(
    alice: Any, warden: Any, finished: Game, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        client_for(alice).post(f"/games/{finished.pk}/review/", **JSON)
    staff = client_for(warden)
    listing = staff.get("/admin/coach/review/")
    assert listing.status_code == 200 and "Alice" in listing.content.decode()
    review = Review.objects.get()
    page = staff.get(f"/admin/coach/review/{review.pk}/change/").content.decode()
    assert 'name="_save"' not in page  # read-only: the coach writes reviews
    assert staff.get("/admin/coach/review/add/").status_code == 403
    assert staff.get("/admin/coach/hint/").status_code == 200


def house_table(user: Any, capture: Any, **create: Any) -> Table:
    """A table `user` made in the lobby, a house player in the other seat, started."""
    with capture(execute=True):
        table = tables.table_create(host=user, private=True, players=2, **create)
        house.house_seat_add(table_id=table.pk, host=user, number=1, level="rookie")
        tables.seat_ready(table_id=table.pk, user=user, ready=True)
    return table


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("create", "why"),
    [
        ({"mode": "citizen", "stake": "dollars", "rated": False}, "stake"),
        ({"mode": "fives", "stake": "dollars", "rated": False, "limit": 50}, "stake"),
        ({"mode": "citizen", "rated": True}, "rated"),
        ({"mode": "fives", "rated": True, "limit": 50}, "rated"),
    ],
)
def test_no_hint_where_something_is_at_stake_or_rated(
    alice: Any, eager: None, django_capture_on_commit_callbacks: Any, create: dict, why: str
) -> None:
    from ledger.services import StakeSpec

    if create.pop("stake", None):
        create["stake"] = StakeSpec(dollars=10)
    table = house_table(alice, django_capture_on_commit_callbacks, **create)
    game = my_turn(Game.objects.get(table=table), 0, django_capture_on_commit_callbacks)
    client = client_for(alice)
    assert "coach-hint" not in client.get(f"/tables/{table.pk}/").content.decode()
    response = client.post(f"/tables/{table.pk}/hint/", **JSON)
    assert response.status_code == 403 and response.json()["code"] == "not_practice"
    assert why in response.json()["error"]
    assert not Hint.objects.exists()
    assert Game.objects.get(pk=game.pk).version == game.version


@pytest.mark.django_db
def test_a_practice_game_is_casual_and_an_unrated_table_of_house_players_gets_hints(
    alice: Any, eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    assert practice(alice, django_capture_on_commit_callbacks).rated is False
    table = house_table(alice, django_capture_on_commit_callbacks, mode="citizen_gym", rated=False)
    my_turn(Game.objects.get(table=table), 0, django_capture_on_commit_callbacks)
    client = client_for(alice)
    assert 'id="coach-hint"' in client.get(f"/tables/{table.pk}/").content.decode()
    assert client.post(f"/tables/{table.pk}/hint/", **JSON).status_code == 200
