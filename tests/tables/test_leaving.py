"""Leaving and coming back: held seats, the grace, claims, forfeits, aborts, waits, rematches."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.utils import timezone

from engine import GameState
from tables import presence, services
from tables.models import Abandonment, Game, GameAction, Presence, Seat, Table
from tests.tables.helpers import connect, receive_until


def started(users: list[Any], **options: Any) -> Table:
    options.setdefault("players", len(users))
    table = services.table_create(host=users[0], mode="citizen", **options)
    for number, user in enumerate(users[1:], start=1):
        services.seat_take(table_id=table.pk, user=user, number=number)
    for user in users:
        services.seat_ready(table_id=table.pk, user=user, ready=True)
    return table


def seat(table: Table, number: int) -> Seat:
    return Seat.objects.get(table=table, number=number)


def live(table: Table) -> Game:
    return Game.objects.filter(table=table).order_by("-number").first()  # type: ignore[return-value]


def present(table: Table, user: Any, channel: str) -> None:
    presence.presence_join(table_id=table.pk, user=user, channel_name=channel)


def run_out(table: Table, number: int) -> None:
    Seat.objects.filter(table=table, number=number).update(
        grace_until=timezone.now() - timedelta(seconds=1)
    )


def play_first_move(table: Table, players: list[Any]) -> None:
    """Moves until the first bone is down (a deal can leave the first to act without a play)."""
    while True:
        game = live(table)
        state = GameState.from_json(game.state)
        legal = state.legal_actions()
        play = next((a for a in legal if a.to_dict()["type"] == "play"), None)
        action = (play or legal[0]).to_dict()
        action.pop("seat")
        services.game_act(
            table_id=table.pk, user=players[state.to_act], version=game.version, action=action
        )
        if play is not None:
            return


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("code", "grace"), [(1006, "LEAVE_GRACE_SECONDS"), (1001, "LEAVE_GRACE_CLOSED_SECONDS")]
)
async def test_a_dropped_player_keeps_the_seat_for_a_grace(
    alice: Any, bob: Any, code: int, grace: str
) -> None:
    table = await sync_to_async(started)([alice, bob])
    sockets = [await connect(u, table.pk) for u in (alice, bob)]
    for s in sockets:
        await s.send_json_to({"type": "hello", "last_seq": None})
    first = await receive_until(sockets[0], 0, 0)
    seq = first["seq"]
    before = timezone.now()
    await sockets[1].disconnect(code=code)
    update = await receive_until(sockets[0], seq + 1, 0)
    away = next(e for e in update["events"] if e["type"] == "away")
    assert away["seat"] == 1 and away["on_purpose"] is (code == 1001)
    after = timezone.now()
    held = await sync_to_async(seat)(table, 1)
    # The grace counts from the moment the server saw him go, somewhere between the two.
    length = timedelta(seconds=getattr(settings, grace))
    assert before + length <= held.grace_until <= after + length
    assert update["table"]["seats"][1]["online"] is False
    assert update["table"]["seats"][1]["grace_until"] == int(held.grace_until.timestamp() * 1000)
    # Bob comes back: the seat is his again, and everyone sees it.
    back = await connect(bob, table.pk)
    update = await receive_until(sockets[0], seq + 2, 0)
    assert [e["type"] for e in update["events"]] == ["back"]
    assert update["table"]["seats"][1]["online"] is True
    assert update["table"]["seats"][1]["grace_until"] is None
    for s in (sockets[0], back):
        await s.disconnect()


@pytest.mark.django_db
def test_another_open_tab_keeps_the_player_present(alice: Any, bob: Any) -> None:
    table = started([alice, bob])
    present(table, bob, "tab-1")
    present(table, bob, "tab-2")
    presence.presence_leave(channel_name="tab-1", on_purpose=False)
    assert seat(table, 1).away_since is None
    presence.presence_leave(channel_name="tab-2", on_purpose=False)
    assert seat(table, 1).away_since is not None


@pytest.mark.django_db
def test_one_on_one_the_other_player_claims_once_the_grace_ran_out(alice: Any, bob: Any) -> None:
    table = started([alice, bob])
    present(table, bob, "bob")
    presence.presence_leave(channel_name="bob", on_purpose=False)
    with pytest.raises(services.TableError) as early:
        presence.game_claim(table_id=table.pk, user=alice)
    assert early.value.code == "not_claimable"
    assert live(table).status == Game.Status.PLAYING
    run_out(table, 1)
    with pytest.raises(services.TableError):  # the one who left cannot claim
        presence.game_claim(table_id=table.pk, user=bob)
    presence.game_claim(table_id=table.pk, user=alice)
    game = live(table)
    assert game.status == Game.Status.FINISHED
    assert game.result["reason"] == "abandoned" and game.result["forfeit"] == 1
    assert game.result["winner"] == 0
    assert Abandonment.objects.filter(user=bob, game=game).count() == 1
    assert GameAction.objects.filter(game=game, kind="abandon").count() == 1
    # The game's history replays the abandonment to the same result.
    from history.models import PlayerGame
    from history.selectors import game_replay

    replay = game_replay(game)
    assert replay.complete and replay.state.result.to_dict() == game.result
    assert PlayerGame.objects.filter(game=game).count() == 2
    with pytest.raises(services.TableError):  # and only once
        presence.game_claim(table_id=table.pk, user=alice)


@pytest.mark.django_db
@pytest.mark.parametrize("rule", ["wait", "forfeit"])
@pytest.mark.parametrize("shape", [{"players": 3}, {"players": 4, "partners": True}])
def test_cut_throat_and_partners_follow_the_tables_rule(
    make_user: Any, rule: str, shape: dict[str, Any]
) -> None:
    players = [make_user(name) for name in ("Ann", "Ben", "Cy", "Di")][: shape["players"]]
    table = started(players, on_leave=rule, **shape)
    present(table, players[2], "cy")
    presence.presence_leave(channel_name="cy", on_purpose=True)
    assert presence.grace_sweep() == 0  # the grace has not run out
    run_out(table, 2)
    forfeited = presence.grace_sweep()
    game = live(table)
    if rule == "wait":
        assert forfeited == 0 and game.status == Game.Status.PLAYING
        assert presence.grace_expire(table_id=table.pk, seat=2, game_id=game.pk) == "waiting"
    else:
        assert forfeited == 1 and game.status == Game.Status.FINISHED
        assert game.result["reason"] == "abandoned" and game.result["forfeit"] == 2
        if shape.get("partners"):  # seats 0 and 2 are one side: the other side wins
            assert game.result["winner"] == 1
        else:
            assert game.result["winner"] != 2
        assert presence.grace_sweep() == 0  # once
        assert Abandonment.objects.filter(user=players[2]).count() == 1


@pytest.mark.django_db
def test_a_player_who_came_back_is_not_forfeited(make_user: Any) -> None:
    players = [make_user(name) for name in ("Ann", "Ben", "Cy")]
    table = started(players, on_leave="forfeit")
    present(table, players[2], "cy")
    presence.presence_leave(channel_name="cy", on_purpose=False)
    game = live(table)
    present(table, players[2], "cy-again")
    run_out(table, 2)
    assert presence.grace_expire(table_id=table.pk, seat=2, game_id=game.pk) == "not_due"
    assert live(table).status == Game.Status.PLAYING


@pytest.mark.django_db
def test_stale_sockets_are_dropped_by_the_sweep(alice: Any, bob: Any) -> None:
    table = started([alice, bob])
    present(table, bob, "bob")
    Presence.objects.filter(channel_name="bob").update(
        seen_at=timezone.now() - timedelta(seconds=presence.PRESENCE_STALE_SECONDS + 1)
    )
    presence.grace_sweep()
    assert not Presence.objects.exists()
    assert seat(table, 1).away_since is not None


@pytest.mark.django_db
def test_abort_before_the_first_play_only(alice: Any, bob: Any) -> None:
    table = started([alice, bob])
    services.game_abort(table_id=table.pk, user=bob)
    game = live(table)
    assert game.status == Game.Status.ABORTED and game.result is None
    assert Table.objects.get(pk=table.pk).status == Table.Status.ABORTED
    other = started([alice, bob])
    play_first_move(other, [alice, bob])
    with pytest.raises(services.TableError) as refused:
        services.game_abort(table_id=other.pk, user=alice)
    assert refused.value.code == "already_played"
    assert live(other).status == Game.Status.PLAYING


@pytest.mark.django_db
def test_repeated_abandonments_make_a_player_wait_longer(alice: Any, bob: Any) -> None:
    def abandon_one() -> None:
        table = started([alice, bob])
        present(table, bob, f"bob-{table.pk}")
        presence.presence_leave(channel_name=f"bob-{table.pk}", on_purpose=True)
        run_out(table, 1)
        presence.game_claim(table_id=table.pk, user=alice)

    abandon_one()
    assert presence.sit_again_at(bob) is None  # the first costs nothing
    before = timezone.now()
    abandon_one()
    after = timezone.now()
    until, count = presence.sit_again_at(bob)  # type: ignore[misc]
    assert count == 2
    assert before + timedelta(minutes=5) <= until <= after + timedelta(minutes=5)
    fresh = services.table_create(host=alice, mode="citizen", players=2)
    with pytest.raises(services.TableError) as refused:
        services.seat_take(table_id=fresh.pk, user=bob, number=1)
    assert refused.value.code == "must_wait"
    assert "2 games" in refused.value.message and "5 minutes" in refused.value.message
    # Six minutes later the wait is over; one more abandonment makes the next wait twice as long.
    Abandonment.objects.filter(user=bob).update(created_at=timezone.now() - timedelta(minutes=6))
    assert presence.sit_again_at(bob) is None
    before = timezone.now()
    abandon_one()
    after = timezone.now()
    until, count = presence.sit_again_at(bob)  # type: ignore[misc]
    assert count == 3
    assert before + timedelta(minutes=10) <= until <= after + timedelta(minutes=10)
    # A week on, they no longer count.
    Abandonment.objects.filter(user=bob).update(created_at=timezone.now() - timedelta(days=8))
    assert presence.sit_again_at(bob) is None


@pytest.mark.django_db(transaction=True)
async def test_rematch_starts_a_new_game_that_spectators_follow(
    alice: Any, bob: Any, make_user: Any
) -> None:
    table = await sync_to_async(started)([alice, bob])
    await sync_to_async(present)(table, bob, "bob")
    await sync_to_async(presence.presence_leave)(channel_name="bob", on_purpose=True)
    await sync_to_async(run_out)(table, 1)
    await sync_to_async(presence.game_claim)(table_id=table.pk, user=alice)
    watcher = await sync_to_async(make_user)("Watcher")
    spectator = await connect(watcher, table.pk)
    await spectator.send_json_to({"type": "hello", "last_seq": None})
    snapshot = await receive_until(spectator, 0, None)
    seq = snapshot["seq"]
    with pytest.raises(services.TableError):
        await sync_to_async(services.rematch_offer)(table_id=table.pk, user=watcher)
    await sync_to_async(services.rematch_offer)(table_id=table.pk, user=alice)
    update = await receive_until(spectator, seq + 1, None)
    assert update["events"] == [{"type": "rematch", "seat": 0, "want": True}]
    assert update["table"]["seats"][0]["rematch"] is True
    await sync_to_async(services.rematch_offer)(table_id=table.pk, user=bob)
    update = await receive_until(spectator, seq + 2, None)
    kinds = [e["type"] for e in update["events"]]
    assert kinds[:2] == ["rematch", "game_started"] and "dealt" in kinds
    assert update["table"]["status"] == "playing" and update["table"]["game_number"] == 2
    assert update["game"]["phase"] in ("playing", "choosing_doubles")
    games = await sync_to_async(list)(Game.objects.filter(table=table).order_by("number"))
    assert [g.status for g in games] == [Game.Status.FINISHED, Game.Status.PLAYING]
    assert games[1].players == games[0].players
    await spectator.disconnect()


# --- a socket taken for gone that was not ---------------------------------------------------------


def swept(table: Table, user: Any) -> None:
    """The user's socket at the table went unseen for longer than a socket may (a page that was
    quiet, or whose refresh was lost): the beat's sweep takes it for gone, and the seat's grace
    runs out."""
    Presence.objects.filter(table=table, user=user).update(
        seen_at=timezone.now() - timedelta(seconds=presence.PRESENCE_STALE_SECONDS + 1)
    )
    presence.grace_sweep()
    assert not Presence.objects.filter(table=table, user=user).exists()
    number = Seat.objects.get(table=table, user=user).number
    assert seat(table, number).away_since is not None
    run_out(table, number)


async def until_seen(socket: Any, wanted: set[str], timeout: float = 30) -> list[dict[str, Any]]:
    """Read the socket until it has had every kind in `wanted` (message types, or event types
    of updates); what it read, in order. Fails on an error."""
    read: list[dict[str, Any]] = []
    missing = set(wanted)
    while missing:
        try:
            message = await socket.receive_json_from(timeout=timeout)
        except TimeoutError as exc:
            raise AssertionError(f"never got {sorted(missing)}; got {read}") from exc
        assert message["type"] != "error", message
        read.append(message)
        missing.discard(message["type"])
        missing -= {e["type"] for e in message.get("events") or []}
    return read


async def next_error(socket: Any, timeout: float = 30) -> dict[str, Any]:
    while True:
        message = await socket.receive_json_from(timeout=timeout)
        if message["type"] == "error":
            return message


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("first", ["ping", "act", "act_after_quiet"])
async def test_a_socket_taken_for_gone_is_back_with_its_next_message(
    alice: Any, bob: Any, first: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once a swept socket's later messages refreshed nothing (its row was gone): the player
    made move after move, each acknowledged, and the opponent's claim still won the game.
    The socket learns it was taken for gone from the sweep's `away` for its own seat; or, quiet
    for longer than its refreshes are spaced (`act_after_quiet`), it refreshes anyway."""
    table = await sync_to_async(started)([alice, bob])
    players = [alice, bob]
    game = await sync_to_async(live)(table)
    state = GameState.from_json(game.state)
    mover = state.to_act
    assert mover is not None
    sockets = [await connect(u, table.pk) for u in players]
    for number, socket in enumerate(sockets):
        await socket.send_json_to({"type": "hello", "last_seq": None})
        await receive_until(socket, 0, number)
    await sync_to_async(swept)(table, players[mover])
    await until_seen(sockets[1 - mover], {"away"})
    if first == "act_after_quiet":  # its last refresh longer ago than they are spaced
        monkeypatch.setattr("tables.consumers.PRESENCE_REFRESH_SECONDS", 0.0)
    else:  # the socket is open and hears that it was taken for gone
        await until_seen(sockets[mover], {"away"})
    if first == "ping":
        await sockets[mover].send_json_to({"type": "ping"})
        read = await until_seen(sockets[mover], {"pong", "back"})
    else:
        legal = state.legal_actions()  # a play if there is one (a deal may leave none)
        action = next((a for a in legal if a.to_dict()["type"] == "play"), legal[0]).to_dict()
        action.pop("seat")
        await sockets[mover].send_json_to(
            {"type": "act", "version": game.version, "action": action, "request_id": "m"}
        )
        read = await until_seen(sockets[mover], {"ack", "back", "bone_played"})
        kinds = [e["type"] for m in read for e in m.get("events") or []]
        assert kinds.index("back") < kinds.index("bone_played"), "back before the move"
    assert any(m["type"] == "update" and m["table"]["seats"][mover]["online"] for m in read)
    # Present again, the seat theirs: the claim is refused, and the sweep leaves the game be.
    assert await Presence.objects.filter(table=table, user=players[mover]).aexists()
    held = await sync_to_async(seat)(table, mover)
    assert held.away_since is None and held.grace_until is None
    await sockets[1 - mover].send_json_to({"type": "claim"})
    refusal = await next_error(sockets[1 - mover])
    assert refusal["code"] == "not_claimable"
    assert await sync_to_async(presence.grace_sweep)() == 0
    assert (await sync_to_async(live)(table)).status == Game.Status.PLAYING
    for socket in sockets:
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_socket_taken_for_gone_at_a_practice_table_is_not_claimed_by_the_house(
    alice: Any,
) -> None:
    """Once the house ended a practice game a second after the player's move: the sweep had
    taken her socket for gone, and her moves since had not brought her back."""
    from house import services as house

    table = await sync_to_async(house.practice_start)(user=alice, mode="citizen", level="rookie")
    mine = (await Seat.objects.aget(table=table, user=alice)).number
    socket = await connect(alice, table.pk)
    await socket.send_json_to({"type": "hello", "last_seq": None})
    await receive_until(socket, 0, mine)
    await sync_to_async(swept)(table, alice)
    await until_seen(socket, {"away"})
    await socket.send_json_to({"type": "ping"})
    await until_seen(socket, {"pong", "back"})
    assert await Presence.objects.filter(table=table, user=alice).aexists()
    assert (await sync_to_async(seat)(table, mine)).away_since is None
    assert await sync_to_async(presence.grace_sweep)() == 0  # her grace had run out
    assert (await sync_to_async(live)(table)).status == Game.Status.PLAYING
    await socket.disconnect()


