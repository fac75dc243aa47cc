"""A ready player who can no longer start the game does not freeze a staked table: the start
says who and why, and the host may remove them (issue 15)."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async

from accounts.models import AgeStatus
from accounts.services import age_status_set
from ledger.services import DOLLARS, StakeSpec
from tables import services
from tables.models import Game, Seat, Table
from tests.ledger.helpers import give, open_table, take_all
from tests.tables.helpers import connect, next_reply


def ready(table: Table, *players: Any) -> None:
    for player in players:
        services.seat_ready(table_id=table.pk, user=player, ready=True)


def seat_of(table: Table, number: int) -> Seat:
    return Seat.objects.get(table=table, number=number)


@pytest.fixture
def carol(make_user: Any) -> Any:
    return make_user("Carol")


@pytest.mark.django_db
def test_the_start_names_who_cannot_cover_and_the_host_may_remove_them(
    alice: Any, bob: Any, carol: Any, warden: Any
) -> None:
    table = open_table([alice, bob, carol], stake=StakeSpec(dollars=100))
    ready(table, bob)
    take_all(bob, DOLLARS, warden)  # Bob pressed ready, then spent his Dollars elsewhere
    ready(table, carol)
    with pytest.raises(services.TableError) as refused:
        ready(table, alice)
    assert refused.value.code == "cannot_cover"
    assert refused.value.extra == {"seat": 1}
    assert "Bob needs 200 Dollars" in refused.value.message
    assert "You can remove them from their seat." in refused.value.message
    assert Game.objects.get(table=table).status == Game.Status.WAITING
    # The host removes him; the event says why.
    services.seat_remove(table_id=table.pk, host=alice, number=1)
    assert seat_of(table, 1).user_id is None
    last = table.events.order_by("-seq").first()
    assert {"type": "removed", "seat": 1, "reason": "cannot_cover"} in last.public


@pytest.mark.django_db
def test_another_player_is_told_the_host_can_remove_them(
    alice: Any, bob: Any, carol: Any, warden: Any
) -> None:
    table = open_table([alice, bob, carol], stake=StakeSpec(dollars=100))
    ready(table, alice, bob)
    take_all(bob, DOLLARS, warden)
    with pytest.raises(services.TableError) as refused:
        ready(table, carol)
    assert "The host can remove them from their seat." in refused.value.message
    # Carol is not the host: she cannot remove him.
    with pytest.raises(services.TableError) as not_host:
        services.seat_remove(table_id=table.pk, host=carol, number=1)
    assert not_host.value.code == "not_host"


@pytest.mark.django_db
def test_a_ready_player_who_can_play_cannot_be_removed(
    alice: Any, bob: Any, carol: Any, warden: Any
) -> None:
    table = open_table([alice, bob, carol], stake=StakeSpec(dollars=100))
    ready(table, bob)
    with pytest.raises(services.TableError) as refused:
        services.seat_remove(table_id=table.pk, host=alice, number=1)
    assert refused.value.code == "player_ready"
    assert seat_of(table, 1).user_id == bob.pk
    # Once he covers the stake again he is back to being ready and safe; topped up, the game
    # starts when everyone is ready.
    take_all(bob, DOLLARS, warden)
    give(bob, DOLLARS, 500, warden)
    ready(table, carol, alice)
    assert Game.objects.get(table=table).status == Game.Status.PLAYING


@pytest.mark.django_db
def test_a_ready_player_who_may_no_longer_play_can_be_removed_without_saying_why(
    alice: Any, bob: Any, carol: Any, warden: Any
) -> None:
    table = open_table([alice, bob, carol])
    ready(table, bob, carol)
    age_status_set(user=bob, status=AgeStatus.SUSPENDED, reason="a report", changed_by=warden)
    with pytest.raises(services.TableError) as refused:
        ready(table, alice)
    assert refused.value.code == "player_cannot_play"
    assert "Bob can't play at the moment" in refused.value.message
    assert "suspend" not in refused.value.message
    services.seat_remove(table_id=table.pk, host=alice, number=1)
    last = table.events.order_by("-seq").first()
    assert {"type": "removed", "seat": 1, "reason": "cannot_play"} in last.public


@pytest.mark.django_db(transaction=True)
async def test_the_host_removes_him_over_the_socket(alice: Any, bob: Any, warden: Any) -> None:
    table = await sync_to_async(open_table)([alice, bob], stake=StakeSpec(dollars=100))
    await sync_to_async(ready)(table, bob)
    await sync_to_async(take_all)(bob, DOLLARS, warden)
    host = await connect(alice, table.pk)
    await host.send_json_to({"type": "hello", "last_seq": None})
    assert (await next_reply(host))["type"] == "snapshot"
    await host.send_json_to({"type": "ready", "ready": True, "request_id": "r1"})
    error = await next_reply(host)
    assert error["type"] == "error" and error["code"] == "cannot_cover"
    assert error["seat"] == 1 and error["request_id"] == "r1"
    assert "Bob needs 200 Dollars" in error["message"]
    await host.send_json_to({"type": "remove", "seat": 1})
    update = await next_reply(host)
    assert update["type"] == "update"
    assert {"type": "removed", "seat": 1, "reason": "cannot_cover"} in update["events"]
    assert update["table"]["seats"][1]["player"] is None
    await host.disconnect()
