"""A seat's own turn clock (`services.seat_clock_halve`): a seated player halves their own clock
before their first move of the game (what an arena calls berserk; tables knows only the clock).

The seat's turns then start with half the table's clock, the other seats' with the whole; the
deadline, the timer, the sweep and a late move's judgement follow the seat's own. The server's
clock is stopped and moved by hand (`server_clock`), so every deadline is exact and no test
waits for a clock to run out.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from engine import GameState, Phase
from tables import selectors, services, tasks, warm
from tables.models import Game, Table, TableEvent
from tests.tables.helpers import connect, receive_until
from tests.tables.test_table_socket import hello

GRACE = timedelta(milliseconds=settings.GYM_CLOCK_GRACE_MS)
MS = timedelta(milliseconds=1)
SECOND = timedelta(seconds=1)
CLOCK = 10
HALF = 5


@pytest.fixture
def server_clock(monkeypatch: pytest.MonkeyPatch) -> list[datetime]:
    """The server's clock, stopped, and moved by hand: `server_clock[0] = moment`."""
    moment = [timezone.now()]
    monkeypatch.setattr(timezone, "now", lambda: moment[0])
    return moment


def gym_table(alice: Any, bob: Any, clock: int | None = CLOCK) -> Table:
    table = services.table_create(host=alice, mode="citizen_gym", players=2, clock=clock)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    services.seat_ready(table_id=table.pk, user=alice, ready=True)
    services.seat_ready(table_id=table.pk, user=bob, ready=True)
    return table


def live(table: Table) -> Game:
    game = Game.objects.filter(table=table).order_by("-number").first()
    assert game is not None
    return game


def state_of(table: Table) -> GameState:
    return GameState.from_json(live(table).state)


def to_act(table: Table) -> int:
    seat = state_of(table).to_act
    assert seat is not None
    return seat


def a_move(state: GameState, kinds: tuple[str, ...] = ("play", "doubles", "draw", "pass")) -> dict:
    """A legal move of the seat to act, the first kind of `kinds` that it has."""
    for kind in kinds:
        for action in state.legal_actions():
            data = action.to_dict()
            if data["type"] == kind:
                data.pop("seat")
                return data
    raise AssertionError(f"no {kinds} among {state.legal_actions()}")


def move(table: Table, users: list[Any], **kwargs: Any) -> dict[str, Any]:
    """The seat to act makes a move (a play where it has one); the move."""
    game = live(table)
    state = GameState.from_json(game.state)
    assert state.to_act is not None
    action = a_move(state)
    services.game_act(
        table_id=table.pk, user=users[state.to_act], version=game.version, action=action, **kwargs
    )
    return action


def refusal(table: Table, user: Any) -> str:
    with pytest.raises(services.TableError) as refused:
        services.seat_clock_halve(table_id=table.pk, user=user)
    assert refused.value.message
    return refused.value.code


# --- whose clock ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_halved_clock_is_that_seat_s_alone_turn_after_turn(
    alice: Any, bob: Any, server_clock: list[datetime]
) -> None:
    users = [alice, bob]
    table = gym_table(alice, bob)
    first = to_act(table)
    halver = 1 - first
    before = live(table)
    game = services.seat_clock_halve(table_id=table.pk, user=users[halver])
    assert game.seat_clocks == {str(halver): HALF}
    after = live(table)
    assert after.seat_clocks == {str(halver): HALF}
    # Not on the clock: the running turn keeps its deadline, and nothing was played.
    assert (after.deadline, after.version) == (before.deadline, before.version)
    turns = {0: 0, 1: 0}
    for _ in range(60):
        game = live(table)
        if game.status != Game.Status.PLAYING:
            break
        seat = to_act(table)
        server_clock[0] += 200 * MS
        action = move(table, users)
        after = live(table)
        state = GameState.from_json(after.state)
        if after.status != Game.Status.PLAYING:
            break
        assert state.to_act is not None
        if action["type"] == "draw" and state.to_act == seat:
            assert after.deadline == game.deadline, "a draw keeps the running clock"
            continue
        # A new turn: the seat's own clock, from now or when the hand's summary wait ends.
        starts = after.clock_starts_at
        begins = starts if starts is not None and starts > server_clock[0] else server_clock[0]
        own = HALF if state.to_act == halver else CLOCK
        assert after.deadline == begins + timedelta(seconds=own), (state.to_act, action)
        turns[state.to_act] += 1
        if min(turns.values()) >= 3:
            break
    assert min(turns.values()) >= 3, turns