@pytest.mark.django_db
def test_the_sweep_leaves_a_socket_refreshed_since_it_looked(alice: Any, bob: Any) -> None:
    """The sweep lists the stale rows, then drops them one by one: a socket refreshed in
    between keeps its row, and its player is not sent away."""
    table = started([alice, bob])
    present(table, bob, "bob")
    cutoff = timezone.now()
    Presence.objects.filter(channel_name="bob").update(seen_at=cutoff - timedelta(seconds=1))
    assert presence.presence_seen(channel_name="bob") is True  # ...a frame, just now
    presence.presence_leave(channel_name="bob", on_purpose=False, stale_before=cutoff)
    assert Presence.objects.filter(channel_name="bob").exists()
    assert seat(table, 1).away_since is None
    # A row that is gone has nothing to refresh: the socket joins again.
    Presence.objects.filter(channel_name="bob").delete()
    assert presence.presence_seen(channel_name="bob") is False
    assert presence.presence_refresh(table_id=table.pk, user=bob, channel_name="bob") is True
    assert presence.presence_refresh(table_id=table.pk, user=bob, channel_name="bob") is False


def away(table: Table, user: Any, channel: str, *, ago: float) -> None:
    """`user` closed their last socket at the table `ago` seconds ago; their grace has run out."""
    present(table, user, channel)
    presence.presence_leave(channel_name=channel, on_purpose=False)
    Seat.objects.filter(table=table, user=user).update(
        away_since=timezone.now() - timedelta(seconds=ago),
        grace_until=timezone.now() - timedelta(seconds=1),
    )


