"""The Gym clock waits for the hand's summary: the next hand's first clock starts when every
seated player has dismissed the summary (`summary_seen`), or 15 s after the hand ended,
whichever comes first. The timer and the beat's sweep agree: no dumbbell during the summary.

Hands are played to their end in real time at a 10 s clock (each move takes milliseconds); the
clock is then judged by calling the timer and the sweep with a `now` of the test's choosing.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.utils import timezone

from engine import GameState
from house.services import house_seat_add
from tables import services
from tables.models import Game, Table, TableEvent
from tests.tables.helpers import connect, next_reply

GRACE = timedelta(milliseconds=settings.GYM_CLOCK_GRACE_MS)
WAIT = timedelta(seconds=services.SUMMARY_WAIT_SECONDS)
CLOCK = 10


def live(table: Table) -> Game:
    return Game.objects.get(table=table, status=Game.Status.PLAYING)


def a_move(state: GameState) -> dict[str, Any]:
    for kinds in (("play", "doubles"), ("draw",), ("pass",)):
        for action in state.legal_actions():
            data = action.to_dict()
            if data["type"] in kinds:
                data.pop("seat")
                return data
    raise AssertionError(f"no move among {state.legal_actions()}")


def play_to_the_next_hand(table: Table, users: dict[int, Any]) -> datetime:
    """Play the current hand to its end (the game going on); the moment it ended."""
    deal = GameState.from_json(live(table).state).deal_number
    moved_at = timezone.now()
    for _ in range(200):
        game = live(table)
        state = GameState.from_json(game.state)
        if state.deal_number != deal:
            return moved_at  # the hand ended with the last move
        moved_at = timezone.now()
        user = users[state.to_act]
        services.game_act(table_id=table.pk, user=user, version=game.version, action=a_move(state))
    raise AssertionError("the hand never ended")


def gym_table(host: Any, other: Any | None = None) -> Table:
    table = services.table_create(host=host, mode="citizen_gym", players=2, clock=CLOCK)
    if other is None:
        house_seat_add(table_id=table.pk, host=host, number=1, level="rookie")
    else:
        services.seat_take(table_id=table.pk, user=other, number=1)
        services.seat_ready(table_id=table.pk, user=other, ready=True)
    services.seat_ready(table_id=table.pk, user=host, ready=True)
    return table


def hand_of(table: Table) -> int:
    return GameState.from_json(live(table).state).deal_number


@pytest.mark.django_db
def test_the_first_hand_has_no_wait(alice: Any, bob: Any) -> None:
    table = gym_table(alice, bob)
    game = live(table)
    assert game.clock_starts_at is None
    assert game.deadline is not None and game.deadline <= timezone.now() + timedelta(seconds=CLOCK)


@pytest.mark.django_db
def test_the_next_hand_s_clock_waits_for_the_summary(alice: Any, bob: Any) -> None:
    table = gym_table(alice, bob)
    ended = play_to_the_next_hand(table, {0: alice, 1: bob})
    game = live(table)
    assert game.clock_starts_at is not None
    assert ended + WAIT <= game.clock_starts_at <= timezone.now() + WAIT
    assert game.deadline == game.clock_starts_at + timedelta(seconds=CLOCK)
    assert game.summary_seen == []
    # The case: the summary read for 11 s at a 10 s table. No dumbbell, by either.
    read = ended + timedelta(seconds=11) + GRACE
    assert services.clock_expire(game_id=game.pk, version=game.version, now=read) is False
    assert services.clock_sweep(now=read) == 0
    # Nor just before the wait and a whole clock are over; just after, the dumbbell.
    due = game.deadline + GRACE
    assert services.clock_sweep(now=due) == 0
    assert live(table).version == game.version
    assert services.clock_sweep(now=due + timedelta(milliseconds=1)) == 1
    # The hand's board was kept for the page, under the summary.
    boards = [
        e
        for row in TableEvent.objects.filter(table=table)
        for e in row.public
        if e["type"] == "hand_board"
    ]
    assert len(boards) == 1 and boards[0]["board"]["lead"] is not None


@pytest.mark.django_db
def test_the_clock_starts_when_everyone_has_seen_the_summary(alice: Any, bob: Any) -> None:
    table = gym_table(alice, bob)
    play_to_the_next_hand(table, {0: alice, 1: bob})
    before = live(table)
    hand = hand_of(table)
    assert services.summary_seen(table_id=table.pk, user=alice, hand=hand) is True
    assert services.summary_seen(table_id=table.pk, user=alice, hand=hand) is False  # a repeat
    one = live(table)
    assert (one.deadline, one.clock_starts_at, one.summary_seen) == (
        before.deadline,
        before.clock_starts_at,
        [0],
    )
    seq = Table.objects.get(pk=table.pk).seq
    moment = timezone.now()
    assert services.summary_seen(table_id=table.pk, user=bob, hand=hand) is True
    both = live(table)
    assert moment <= both.clock_starts_at <= timezone.now()
    assert both.deadline == both.clock_starts_at + timedelta(seconds=CLOCK)
    assert both.version == before.version
    event = TableEvent.objects.get(table=table, seq=seq + 1)
    assert event.public == [{"type": "clock_started"}]
    # Once it runs, the clock is as any: due at its deadline and grace.
    assert services.clock_sweep(now=both.deadline + GRACE + timedelta(milliseconds=1)) == 1


@pytest.fixture
def eager(settings: Any) -> Any:
    """House players move at once, in this process, after each commit (as tests/house does)."""
    from dominoes_site.celery import app

    settings.HOUSE_PLAYER_PACE_SECONDS = 0
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


@pytest.mark.django_db(transaction=True)
def test_house_players_have_seen_it_at_once(alice: Any, eager: None) -> None:
    table = gym_table(alice)
    game = live(table)
    # Play on until a hand ends with alice's help (the house moves by itself).
    deal = hand_of(table)
    for _ in range(200):
        game = live(table)
        state = GameState.from_json(game.state)
        if state.deal_number != deal or game.status != Game.Status.PLAYING:
            break
        services.game_act(table_id=table.pk, user=alice, version=game.version, action=a_move(state))
    game = live(table)
    assert game.clock_starts_at is not None and game.summary_seen == [1]
    services.summary_seen(table_id=table.pk, user=alice, hand=hand_of(table))
    game = live(table)
    assert game.clock_starts_at <= timezone.now()


@pytest.mark.django_db
def test_bad_summary_seen_is_refused_and_changes_nothing(
    alice: Any, bob: Any, make_user: Any
) -> None:
    table = gym_table(alice, bob)
    play_to_the_next_hand(table, {0: alice, 1: bob})
    before = live(table)
    hand = hand_of(table)
    seq = Table.objects.get(pk=table.pk).seq
    for user, value, code in [
        (alice, "1", "bad_field"),
        (alice, True, "bad_field"),
        (alice, -1, "bad_field"),
        (alice, hand + 1, "bad_field"),
        (make_user("carol"), hand, "not_seated"),
    ]:
        with pytest.raises(services.TableError) as refused:
            services.summary_seen(table_id=table.pk, user=user, hand=value)
        assert refused.value.code == code
    # An earlier hand's summary does not count for this one.
    assert services.summary_seen(table_id=table.pk, user=alice, hand=hand - 1) is False
    after = live(table)
    assert (after.summary_seen, after.deadline, after.clock_starts_at) == (
        before.summary_seen,
        before.deadline,
        before.clock_starts_at,
    )
    assert Table.objects.get(pk=table.pk).seq == seq


@pytest.mark.django_db(transaction=True)
async def test_the_socket_takes_summary_seen(alice: Any, bob: Any, make_user: Any) -> None:
    table = await sync_to_async(gym_table)(alice, bob)
    await sync_to_async(play_to_the_next_hand)(table, {0: alice, 1: bob})
    hand = await sync_to_async(hand_of)(table)
    socket = await connect(alice, table.pk)
    await socket.send_json_to({"type": "hello", "last_seq": None})
    snapshot = await next_reply(socket)
    clock = snapshot["game"]["clock"]
    assert clock["starts"] is not None and clock["deadline"] == clock["starts"] + CLOCK * 1000
    # Bad input: an error naming the field, and nothing changes.
    for bad in ({"type": "summary_seen"}, {"type": "summary_seen", "hand": "x"}):
        await socket.send_json_to({**bad, "request_id": "r1"})
        error = await next_reply(socket)
        assert error["type"] == "error" and error["code"] == "bad_field", error
        assert error["field"] == "hand" and error["request_id"] == "r1"
    await socket.send_json_to({"type": "summary_seen", "hand": hand + 5})
    error = await next_reply(socket)
    assert error["code"] == "bad_field"
    game = await sync_to_async(live)(table)
    assert game.summary_seen == []
    watcher = await connect(await sync_to_async(make_user)("carol"), table.pk)
    await watcher.send_json_to({"type": "summary_seen", "hand": hand})
    error = await next_reply(watcher)
    assert error["code"] == "not_seated"
    await watcher.disconnect()
    # Alice's dismissal is kept (no answer); Bob's starts the clock: an update says so.
    await socket.send_json_to({"type": "summary_seen", "hand": hand})
    await sync_to_async(services.summary_seen)(table_id=table.pk, user=bob, hand=hand)
    update = await next_reply(socket)
    assert update["type"] == "update", update
    assert update["events"] == [{"type": "clock_started"}]
    started = update["game"]["clock"]
    assert started["deadline"] == started["starts"] + CLOCK * 1000
    assert started["starts"] < clock["starts"]
    await socket.disconnect()
