"""Bot accounts (docs/api.md, "Bot accounts"): becoming one, the BOT mark, playing only through
the API, rated games only with consent, and Play now pools."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from api import bots
from api.bots import BotError, bot_upgrade
from pairing import services as pairing
from pairing.models import PoolEntry
from social import services as social
from social.models import Challenge
from tables import selectors
from tables import services as tables
from tables.models import Game, Seat, Table
from tests.api.helpers import call, token_for
from tests.history.helpers import play, start_table
from tests.tables.helpers import connect

UPGRADE = "/api/bot/account/upgrade"
ONE_ON_ONE = {"players": 2}


def make_bot(user: User) -> User:
    """A bot account as the upgrade makes one (the account has never played)."""
    return bot_upgrade(user)


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def challenge(challenger: Any, challenged: Any, **kwargs: Any) -> Challenge:
    return social.challenge_send(
        challenger=challenger, challenged=challenged, mode="citizen", options=ONE_ON_ONE, **kwargs
    )


def refusal(call_it: Callable[[], Any]) -> social.SocialError:
    with pytest.raises(social.SocialError) as caught:
        call_it()
    return caught.value


# --- becoming a bot ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_fresh_account_becomes_a_bot_for_good(alice: Any) -> None:
    token = token_for(alice, "play")
    answer = call("post", UPGRADE, token)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["bot"] is True and body["id"] == alice.pk and body["bot_since"]
    alice.refresh_from_db()
    assert alice.bot and alice.bot_since is not None
    # Once is enough: again is refused in words.
    again = call("post", UPGRADE, token)
    assert again.status_code == 409
    assert again.json()["code"] == "already_bot" and again.json()["message"]
    # The account page says so.
    assert call("get", "/api/account", token_for(alice, "read")).json()["bot"] is True


@pytest.mark.django_db
def test_the_upgrade_needs_the_play_scope(alice: Any) -> None:
    answer = call("post", UPGRADE, token_for(alice, "read"))
    assert answer.status_code == 403 and answer.json()["code"] == "missing_scope"
    alice.refresh_from_db()
    assert not alice.bot


@pytest.mark.django_db
def test_an_account_that_played_a_game_is_refused(alice: Any, bob: Any) -> None:
    table = start_table([alice, bob])
    play(table, [alice, bob])
    answer = call("post", UPGRADE, token_for(alice, "play"))
    assert answer.status_code == 409 and answer.json()["code"] == "has_played"
    alice.refresh_from_db()
    assert not alice.bot and alice.bot_since is None


@pytest.mark.django_db
def test_a_seat_at_a_waiting_table_is_refused(alice: Any, bob: Any) -> None:
    table = tables.table_create(host=alice, mode="citizen", players=2)
    tables.seat_take(table_id=table.pk, user=bob, number=1)
    for user in (alice, bob):
        with pytest.raises(BotError) as caught:
            bot_upgrade(user)
        assert caught.value.code == "has_played"
    # Leaving the seat of a table that never played: nothing was played.
    tables.seat_leave(table_id=table.pk, user=bob)
    assert bot_upgrade(bob).bot


@pytest.mark.django_db
def test_a_game_among_the_players_is_enough_to_refuse(alice: Any, bob: Any) -> None:
    """A game names its players by seat in JSON: found there with no seat or history left."""
    table = start_table([alice, bob])
    Table.objects.filter(pk=table.pk).update(status=Table.Status.ABORTED)
    Seat.objects.filter(table=table).update(user=None, ready=False)
    assert Game.objects.filter(table=table).exists()
    assert bots.has_played(bob.pk) and bots.has_played(alice.pk)
    with pytest.raises(BotError) as caught:
        bot_upgrade(bob)
    assert caught.value.code == "has_played"


@pytest.mark.django_db
def test_staff_and_house_players_are_refused(warden: Any, make_user: Callable[..., User]) -> None:
    answer = call("post", UPGRADE, token_for(warden, "play"))
    assert answer.status_code == 409 and answer.json()["code"] == "staff"
    house = make_user("Sam")
    User.objects.filter(pk=house.pk).update(house_level="regular")
    house.refresh_from_db()
    with pytest.raises(BotError) as caught:
        bot_upgrade(house)
    assert caught.value.code == "house_player"
    assert not User.objects.filter(bot=True).exists()


@pytest.mark.django_db
def test_the_compare_and_set_refuses_an_account_made_a_bot_meanwhile(
    alice: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the checks, the flag is set only where it is not set yet: a second upgrade that got
    past its check (a bot already, by the time it wrote) is refused, and bot_since stays."""
    first = bot_upgrade(alice)
    monkeypatch.setattr(bots, "upgrade_refusal", lambda user: None)
    with pytest.raises(BotError) as caught:
        bot_upgrade(alice)
    assert caught.value.code == "already_bot"
    assert User.objects.get(pk=alice.pk).bot_since == first.bot_since