@pytest.mark.django_db
@pytest.mark.parametrize(("clock", "halved"), [(10, 5), (7, 4), (5, 3), (4, 3), (60, 30)])
def test_half_the_table_s_clock_rounded_up_never_under_the_shortest(
    alice: Any, bob: Any, clock: int, halved: int
) -> None:
    table = gym_table(alice, bob, clock=clock)
    seat = 1 - to_act(table)
    game = services.seat_clock_halve(table_id=table.pk, user=[alice, bob][seat])
    assert game.seat_clocks == {str(seat): halved}
    assert live(table).turn_clock(seat, clock) == halved
    assert live(table).turn_clock(1 - seat, clock) == clock


@pytest.mark.django_db
def test_the_hand_s_summary_wait_starts_the_seat_s_own_clock(
    alice: Any, bob: Any, server_clock: list[datetime]
) -> None:
    """After a hand, a turn's clock waits for the summary and then runs the seat's own."""
    users = [alice, bob]
    table = gym_table(alice, bob)
    halver = 1 - to_act(table)
    services.seat_clock_halve(table_id=table.pk, user=users[halver])
    deal = state_of(table).deal_number
    for _ in range(200):  # the first hand, to its end
        if state_of(table).deal_number != deal:
            break
        move(table, users)
    else:
        raise AssertionError("the hand never ended")
    # Moves made during the wait, until the halved seat is on the clock (or the wait is over).
    for _ in range(40):
        game = live(table)
        if to_act(table) == halver or game.status != Game.Status.PLAYING:
            break
        move(table, users)
    game = live(table)
    assert game.status == Game.Status.PLAYING and to_act(table) == halver
    starts = game.clock_starts_at
    assert starts is not None and starts > server_clock[0], "still waiting for the summary"
    assert game.deadline == starts + timedelta(seconds=HALF)
    # Everyone dismisses the summary 2 s later: the halved clock runs from then.
    server_clock[0] += 2 * SECOND
    hand = state_of(table).deal_number
    for user in users:
        services.summary_seen(table_id=table.pk, user=user, hand=hand)
    assert live(table).deadline == server_clock[0] + timedelta(seconds=HALF)


# --- when it may be halved --------------------------------------------------------------------


@pytest.mark.django_db
def test_refused_after_the_seat_s_first_move(alice: Any, bob: Any) -> None:
    users = [alice, bob]
    table = gym_table(alice, bob)
    seat = to_act(table)
    move(table, users)  # a play, a doubles choice, or a draw: the seat's first move
    assert refusal(table, users[seat]) == "already_moved"
    assert live(table).seat_clocks == {}


@pytest.mark.django_db
def test_refused_after_the_seat_s_first_dumbbell(alice: Any, bob: Any) -> None:
    users = [alice, bob]
    table = gym_table(alice, bob)
    seat = to_act(table)
    game = live(table)
    assert game.deadline is not None
    due = game.deadline + GRACE + MS
    assert services.clock_expire(game_id=game.pk, version=game.version, now=due)
    assert refusal(table, users[seat]) == "already_moved"
    # The other seat has made no move yet: it still may.
    assert services.seat_clock_halve(table_id=table.pk, user=users[1 - seat]).seat_clocks == {
        str(1 - seat): HALF
    }


@pytest.mark.django_db
def test_refused_twice(alice: Any, bob: Any) -> None:
    users = [alice, bob]
    table = gym_table(alice, bob)
    seat = to_act(table)
    services.seat_clock_halve(table_id=table.pk, user=users[seat])
    deadline = live(table).deadline
    seq = Table.objects.get(pk=table.pk).seq
    assert refusal(table, users[seat]) == "clock_halved"
    after = live(table)
    assert after.seat_clocks == {str(seat): HALF} and after.deadline == deadline
    assert Table.objects.get(pk=table.pk).seq == seq


@pytest.mark.django_db
def test_refused_to_anyone_not_seated(alice: Any, bob: Any, make_user: Any) -> None:
    table = gym_table(alice, bob)
    assert refusal(table, make_user("Carol")) == "not_seated"
    assert live(table).seat_clocks == {}


@pytest.mark.django_db
def test_refused_at_a_table_without_a_clock(alice: Any, bob: Any) -> None:
    gym = gym_table(alice, bob, clock=None)  # a Gym table may play without a clock
    assert refusal(gym, alice) == "no_clock"
    plain = services.table_create(host=bob, mode="citizen", players=2)
    services.seat_take(table_id=plain.pk, user=alice, number=1)
    services.seat_ready(table_id=plain.pk, user=alice, ready=True)
    services.seat_ready(table_id=plain.pk, user=bob, ready=True)
    assert refusal(plain, alice) == "no_clock"