@pytest.mark.django_db
def test_a_one_on_one_game_both_players_left_is_lost_by_the_first_to_leave(
    alice: Any, bob: Any
) -> None:
    from ledger.services import StakeSpec
    from tests.ledger.helpers import assert_books_balance, dollars

    before = {alice.pk: dollars(alice), bob.pk: dollars(bob)}
    table = started([alice, bob], stake=StakeSpec(dollars=10))
    assert dollars(alice) < before[alice.pk]  # the stakes are held in the pot
    # Bob left first; Alice left too, before claiming: nobody is there to claim the game.
    away(table, bob, "bob", ago=120)
    present(table, alice, "alice")
    assert presence.grace_sweep() == 0  # Alice is there: she may claim, nothing ends by itself
    presence.presence_leave(channel_name="alice", on_purpose=True)
    assert presence.grace_sweep() == 0  # Alice's grace has not run out: she may come back
    Seat.objects.filter(table=table, user=alice).update(
        grace_until=timezone.now() - timedelta(seconds=1)
    )
    assert presence.grace_sweep() == 1
    game = live(table)
    assert game.status == Game.Status.FINISHED
    assert game.result["reason"] == "abandoned" and game.result["forfeit"] == 1
    assert game.result["winner"] == 0
    assert Abandonment.objects.filter(user=bob, game=game).count() == 1
    assert not Abandonment.objects.filter(user=alice).exists()
    assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED
    # Settled like any game: the pot went to the winner, exactly, and no stake is held.
    assert dollars(alice) + dollars(bob) == before[alice.pk] + before[bob.pk]
    assert dollars(alice) > before[alice.pk] and dollars(bob) < before[bob.pk]
    assert_books_balance()
    # Once: the sweep and a late timer find nothing more to do.
    assert presence.grace_sweep() == 0
    assert presence.grace_expire(table_id=table.pk, seat=0, game_id=game.pk) == "gone"
    assert GameAction.objects.filter(game=game, kind="abandon").count() == 1


@pytest.mark.django_db
def test_the_first_to_leave_is_told_apart_by_when_they_left(alice: Any, bob: Any) -> None:
    table = started([alice, bob])
    away(table, alice, "alice", ago=300)
    away(table, bob, "bob", ago=100)
    assert presence.grace_sweep() == 1
    game = live(table)
    assert game.result["forfeit"] == 0 and game.result["winner"] == 1


@pytest.mark.django_db
def test_a_waiting_cut_throat_game_every_person_left_ends_too(make_user: Any) -> None:
    players = [make_user(name) for name in ("Ann", "Ben", "Cy")]
    table = started(players, players=3, on_leave="wait")
    for n, (user, ago) in enumerate(zip(players, (50, 200, 100), strict=True)):
        away(table, user, f"c{n}", ago=ago)
    assert presence.grace_sweep() == 1
    game = live(table)
    assert game.status == Game.Status.FINISHED and game.result["forfeit"] == 1
