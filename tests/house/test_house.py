"""House players at the site: accounts, seating, practice, moves, and never holding up a table."""

from __future__ import annotations

import logging
from typing import Any
from unittest import mock

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from accounts.models import HouseLevel, User
from accounts.services import ensure_may_play
from engine import GameState
from engine.bots import LEVELS
from house import services as house
from tables import services as tables
from tables.models import Game, GameAction, Seat, Table

pytestmark = pytest.mark.django_db


def _game(table: Table) -> Game:
    return Game.objects.get(table=table)


def _state(table: Table) -> GameState:
    return GameState.from_json(_game(table).state)


def _bot_to_act(alice: Any, **shape: Any) -> Table:
    """A practice table where the house player in seat 1 is to act (its move not yet made: the
    test's transaction never commits, so no move is queued)."""
    for _ in range(40):
        table = house.practice_start(user=alice, mode="citizen", level="regular", **shape)
        if _state(table).to_act == 1:
            return table
    raise AssertionError("the house player never led")


# ---------------------------------------------------------------- accounts


def test_levels_agree_with_the_engine() -> None:
    assert tuple(HouseLevel.values) == LEVELS == house.LEVELS


def test_house_accounts_are_labelled_adults_that_can_never_log_in(client: Client) -> None:
    bot = house.house_player_get(level="shark")
    assert bot.display_name == "Shark Sam (house)" and bot.house_level == "shark"
    assert bot.is_house_player
    ensure_may_play(bot)  # an adult, verified by the house, active
    assert not bot.has_usable_password()
    assert bot.email.endswith("@house.invalid")
    # the log-in form refuses it, whatever password is tried
    for password in ("", "password", house.house_name("shark", "Sam")):
        client.post(reverse("account_login"), {"login": bot.email, "password": password})
        assert "_auth_user_id" not in client.session
    # even with a password set behind the house's back, the log-in is refused
    bot.set_password("a-password-someone-set-1")
    bot.save()
    client.post(
        reverse("account_login"), {"login": bot.email, "password": "a-password-someone-set-1"}
    )
    assert "_auth_user_id" not in client.session
    # a person's display name can never look like a house player's
    from accounts.forms import DISPLAY_NAME_RE

    assert not DISPLAY_NAME_RE.match("Shark Sam (house)")


def test_house_accounts_are_made_once_and_differ_per_table(alice: Any) -> None:
    first = house.house_player_get(level="rookie")
    assert house.house_player_get(level="rookie") == first
    table = tables.table_create(host=alice, mode="citizen", players=4)
    names = set()
    for number in (1, 2, 3):
        house.house_seat_add(table_id=table.pk, host=alice, number=number, level="rookie")
    for seat in Seat.objects.filter(table=table).exclude(number=0).select_related("user"):
        names.add(seat.user.display_name)
    assert len(names) == 3 and all(n.startswith("Rookie ") and n.endswith("(house)") for n in names)
    assert User.objects.filter(house_level="rookie").count() == 3


def test_profile_says_it_is_a_house_player(client: Client, alice: Any) -> None:
    bot = house.house_player_get(level="regular")
    client.force_login(alice)
    page = client.get(reverse("accounts:profile", args=[bot.pk])).content.decode()
    assert "House player: Regular" in page and "not a person" in page


# ---------------------------------------------------------------- seating


def test_host_seats_and_removes_a_house_player_before_the_game(alice: Any, bob: Any) -> None:
    table = tables.table_create(host=alice, mode="citizen", players=3)
    with pytest.raises(tables.TableError) as refused:
        house.house_seat_add(table_id=table.pk, host=bob, number=1, level="shark")
    assert refused.value.code == "not_host"
    with pytest.raises(tables.TableError) as refused:
        house.house_seat_add(table_id=table.pk, host=alice, number=0, level="shark")
    assert refused.value.code == "seat_taken"
    with pytest.raises(tables.TableError) as refused:
        house.house_seat_add(table_id=table.pk, host=alice, number=1, level="grandmaster")
    assert refused.value.code == "bad_field"
    house.house_seat_add(table_id=table.pk, host=alice, number=1, level="shark")
    seat = Seat.objects.select_related("user").get(table=table, number=1)
    assert seat.user.house_level == "shark" and seat.ready  # ready at once
    # the table's picture says it is a house player, to everyone
    from tables.selectors import table_picture

    player = table_picture(table, _game(table))["seats"][1]["player"]
    assert player["house"] == "shark" and player["name"].endswith("(house)")
    # the ordinary remove refuses a ready player; the house remove frees the seat
    with pytest.raises(tables.TableError):
        tables.seat_remove(table_id=table.pk, host=alice, number=1)
    with pytest.raises(tables.TableError) as refused:
        house.house_seat_remove(table_id=table.pk, host=bob, number=1)
    assert refused.value.code == "not_host"
    with pytest.raises(tables.TableError) as refused:
        house.house_seat_remove(table_id=table.pk, host=alice, number=0)
    assert refused.value.code == "not_house_player"
    house.house_seat_remove(table_id=table.pk, host=alice, number=1)
    assert Seat.objects.get(table=table, number=1).user is None