@pytest.mark.django_db
def test_refused_at_the_shortest_clock(alice: Any, bob: Any) -> None:
    table = gym_table(alice, bob, clock=3)
    assert refusal(table, alice) == "clock_too_short"
    assert live(table).seat_clocks == {}


@pytest.mark.django_db
def test_refused_without_a_game_in_progress(alice: Any, bob: Any) -> None:
    table = services.table_create(host=alice, mode="citizen_gym", players=2, clock=CLOCK)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    assert refusal(table, alice) == "no_game"


# --- the running turn, the timer, a late move -------------------------------------------------


@pytest.mark.django_db
def test_halving_on_one_s_own_turn_moves_the_deadline_up(
    alice: Any, bob: Any, server_clock: list[datetime]
) -> None:
    users = [alice, bob]
    start = server_clock[0]
    table = gym_table(alice, bob)
    seat = to_act(table)
    game = live(table)
    assert game.deadline == start + timedelta(seconds=CLOCK)
    seq = Table.objects.get(pk=table.pk).seq
    server_clock[0] = start + 2 * SECOND
    services.seat_clock_halve(table_id=table.pk, user=users[seat])
    after = live(table)
    assert after.deadline == start + timedelta(seconds=HALF)
    assert after.version == game.version, "no game action: the version stays"
    # Every page hears it: one event, for everyone.
    assert Table.objects.get(pk=table.pk).seq == seq + 1
    event = TableEvent.objects.get(table=table, seq=seq + 1)
    assert event.public == [{"type": "clock_halved", "seat": seat, "seconds": HALF}]
    assert event.private == {}


@pytest.mark.django_db
def test_halving_late_in_one_s_turn_leaves_no_time_in_the_past(
    alice: Any, bob: Any, server_clock: list[datetime]
) -> None:
    users = [alice, bob]
    start = server_clock[0]
    table = gym_table(alice, bob)
    seat = to_act(table)
    server_clock[0] = start + 7 * SECOND  # past what the halved clock would have given
    services.seat_clock_halve(table_id=table.pk, user=users[seat])
    assert live(table).deadline == server_clock[0]


@pytest.mark.django_db
def test_halving_after_one_s_deadline_passed_gives_no_time_back(
    alice: Any, bob: Any, server_clock: list[datetime]
) -> None:
    """The clock ran out (the timer, a second behind, has not acted yet): the deadline stays
    where it was, and the timer gives the dumbbell for it."""
    users = [alice, bob]
    start = server_clock[0]
    table = gym_table(alice, bob)
    seat = to_act(table)
    deadline = start + timedelta(seconds=CLOCK)
    server_clock[0] = deadline + GRACE + 500 * MS
    services.seat_clock_halve(table_id=table.pk, user=users[seat])
    game = live(table)
    assert game.deadline == deadline
    assert services.clock_expire(game_id=game.pk, version=game.version, now=server_clock[0])


@pytest.mark.django_db
def test_the_timer_gives_the_dumbbell_at_the_seat_s_own_deadline(
    alice: Any, bob: Any, server_clock: list[datetime]
) -> None:
    users = [alice, bob]
    start = server_clock[0]
    table = gym_table(alice, bob)
    seat = to_act(table)
    services.seat_clock_halve(table_id=table.pk, user=users[seat])
    game = live(table)
    timer_due = start + timedelta(seconds=HALF) + GRACE + services.clock_timer_slack()
    # The timer judges the clock as it stood the slack ago: at its edge, nothing yet...
    server_clock[0] = timer_due
    assert tasks.clock_expire.apply(args=(game.pk, game.version)).get() is False
    assert tasks.clock_sweep.apply().get() == 0
    # ...a millisecond later, five seconds before the table's clock would run out, the dumbbell.
    server_clock[0] = timer_due + MS
    assert tasks.clock_expire.apply(args=(game.pk, game.version)).get() is True
    after = live(table)
    state = GameState.from_json(after.state)
    assert state.dumbbells[seat] == 1 and state.to_act == seat
    # The clock starts over: the seat's own again.
    assert after.deadline == server_clock[0] + timedelta(seconds=HALF)
    # The seat plays; the other seat's turn has the table's whole clock, which no timer cuts.
    while to_act(table) == seat:
        move(table, users)
    other = live(table)
    begins = server_clock[0]
    if other.clock_starts_at is not None and other.clock_starts_at > begins:
        begins = other.clock_starts_at  # (a hand ended with that play: its summary wait)
    assert other.deadline == begins + timedelta(seconds=CLOCK)
    assert services.clock_sweep(now=begins + timedelta(seconds=HALF) + GRACE + MS) == 0
    assert services.clock_sweep(now=other.deadline + GRACE + MS) == 1


