"""House players take the rematch: after a game they offer it, so the person's "rematch" starts
the next game at once (house.services.house_rematch_accept, queued when a game is over)."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

from house import services as house
from tables import services as tables
from tables.models import Game, Seat, Table
from tests.history.helpers import play

pytestmark = pytest.mark.django_db


def practice(alice: Any) -> tuple[Table, Any]:
    table = house.practice_start(user=alice, mode="fives", level="rookie", limit=50)
    bot = Seat.objects.get(table=table, number=1).user
    return table, bot


def test_a_finished_practice_game_is_followed_by_the_next_at_once(
    alice: Any, django_capture_on_commit_callbacks: Any, eager: None
) -> None:
    table, bot = practice(alice)
    with django_capture_on_commit_callbacks(execute=True):
        game = play(table, [alice, bot], seed=5)
    assert game.status == Game.Status.FINISHED
    # the game-over announcement reached the house: its player wants the rematch already
    assert Seat.objects.get(table=table, user=bot).rematch is True
    assert not Seat.objects.get(table=table, user=alice).rematch
    with django_capture_on_commit_callbacks(execute=True):
        tables.rematch_offer(table_id=table.pk, user=alice)
    second = Game.objects.get(table=table, number=2)
    assert second.status == Game.Status.PLAYING
    assert second.players == [alice.pk, bot.pk]
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING


def test_a_person_who_offered_first_gets_the_rematch_from_the_house(alice: Any) -> None:
    table, bot = practice(alice)
    game = play(table, [alice, bot], seed=7)  # the house's announcement is never sent here
    tables.rematch_offer(table_id=table.pk, user=alice)
    assert not Game.objects.filter(table=table, number=2).exists()
    assert house.house_rematch_accept(game_id=game.pk) == 1
    assert Game.objects.get(table=table, number=2).status == Game.Status.PLAYING


def test_nothing_before_the_end_nor_after_the_next_game(alice: Any) -> None:
    table, bot = practice(alice)
    first = Game.objects.get(table=table)
    assert house.house_rematch_accept(game_id=first.pk) == 0  # still being played
    assert not Seat.objects.get(table=table, user=bot).rematch
    play(table, [alice, bot], seed=9)
    tables.rematch_offer(table_id=table.pk, user=alice)
    house.house_rematch_accept(game_id=first.pk)
    assert house.house_rematch_accept(game_id=first.pk) == 0  # game 2 has started
    assert Game.objects.filter(table=table).count() == 2


def test_a_refused_rematch_is_logged_not_raised(
    alice: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    table, bot = practice(alice)
    game = play(table, [alice, bot], seed=11)
    monkeypatch.setattr(tables, "SEAT_GUARDS", [lambda *args: "a tournament's table"])
    with caplog.at_level("INFO", logger="house.services"):
        assert house.house_rematch_accept(game_id=game.pk) == 0
    assert "no rematch" in caplog.text
    assert not Seat.objects.get(table=table, user=bot).rematch


def test_the_offer_is_queued_at_the_houses_pace_when_a_game_ends(
    alice: Any, bob: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.HOUSE_PLAYER_PACE_SECONDS = 1.5
    table, bot = practice(alice)
    with (
        mock.patch("house.tasks.house_rematch.apply_async") as queued,
        mock.patch("house.services.house_turn_queue"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        game = play(table, [alice, bot], seed=13)
    queued.assert_called_with((game.pk,), countdown=1.5)
    # a game between people only: the house is not asked
    people = tables.table_create(host=alice, mode="fives", limit=50)
    tables.seat_take(table_id=people.pk, user=bob, number=1)
    for user in (alice, bob):
        tables.seat_ready(table_id=people.pk, user=user, ready=True)
    with (
        mock.patch("house.services.house_rematch_queue") as asked,
        django_capture_on_commit_callbacks(execute=True),
    ):
        play(people, [alice, bob], seed=13)
    asked.assert_not_called()