@pytest.mark.django_db(transaction=True)
def test_two_upgrades_at_once_one_wins(alice: Any) -> None:
    start = threading.Barrier(2)
    results: list[Any] = []

    def upgrade() -> None:
        try:
            start.wait(timeout=10)
            results.append(bot_upgrade(User.objects.get(pk=alice.pk)))
        except BotError as exc:
            results.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=upgrade) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    won = [r for r in results if isinstance(r, User)]
    lost = [r for r in results if isinstance(r, BotError)]
    assert len(won) == 1 and len(lost) == 1, results
    assert lost[0].code == "already_bot"
    assert User.objects.get(pk=alice.pk).bot_since == won[0].bot_since


@pytest.mark.django_db
def test_the_admin_shows_the_bot_flag_read_only(warden: Any, alice: Any) -> None:
    make_bot(alice)
    page = logged_in(warden).get(reverse("admin:accounts_user_change", args=[alice.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="bot"' not in html  # shown, not an input
    fields = page.context["adminform"].form.fields
    assert "bot" not in fields and "bot_since" not in fields


# --- the BOT mark --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_profile_marks_a_bot(alice: Any, bob: Any) -> None:
    make_bot(alice)
    page = logged_in(bob).get(reverse("accounts:profile", args=[alice.pk])).content.decode()
    assert "badge-bot" in page and ">BOT<" in page and "(bot)" in page
    human = logged_in(alice).get(reverse("accounts:profile", args=[bob.pk])).content.decode()
    assert "badge-bot" not in human


@pytest.mark.django_db
def test_the_lobby_and_the_table_picture_mark_a_bot(alice: Any, bob: Any) -> None:
    make_bot(bob)
    table = tables.table_create(host=alice, mode="citizen", players=2, rated=False)
    tables.seat_take(table_id=table.pk, user=bob, number=1)  # as the API seats it
    lobby = logged_in(alice).get(reverse("tables:lobby_tables")).content.decode()
    assert lobby.count("badge-bot") == 1 and "(bot)" in lobby
    picture = selectors.table_picture(table, selectors.live_game(table))
    players = [seat["player"] for seat in picture["seats"]]
    assert players[0]["bot"] is False and players[1]["bot"] is True


# --- only through the API ------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_the_table_socket_lets_a_bot_watch_but_not_play(alice: Any, bob: Any) -> None:
    await sync_to_async(make_bot)(bob)
    table = await sync_to_async(tables.table_create)(host=alice, mode="citizen", players=2)
    socket = await connect(bob, table.pk)
    for message in (
        {"type": "sit", "seat": 1},
        {"type": "ready", "ready": True},
        {"type": "act", "version": 0, "action": {"type": "pass"}},
        {"type": "wash", "hand": 1, "entropy": "0" * 64},
        {"type": "claim"},
        {"type": "abort"},
        {"type": "rematch", "want": True},
        {"type": "halve_clock"},
        {"type": "summary_seen", "hand": 1},
    ):
        await socket.send_json_to(message)
        reply = await socket.receive_json_from(timeout=10)
        while reply["type"] in ("update", "watchers", "chat"):
            reply = await socket.receive_json_from(timeout=10)
        assert reply["type"] == "error" and reply["code"] == "bot_api_only", (message, reply)
        assert "API" in reply["message"]
    # Still open, still watching; and the seat is still free.
    await socket.send_json_to({"type": "ping"})
    assert (await socket.receive_json_from(timeout=10))["type"] == "pong"
    assert not await Seat.objects.filter(table=table, user=bob).aexists()
    await socket.disconnect()


@pytest.mark.django_db
def test_the_pages_refuse_to_seat_a_bot(alice: Any, bob: Any) -> None:
    make_bot(bob)
    page = logged_in(bob)
    table = tables.table_create(host=alice, mode="citizen", players=2)
    sat = page.post(reverse("tables:sit", args=[table.pk]), follow=True)
    assert "plays only through the API" in sat.content.decode()
    assert not Seat.objects.filter(user=bob).exists()
    created = page.post(reverse("tables:lobby"), {"mode": "citizen", "players": "2"})
    assert created.status_code == 400 and "plays only through the API" in created.content.decode()
    assert not Table.objects.filter(host=bob).exists()
    form = page.get(reverse("social:challenge_new", args=[alice.pk]))
    assert form.status_code == 409 and "plays only through the API" in form.content.decode()
    page.post(reverse("pairing:join"), {"cell": "citizen:1v1", "stake": "0"})
    assert not PoolEntry.objects.filter(user=bob).exists()
    # Watching is fine.
    assert page.get(reverse("tables:table", args=[table.pk])).status_code == 200


# --- rated games only with consent ---------------------------------------------------------------


@pytest.mark.django_db
def test_a_bot_may_challenge_a_person_to_rated_games_only_with_consent(
    alice: Any, bob: Any
) -> None:
    make_bot(bob)
    refused = refusal(lambda: challenge(bob, alice, rated=True))
    assert refused.code == "bot_unrated" and "Alice" in refused.message
    casual = challenge(bob, alice, rated=False)  # a casual one is fine
    social.challenge_withdraw(challenge_id=casual.pk, user=bob)
    social.bots_rated_set(user=alice, value=True)
    sent = challenge(bob, alice, rated=True)
    table = social.challenge_accept(challenge_id=sent.pk, user=alice)
    assert table.rated


@pytest.mark.django_db
def test_a_person_challenging_a_bot_to_a_rated_game_needs_the_setting_too(
    alice: Any, bob: Any
) -> None:
    make_bot(bob)
    refused = refusal(lambda: challenge(alice, bob, rated=True))
    assert refused.code == "bot_unrated" and "challenge settings" in refused.message
    sent = challenge(alice, bob, rated=False)  # nothing stops a person challenging a bot
    assert not social.challenge_accept(challenge_id=sent.pk, user=bob).rated


@pytest.mark.django_db
def test_consent_withdrawn_before_the_accept_refuses_it(alice: Any, bob: Any) -> None:
    make_bot(bob)
    social.bots_rated_set(user=alice, value=True)
    sent = challenge(bob, alice, rated=True)
    social.bots_rated_set(user=alice, value=False)
    refused = refusal(lambda: social.challenge_accept(challenge_id=sent.pk, user=alice))
    assert refused.code == "bot_unrated"
    sent.refresh_from_db()
    assert sent.status == Challenge.Status.PENDING and sent.table is None


@pytest.mark.django_db
def test_bots_play_bots_rated_and_people_people(
    alice: Any, bob: Any, make_user: Callable[..., User]
) -> None:
    carol, dave = make_user("Carol"), make_user("Dave")
    make_bot(bob)
    make_bot(carol)
    assert social.challenge_accept(challenge_id=challenge(bob, carol).pk, user=carol).rated
    assert social.challenge_accept(challenge_id=challenge(alice, dave).pk, user=dave).rated


@pytest.mark.django_db
def test_the_setting_is_on_the_challenge_settings_page(alice: Any) -> None:
    page = logged_in(alice)
    form = page.get(reverse("social:preference")).content.decode()
    assert "Let bots challenge me to rated games" in form
    assert not social.bots_rated(alice)
    page.post(
        reverse("social:preference"),
        {"challenges_from": "everyone", "games_watchable": "on", "bots_rated": "on"},
    )
    assert social.bots_rated(alice)
    page.post(reverse("social:preference"), {"challenges_from": "everyone"})
    assert not social.bots_rated(alice)


# --- Play now ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_play_now_groups_a_bot_only_with_bots_and_people_who_opted_in(
    alice: Any, bob: Any, make_user: Callable[..., User]
) -> None:
    carol = make_user("Carol")
    make_bot(bob)
    now = timezone.now()
    pairing.pool_join(user=bob, cell="citizen:1v1:0", now=now)
    alice_entry = pairing.pool_join(user=alice, cell="citizen:1v1:0", now=now)
    assert alice_entry.status == "waiting"  # not with the bot: she did not opt in
    # Long waits widen ratings, never this rule.
    later = now + dt.timedelta(minutes=30)
    pairing.pool_pair(cell=pairing.cell_parse("citizen:1v1:0"), now=later)
    assert set(PoolEntry.objects.filter(status="waiting").values_list("user_id", flat=True)) == {
        alice.pk,
        bob.pk,
    }
    social.bots_rated_set(user=carol, value=True)
    carol_entry = pairing.pool_join(user=carol, cell="citizen:1v1:0", now=later)
    assert carol_entry.status == "seated"
    assert PoolEntry.objects.get(user=bob, status="seated").match_id == carol_entry.match_id
    assert PoolEntry.objects.filter(user=alice, status="waiting").exists()


@pytest.mark.django_db
def test_play_now_groups_bots_together(bob: Any, make_user: Callable[..., User]) -> None:
    carol = make_user("Carol")
    make_bot(bob)
    make_bot(carol)
    pairing.pool_join(user=bob, cell="citizen:1v1:0")
    assert pairing.pool_join(user=carol, cell="citizen:1v1:0").status == "seated"


def test_groups_find_keeps_bots_from_people_who_did_not_opt_in() -> None:
    now = timezone.now()
    bot = pairing.Waiting(1, 11, 1500, now, bot=True)
    person = pairing.Waiting(2, 12, 1500, now)
    willing = pairing.Waiting(3, 13, 1500, now + dt.timedelta(seconds=1), bots_ok=True)
    assert pairing.groups_find([bot, person], 2, now) == []
    assert pairing.groups_find([bot, person, willing], 2, now) == [[bot, willing]]
    assert not pairing.group_fits([bot, person], now)
    assert pairing.group_fits([person, pairing.Waiting(4, 14, 1500, now)], now)


# --- an arena's standings ------------------------------------------------------------------------


@pytest.mark.django_db
def test_an_arenas_standings_frame_marks_a_bot(
    alice: Any, bob: Any, make_user: Callable[..., User], monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.contrib.auth.models import Group

    from tests.tournaments.test_arena_flow import make_arena
    from tournaments import arena, arenas
    from tournaments.models import ORGANIZERS_GROUP

    organizer = make_user("Olga")
    organizer.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    event = make_arena(organizer)
    make_bot(bob)

    def row(rank: int, player: int) -> arena.ArenaStanding:
        return arena.ArenaStanding(rank, player, 4, 2, 2, 0, 2, False, 0, 1500, (), ())

    monkeypatch.setattr(arenas, "standings", lambda t: [row(1, bob.pk), row(2, alice.pk)])
    top = arenas.standings_frame(event)["top"]
    assert [(r["name"], r["bot"]) for r in top] == [("Bob", True), ("Alice", False)]


@pytest.mark.django_db
def test_a_rated_table_seats_a_bot_with_a_person_only_with_their_consent(
    alice: Any, bob: Any, make_user: Callable[..., User]
) -> None:
    robo = make_bot(make_user("Robo"))
    rated = tables.table_create(host=alice, mode="fives", players=2, rated=True)
    refused = call("POST", f"/api/tables/{rated.pk}/sit", token_for(robo, "play"), {"seat": 1})
    assert refused.status_code == 409 and "does not let bots" in refused.json()["message"]
    assert not Seat.objects.filter(table=rated, user=robo).exists()
    social.bots_rated_set(user=alice, value=True)
    sat = call("POST", f"/api/tables/{rated.pk}/sit", token_for(robo, "play"), {"seat": 1})
    assert sat.status_code == 200, sat.content
    # The other way round: a bot waits at a rated table; a person without the setting may not
    # sit down with it; a casual table seats anyone.
    table = tables.table_create(host=make_bot(make_user("Bolt")), mode="fives", players=2)
    Table.objects.filter(pk=table.pk).update(rated=True)
    with pytest.raises(tables.TableError):
        tables.seat_take(table_id=table.pk, user=bob, number=1)
    casual = tables.table_create(host=alice, mode="fives", players=2, rated=False)
    tables.seat_take(table_id=casual.pk, user=make_bot(make_user("Cog")), number=1)
