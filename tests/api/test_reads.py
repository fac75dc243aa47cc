"""The read endpoints: your account and games in progress, profiles as their privacy allows,
leaderboards, one game's export (with nothing of a hand in play), and a player's games as a
stream with its filters."""

from __future__ import annotations

import datetime as dt
from typing import Any
from urllib.parse import urlencode

import pytest
from django.utils import timezone

from accounts.models import ProfileVisibility
from history.services import game_archive
from ratings.models import RatedGame
from tables.models import Game, Hand
from tests.api.helpers import call, lines, token_for
from tests.history.helpers import play, start_table

pytestmark = pytest.mark.django_db


def finished(players: list[Any], seed: int, **options: Any) -> Game:
    table = start_table(players, "fives", limit=50, **options)
    game = play(table, players, seed=seed)
    assert game.status == Game.Status.FINISHED
    game_archive(game=game)
    return game


def test_your_games_in_progress_say_whose_turn_it_is(alice: Any, bob: Any) -> None:
    table = start_table([alice, bob], "fives", limit=50)
    game = Game.objects.get(table=table)
    mine = call("GET", "/api/account/playing", token_for(alice)).json()
    assert len(mine) == 1
    row = mine[0]
    assert row["table"] == table.pk and row["game"] == game.pk and row["seat"] == 0
    assert row["version"] == game.version and row["status"] == "playing"
    assert row["my_turn"] == (game.state["to_act"] == 0)
    assert [p["name"] for p in row["players"]] == ["Alice", "Bob"]
    theirs = call("GET", "/api/account/playing", token_for(bob)).json()
    assert theirs[0]["my_turn"] == (game.state["to_act"] == 1)
    assert row["my_turn"] != theirs[0]["my_turn"]


def test_profiles_show_as_their_privacy_allows(alice: Any, bob: Any, make_user: Any) -> None:
    carol = make_user("Carol")
    finished([alice, bob], seed=3)
    alice.profile_visibility = ProfileVisibility.EVERYONE
    alice.save()
    bob.profile_visibility = ProfileVisibility.ONLY_ME
    bob.save()
    anyone = call("GET", f"/api/players/{alice.pk}")
    assert anyone.status_code == 200 and anyone["X-RateLimit-Bucket"] == "anonymous"
    body = anyone.json()
    assert body["player"]["name"] == "Alice" and body["games"] == 1
    assert body["modes"] == [{"mode": "fives", "games": 1, "wins": body["wins"]}]
    # Bob keeps his profile to himself: nobody else learns it exists.
    for token in (None, token_for(carol)):
        refused = call("GET", f"/api/players/{bob.pk}", token)
        assert refused.status_code == 404 and refused.json()["code"] == "no_such_player"
        assert "Bob" not in refused.content.decode()
        assert call("GET", f"/api/players/{bob.pk}/ratings", token).status_code == 404
    assert call("GET", f"/api/players/{bob.pk}", token_for(bob)).status_code == 200
    # Open to players: a token is needed.
    carol_token = token_for(carol)
    assert call("GET", f"/api/players/{carol.pk}").status_code == 404
    assert call("GET", f"/api/players/{carol.pk}", token_for(alice)).status_code == 200
    assert call("GET", "/api/players/999999", carol_token).status_code == 404
    assert call("GET", "/api/players/0", carol_token).status_code == 400


def test_a_game_s_export_holds_the_hands_that_are_over_and_only_those(
    alice: Any, bob: Any, make_user: Any
) -> None:
    table = start_table([alice, bob], "fives", limit=150)
    game = play(table, [alice, bob], seed=11, stop=lambda state: state.deal_number >= 2)
    assert game.status == Game.Status.PLAYING
    current = int(game.state["deal"])
    in_play = Hand.objects.get(game=game, number=current)
    body = call("GET", f"/api/games/{game.pk}", token_for(make_user("Watcher"))).json()
    assert [h["number"] for h in body["hands"]] == list(range(1, current))
    assert body["current"] == {"number": current, "commitment": in_play.commitment}
    text = str(body)
    assert in_play.server_seed not in text
    for seat in range(2):
        assert " ".join(game.state["hands"][seat]) not in text
    over = Hand.objects.get(game=game, number=1)
    first = body["hands"][0]
    assert first["seed"] == over.server_seed and first["commitment"] == over.commitment
    assert len(first["dealt"]) == 2 and all(len(b) == 7 for b in first["dealt"])
    assert first["plays"] and first["plays"][0]["events"]