def test_no_seating_or_removing_once_the_game_has_started(alice: Any, eager: None) -> None:
    table = house.practice_start(user=alice, mode="citizen", level="rookie", players=2)
    with pytest.raises(tables.TableError) as refused:
        house.house_seat_remove(table_id=table.pk, host=alice, number=1)
    assert refused.value.code == "game_started"


def test_a_house_player_completing_the_table_starts_the_game(
    alice: Any, bob: Any, django_capture_on_commit_callbacks: Any, eager: None
) -> None:
    table = tables.table_create(host=alice, mode="citizen", players=3)
    tables.seat_take(table_id=table.pk, user=bob, number=2)
    tables.seat_ready(table_id=table.pk, user=alice, ready=True)
    tables.seat_ready(table_id=table.pk, user=bob, ready=True)
    with django_capture_on_commit_callbacks(execute=True):
        house.house_seat_add(table_id=table.pk, host=alice, number=1, level="regular")
    assert _game(table).status == Game.Status.PLAYING
    state = _state(table)
    assert state.to_act != 1  # if the house player was to act, it has acted already


# ---------------------------------------------------------------- practice


@pytest.mark.parametrize(
    ("mode", "shape"),
    [
        ("citizen", {"players": 4, "partners": True}),
        ("citizen_gym", {"players": 3}),
        ("inmate", {"players": 2}),
        ("inmate_gym", {"players": 4}),
        ("fives", {}),
        ("threes", {}),
    ],
)
def test_practice_starts_at_once_in_any_mode(
    alice: Any,
    mode: str,
    shape: dict[str, Any],
    django_capture_on_commit_callbacks: Any,
    eager: None,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        table = house.practice_start(user=alice, mode=mode, level="regular", **shape)
    assert table.private and table.status == Table.Status.PLAYING
    game = _game(table)
    assert game.status == Game.Status.PLAYING
    assert game.players[0] == alice.pk
    bots = User.objects.filter(pk__in=game.players[1:])
    assert bots.count() == len(game.players) - 1 and all(b.house_level for b in bots)
    # the house players have moved until it is Alice's turn (or the game is over)
    state = GameState.from_json(game.state)
    assert state.is_over or state.to_act == 0


def test_practice_from_the_lobby(client: Client, alice: Any, eager: None) -> None:
    client.force_login(alice)
    page = client.get(reverse("tables:lobby")).content.decode()
    assert 'id="practice-form"' in page and "Start practising" in page
    response = client.post(
        reverse("house:practice"),
        {"practice-mode": "citizen", "practice-shape": "cut_throat_3", "practice-level": "shark"},
    )
    table = Table.objects.get(host=alice)
    assert response.status_code == 302 and response["Location"] == table.get_absolute_url()
    assert table.players == 3 and table.private
    refused = client.post(
        reverse("house:practice"),
        {"practice-mode": "fives", "practice-shape": "partners", "practice-level": "shark"},
    )
    assert refused.status_code == 400
    assert "Fives and Threes are played one on one." in refused.content.decode()
    assert client.get(reverse("house:practice")).status_code == 405


def test_house_players_are_labelled_in_the_lobby(client: Client, alice: Any, bob: Any) -> None:
    table = tables.table_create(host=alice, mode="citizen", players=3)
    house.house_seat_add(table_id=table.pk, host=alice, number=1, level="shark")
    client.force_login(bob)
    page = client.get(reverse("tables:lobby_tables")).content.decode()
    assert "Shark Sam (house)" in page and "House player (a bot): Shark" in page


# ---------------------------------------------------------------- moves


def test_a_house_turn_is_queued_at_the_houses_pace(alice: Any, settings: Any) -> None:
    """Not eager: the move is a Celery task for that game version, with the pace as countdown."""
    settings.HOUSE_PLAYER_PACE_SECONDS = 1.5
    table = _bot_to_act(alice, players=2)
    game = _game(table)
    with mock.patch("house.tasks.house_act.apply_async") as queued:
        house.house_turn_queue(game_id=game.pk, version=game.version)
    queued.assert_called_once_with((game.pk, game.version), countdown=1.5)
    assert _game(table).version == game.version  # queued, not played


def test_a_house_turn_is_announced_after_commit(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    table = tables.table_create(host=alice, mode="citizen", players=2)
    with (
        mock.patch("house.services.house_turn_queue") as queued,
        django_capture_on_commit_callbacks(execute=True) as callbacks,
    ):
        house.house_seat_add(table_id=table.pk, host=alice, number=1, level="regular")
        tables.seat_ready(table_id=table.pk, user=alice, ready=True)
    assert callbacks
    game = _game(table)
    state = GameState.from_json(game.state)
    if state.to_act == 1:
        queued.assert_called_once_with(game_id=game.pk, version=game.version)
    else:
        queued.assert_not_called()  # Alice leads: nothing for the house to do yet


def test_the_task_is_idempotent_and_names_its_version(alice: Any) -> None:
    from house.tasks import house_act

    table = _bot_to_act(alice, players=2)
    game = _game(table)
    assert house_act(game.pk, game.version + 1) is False  # a version it never saw
    assert _game(table).version == game.version
    assert house_act(game.pk, game.version) is True
    moved = _game(table)
    assert moved.version > game.version
    assert house_act(game.pk, game.version) is False  # the game moved on: nothing again
    assert _game(table).version == moved.version
    action = GameAction.objects.get(game=game, version=game.version + 1)
    assert action.seat == 1 and not action.by_server


def test_a_bot_error_falls_back_to_a_legal_move_and_is_logged(
    alice: Any,
    caplog: pytest.LogCaptureFixture,
    django_capture_on_commit_callbacks: Any,
    eager: None,
) -> None:
    table = _bot_to_act(alice, players=4)
    game = _game(table)
    with (
        mock.patch("house.services.decide", side_effect=RuntimeError("the bot broke")),
        caplog.at_level(logging.ERROR, logger="house.services"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        house.house_turn_queue(game_id=game.pk, version=game.version)
    # the house players kept moving until it was Alice's turn, broken or not
    state = _state(table)
    assert state.is_over or state.to_act == 0
    assert GameAction.objects.filter(game=game, seat=1, by_server=False).exists()
    assert "failed to decide" in caplog.text and "the bot broke" in caplog.text


def test_a_refused_bot_move_falls_back_too(
    alice: Any,
    caplog: pytest.LogCaptureFixture,
    django_capture_on_commit_callbacks: Any,
    eager: None,
) -> None:
    from engine import Play
    from engine.bones import Bone

    def nonsense(view: Any, level: str, **kwargs: Any) -> Play:
        held = {b for b in view["hand"]}
        bone = next(b for b in ("0-0", "1-0", "1-1", "2-0") if b not in held)
        return Play(view["seat"], Bone.parse(bone))  # a bone it does not hold

    table = _bot_to_act(alice, players=4)
    game = _game(table)
    with (
        mock.patch("house.services.decide", side_effect=nonsense),
        caplog.at_level(logging.ERROR, logger="house.services"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        house.house_turn_queue(game_id=game.pk, version=game.version)
    state = _state(table)
    assert state.is_over or state.to_act == 0
    assert GameAction.objects.filter(game=game, seat=1, by_server=False).exists()
    assert "refused" in caplog.text


def test_the_sweep_plays_a_lost_turn(alice: Any) -> None:
    """A house turn whose task was lost (here: never queued) is played by the sweep."""
    import datetime as dt

    from django.utils import timezone

    table = _bot_to_act(alice, players=2)
    game = _game(table)
    assert house.house_sweep() == 0  # not yet: it has not waited long enough
    later = timezone.now() + dt.timedelta(seconds=30)
    assert house.house_sweep(now=later) == 1
    assert _game(table).version > game.version
    if _state(table).to_act == 0:
        assert house.house_sweep(now=later) == 0  # a person's turn: nothing to do


def test_a_house_player_never_moves_for_a_person(alice: Any, bob: Any) -> None:
    table = tables.table_create(host=alice, mode="citizen", players=2)
    tables.seat_take(table_id=table.pk, user=bob, number=1)
    tables.seat_ready(table_id=table.pk, user=alice, ready=True)
    tables.seat_ready(table_id=table.pk, user=bob, ready=True)
    game = _game(table)
    assert house.house_turn(game_id=game.pk, version=game.version) is False
    assert _game(table).version == game.version


def test_demo_setup_makes_a_practice_table_for_alice(eager: None) -> None:
    call_command("demo_setup", stdout=open("/dev/null", "w"))  # noqa: SIM115
    alice = User.objects.get(email="alice@example.com")
    table = Table.objects.get(host=alice)
    assert table.private and table.status == Table.Status.PLAYING
    assert any(u.house_level for u in User.objects.filter(pk__in=_game(table).players))
    call_command("demo_setup", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert Table.objects.filter(host=alice).count() == 1  # not made twice


def test_pace_is_a_documented_setting() -> None:
    assert "HOUSE_PLAYER_PACE_SECONDS" in settings.HOUSE_VARIABLES
    from pathlib import Path

    example = (Path(settings.BASE_DIR) / ".env.example").read_text()
    assert "\nHOUSE_PLAYER_PACE_SECONDS=" in example