@pytest.mark.django_db
def test_a_move_is_judged_late_by_the_seat_s_own_clock(
    alice: Any, bob: Any, server_clock: list[datetime]
) -> None:
    users = [alice, bob]
    start = server_clock[0]
    table = gym_table(alice, bob)
    seat = to_act(table)
    services.seat_clock_halve(table_id=table.pk, user=users[seat])
    # 6 s into the turn: in time on the table's clock, late on the seat's own.
    server_clock[0] = start + 6 * SECOND
    game = live(table)
    with pytest.raises(services.TableError) as refused:
        move(table, users, arrived_at=server_clock[0])
    assert refused.value.code == "clock_ran_out"
    after = live(table)
    assert after.version == game.version + 1
    assert GameState.from_json(after.state).dumbbells[seat] == 1
    # The clock started over, the seat's own: a move 50 ms inside its grace counts.
    assert after.deadline == server_clock[0] + timedelta(seconds=HALF)
    arrived = after.deadline + GRACE - 50 * MS
    server_clock[0] = arrived + 100 * MS
    move(table, users, arrived_at=arrived)
    assert live(table).version > after.version
    assert GameState.from_json(live(table).state).dumbbells[seat] == 1


# --- what pages and apps above are told -------------------------------------------------------


@pytest.mark.django_db
def test_the_clock_view_names_each_seat_s_own_clock(alice: Any, bob: Any) -> None:
    users = [alice, bob]
    table = gym_table(alice, bob)
    seat = 1 - to_act(table)
    game = live(table)
    for viewer in (0, 1, None):
        clock = selectors.game_view(game, viewer)["clock"]  # type: ignore[index]
        assert clock["seconds"] == CLOCK and clock["seats"] == {}
    services.seat_clock_halve(table_id=table.pk, user=users[seat])
    game = live(table)
    for viewer in (0, 1, None):
        clock = selectors.game_view(game, viewer)["clock"]  # type: ignore[index]
        assert clock["seconds"] == CLOCK and clock["seats"] == {str(seat): HALF}
    # A table without a clock has no clock view at all.
    plain = gym_table(bob, alice, clock=None)
    assert selectors.game_view(live(plain), 0)["clock"] is None  # type: ignore[index]


@pytest.mark.django_db(transaction=True)
async def test_every_page_hears_the_halved_clock(alice: Any, bob: Any) -> None:
    users = [alice, bob]
    table = await sync_to_async(gym_table)(alice, bob)
    seat = await sync_to_async(to_act)(table)
    sockets = [await connect(user, table.pk) for user in users]
    for socket in sockets:
        snapshot = await hello(socket)
        assert snapshot["type"] == "snapshot" and snapshot["game"]["clock"]["seats"] == {}
    before = (await sync_to_async(live)(table)).deadline
    assert before is not None
    await sync_to_async(services.seat_clock_halve)(table_id=table.pk, user=users[seat])
    seq = (await Table.objects.aget(pk=table.pk)).seq
    for n, socket in enumerate(sockets):
        update = await receive_until(socket, seq, n)
        assert update["type"] == "update" and update["seq"] == seq
        assert update["events"] == [{"type": "clock_halved", "seat": seat, "seconds": HALF}]
        clock = update["game"]["clock"]
        assert clock["seats"] == {str(seat): HALF} and clock["seconds"] == CLOCK
        assert clock["deadline"] == int((before - timedelta(seconds=HALF)).timestamp() * 1000)
        assert "table" not in update or update["table"] is None
        await socket.disconnect()