def test_a_finished_game_s_export_agrees_with_its_page(alice: Any, bob: Any) -> None:
    game = finished([alice, bob], seed=4)
    token = token_for(alice)
    body = call("GET", f"/api/games/{game.pk}", token).json()
    assert body["status"] == "finished" and body["winner"] == game.result["winner"]
    assert [s["score"] for s in body["sides"]] == game.state["scores"]
    assert [s["player"]["id"] for s in body["seats"]] == game.players
    assert len(body["hands"]) == Hand.objects.filter(game=game, dealt_at__isnull=False).count()
    text = call("GET", f"/api/games/{game.pk}/text", token)
    assert text["Content-Type"].startswith("text/plain")
    assert f"game {game.pk}" in text.content.decode()


def test_a_private_table_s_game_is_only_for_its_players(
    alice: Any, bob: Any, make_user: Any
) -> None:
    game = finished([alice, bob], seed=5, private=True)
    assert call("GET", f"/api/games/{game.pk}", token_for(bob)).status_code == 200
    stranger = token_for(make_user("Stranger"))
    refused = call("GET", f"/api/games/{game.pk}", stranger)
    assert refused.status_code == 404 and refused.json()["code"] == "no_such_game"
    assert call("GET", f"/api/games/{game.pk}/text", stranger).status_code == 404
    assert call("GET", f"/api/games/{game.pk}").status_code == 401
    # ... and not in the stranger's view of Alice's games either.
    assert lines(call("GET", f"/api/players/{alice.pk}/games", stranger)) == []
    assert [g["id"] for g in lines(call("GET", "/api/account/games", token_for(alice)))] == [
        game.pk
    ]


def test_a_player_s_games_stream_newest_first_with_filters(
    alice: Any, bob: Any, make_user: Any
) -> None:
    games = [finished([alice, bob], seed=s) for s in (21, 22, 23)]
    # Spread their ends over three days, oldest first.
    base = timezone.now() - dt.timedelta(days=3)
    for n, game in enumerate(games):
        when = base + dt.timedelta(days=n)
        Game.objects.filter(pk=game.pk).update(finished_at=when)
        game.player_records.update(finished_at=when)
    token = token_for(make_user("Reader"))
    url = f"/api/players/{alice.pk}/games"
    answer = call("GET", url, token)
    assert answer["Content-Type"] == "application/x-ndjson"
    rows = lines(answer)
    assert [r["id"] for r in rows] == [g.pk for g in reversed(games)]
    assert {r["mode"] for r in rows} == {"fives"}
    assert [p["name"] for p in rows[0]["players"]] == ["Alice", "Bob"]
    assert [r["id"] for r in lines(call("GET", f"{url}?max=2", token))] == [
        games[2].pk,
        games[1].pk,
    ]
    since = (base + dt.timedelta(days=1)).isoformat()
    until = (base + dt.timedelta(days=2)).isoformat()
    window = lines(call("GET", f"{url}?{urlencode({'since': since, 'until': until})}", token))
    assert [r["id"] for r in window] == [games[1].pk]
    assert lines(call("GET", f"{url}?mode=citizen", token)) == []
    rated = set(RatedGame.objects.filter(rated=True).values_list("game_id", flat=True))
    assert rated  # a public Fives table is rated
    RatedGame.objects.filter(game=games[0]).update(rated=False, why_not="farming")
    assert [r["id"] for r in lines(call("GET", f"{url}?rated=true", token))] == [
        games[2].pk,
        games[1].pk,
    ]
    unrated = lines(call("GET", f"{url}?rated=false", token))
    assert [(r["id"], r["rated"]) for r in unrated] == [(games[0].pk, False)]
    bad = call("GET", f"{url}?mode=chess", token)
    assert bad.status_code == 400 and bad.json()["field"] == "mode"
    assert call("GET", f"{url}?max=0", token).status_code == 400
    backwards = urlencode({"since": until, "until": since})
    assert lines(call("GET", f"{url}?{backwards}", token)) == []  # an empty window


def test_leaderboards_are_public(alice: Any) -> None:
    answer = call("GET", "/api/leaderboards/allfives-1v1")
    assert answer.status_code == 200
    assert answer.json() == {
        "pool": "allfives-1v1",
        "pool_name": "All Fives, one on one",
        "rows": [],
    }
    assert call("GET", "/api/leaderboards/chess").status_code == 400