@pytest.mark.django_db
def test_the_apps_above_hear_it_after_commit(
    alice: Any,
    bob: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    users = [alice, bob]
    heard: list[tuple[int, int, int]] = []

    def record(table_id: int, game_id: int, seat: int) -> None:
        heard.append((table_id, game_id, seat))

    def broken(table_id: int, game_id: int, seat: int) -> None:
        raise RuntimeError("the arena's books are shut")

    monkeypatch.setattr(services, "SEAT_CLOCK_HALVED", [broken, record])
    table = gym_table(alice, bob)
    seat = 1 - to_act(table)
    with django_capture_on_commit_callbacks() as callbacks:
        game = services.seat_clock_halve(table_id=table.pk, user=users[seat])
    assert heard == [], "not before the commit"
    with caplog.at_level(logging.ERROR, logger="tables.services"):
        for callback in callbacks:
            callback()
    assert heard == [(table.pk, game.pk, seat)]
    assert "clock-halved hook failed" in caplog.text  # logged, never the player's error
    # A refusal is heard by nobody.
    with django_capture_on_commit_callbacks(execute=True):
        assert refusal(table, users[seat]) == "clock_halved"
    assert heard == [(table.pk, game.pk, seat)]


@pytest.mark.django_db
def test_a_rematch_starts_with_the_table_s_clock_for_everyone(alice: Any, bob: Any) -> None:
    users = [alice, bob]
    table = gym_table(alice, bob)
    seat = to_act(table)
    services.seat_clock_halve(table_id=table.pk, user=users[seat])
    for _ in range(5):  # five dumbbells in one turn forfeit the game
        game = live(table)
        assert game.deadline is not None
        assert services.clock_expire(
            game_id=game.pk, version=game.version, now=game.deadline + GRACE + MS
        )
    assert live(table).status == Game.Status.FINISHED
    for user in users:
        services.rematch_offer(table_id=table.pk, user=user, want=True)
    rematch = live(table)
    assert rematch.number == 2 and rematch.seat_clocks == {}
    assert rematch.deadline is not None
    assert rematch.deadline > timezone.now() + timedelta(seconds=HALF + 1)


# --- a warm move (PostgreSQL) ------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="warm moves: PostgreSQL only")
def test_a_process_that_kept_the_game_before_the_halving_starts_the_seat_s_own_clock(
    alice: Any, bob: Any, server_clock: list[datetime]
) -> None:
    """Another process kept the game (tables/warm.py) before the seat halved its clock: its
    warm move loses on the row's version and is made the usual way, with the seat's clock."""
    users = [alice, bob]
    for _attempt in range(20):
        table = gym_table(alice, bob)
        seat = to_act(table)
        plays = [a for a in state_of(table).legal_actions() if a.to_dict()["type"] == "play"]
        after = state_of(table)
        if plays:
            after.apply(plays[0])
        if not plays or after.phase != Phase.PLAYING or after.to_act != 1 - seat:
            Game.objects.filter(table=table).update(status=Game.Status.ABORTED)
            continue  # a doubles choice, or a lead the other seat must pass on: another deal
        kept = warm.take(table.pk)  # what the other process holds
        assert kept is not None
        services.seat_clock_halve(table_id=table.pk, user=users[1 - seat])
        warm.keep(kept.game, {Game: kept.game_row, Table: kept.table_row})
        server_clock[0] += SECOND
        action = plays[0].to_dict()
        action.pop("seat")
        game = live(table)
        with CaptureQueriesContext(connection) as queries:
            services.game_act(
                table_id=table.pk, user=users[seat], version=game.version, action=action
            )
        sqls = [q["sql"] for q in queries]
        assert sqls[0].startswith("WITH"), "tried warm first"
        assert any("FOR UPDATE" in sql for sql in sqls[1:]), "then the usual way"
        assert to_act(table) == 1 - seat
        assert live(table).deadline == server_clock[0] + timedelta(seconds=HALF)
        return
    pytest.fail("no plain play to lead in 20 deals")


@pytest.mark.django_db(transaction=True)
async def test_a_player_halves_their_clock_from_the_table_only_where_it_is_offered(
    alice: Any, bob: Any
) -> None:
    """The table socket's `halve_clock`: refused (`no_halving`, nothing changed) at a table that
    does not offer it; where it does (an arena's Gym table), the seat's clock is halved and
    every page hears it."""
    users = [alice, bob]
    table = await sync_to_async(gym_table)(alice, bob)
    seat = await sync_to_async(to_act)(table)
    socket = await connect(users[seat], table.pk)
    await hello(socket)
    version = (await sync_to_async(live)(table)).version
    await socket.send_json_to({"type": "halve_clock", "request_id": "b1"})
    reply = await socket.receive_json_from(timeout=30)
    assert reply["type"] == "error" and reply["code"] == "no_halving", reply
    assert reply["request_id"] == "b1"
    game = await sync_to_async(live)(table)
    assert game.seat_clocks == {} and game.version == version

    await Table.objects.filter(pk=table.pk).aupdate(clock_halving=True)
    await socket.send_json_to({"type": "halve_clock", "request_id": "b2"})
    seq = (await Table.objects.aget(pk=table.pk)).seq + 1
    update = await receive_until(socket, seq, seat)
    assert update["events"] == [{"type": "clock_halved", "seat": seat, "seconds": HALF}]
    assert (await sync_to_async(live)(table)).seat_clocks == {str(seat): HALF}
    await socket.disconnect()
