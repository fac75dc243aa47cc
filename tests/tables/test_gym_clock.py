"""The Gym clock: deadlines, dumbbells given once, grace at its edges, the sweep, forfeits and
the workouts owed.

No test here waits for a clock to run out or races one: a dumbbell is given by calling the timer
with a `now` past the deadline, tables get the longest clock (a minute) so that players moving in
real time are never late however slow the machine, and where a move must land a few milliseconds
either side of the grace, the server's clock is stopped (`frozen_now`).
"""

from __future__ import annotations

import asyncio
import threading
from datetime import datetime, timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from engine import GameState
from gym.models import WorkoutOwed
from gym.services import WorkoutError, workout_done
from tables import services
from tables.models import Game, GameAction, Table
from tests.tables.helpers import connect, receive_until

GRACE = timedelta(milliseconds=settings.GYM_CLOCK_GRACE_MS)
MS = timedelta(milliseconds=1)


#: The longest turn clock a table may have: players who move in real time are never late.
LONG_CLOCK = 60


def gym_table(alice: Any, bob: Any, **options: Any) -> Table:
    options.setdefault("clock", LONG_CLOCK)
    table = services.table_create(host=alice, mode="citizen_gym", players=2, **options)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    services.seat_ready(table_id=table.pk, user=alice, ready=True)
    services.seat_ready(table_id=table.pk, user=bob, ready=True)
    return table


@pytest.fixture
def frozen_now(monkeypatch: pytest.MonkeyPatch) -> datetime:
    """The server's clock stopped at this moment: a deadline set a few milliseconds either side
    of its grace stays exactly there, however long the machine takes to get to the move."""
    moment = timezone.now()
    monkeypatch.setattr(timezone, "now", lambda: moment)
    return moment


def live(table: Table) -> Game:
    return Game.objects.get(table=table)


def due(game: Game) -> datetime:
    """A moment just past the game's deadline and grace: when its timer may act."""
    assert game.deadline is not None
    return game.deadline + GRACE + MS


def timeout(game: Game) -> bool:
    return services.clock_expire(game_id=game.pk, version=game.version, now=due(game))


def player_to_act(table: Table, alice: Any, bob: Any) -> tuple[Any, GameState]:
    state = GameState.from_json(live(table).state)
    assert state.to_act is not None
    return [alice, bob][state.to_act], state


def a_move(state: GameState, kinds: tuple[str, ...] = ("play", "doubles", "draw", "pass")) -> dict:
    for action in state.legal_actions():
        data = action.to_dict()
        if data["type"] in kinds:
            data.pop("seat")
            return data
    raise AssertionError(f"no {kinds} among {state.legal_actions()}")


@pytest.mark.django_db
def test_a_gym_turn_starts_with_a_full_clock(alice: Any, bob: Any) -> None:
    before = timezone.now()
    table = gym_table(alice, bob, clock=7)
    game = live(table)
    assert game.deadline is not None
    assert before + timedelta(seconds=7) <= game.deadline <= timezone.now() + timedelta(seconds=7)


@pytest.mark.django_db
def test_tables_without_a_clock_have_no_deadline(alice: Any, bob: Any) -> None:
    table = services.table_create(host=alice, mode="citizen", players=2)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    services.seat_ready(table_id=table.pk, user=alice, ready=True)
    services.seat_ready(table_id=table.pk, user=bob, ready=True)
    assert live(table).deadline is None
    assert services.clock_sweep(now=timezone.now() + timedelta(days=1)) == 0


@pytest.mark.django_db
def test_the_timer_run_twice_on_one_version_gives_one_dumbbell(alice: Any, bob: Any) -> None:
    table = gym_table(alice, bob)
    game = live(table)
    seat = GameState.from_json(game.state).to_act
    assert timeout(game) is True
    assert timeout(game) is False  # the same version again: the game moved on
    after = live(table)
    state = GameState.from_json(after.state)
    assert state.dumbbells[seat] == 1 and state.turn_dumbbells == 1
    assert state.to_act == seat, "still their turn"
    assert after.version == game.version + 1
    assert GameAction.objects.filter(game=game, kind="timeout").count() == 1
    # ...and the clock started over, full.
    assert after.deadline is not None and after.deadline > game.deadline


@pytest.mark.django_db
def test_no_dumbbell_before_the_deadline_and_its_grace(alice: Any, bob: Any) -> None:
    table = gym_table(alice, bob)
    game = live(table)
    assert game.deadline is not None
    at_edge = game.deadline + GRACE
    assert services.clock_expire(game_id=game.pk, version=game.version, now=at_edge) is False
    assert services.clock_sweep(now=at_edge) == 0
    assert live(table).version == game.version


@pytest.mark.django_db
def test_five_in_one_turn_forfeit_the_game(alice: Any, bob: Any) -> None:
    table = gym_table(alice, bob)
    seat = GameState.from_json(live(table).state).to_act
    for n in range(1, 6):
        game = live(table)
        assert game.status == Game.Status.PLAYING, f"the game ended after {n - 1} dumbbells"
        assert timeout(game)
    game = live(table)
    assert game.status == Game.Status.FINISHED and game.deadline is None
    assert game.result["reason"] == "forfeit" and game.result["forfeit"] == seat
    assert game.result["winner"] == 1 - seat
    assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED


@pytest.mark.django_db
def test_four_and_then_one_in_the_next_turn_do_not_forfeit(alice: Any, bob: Any) -> None:
    table = gym_table(alice, bob)
    for _ in range(4):
        assert timeout(live(table))
    user, state = player_to_act(table, alice, bob)
    first = state.to_act
    # The player finally moves (drawing keeps the turn and its clock: play or pass ends it).
    while state.to_act == first:
        game = live(table)
        services.game_act(table_id=table.pk, user=user, version=game.version, action=a_move(state))
        state = GameState.from_json(live(table).state)
    assert state.turn_dumbbells == 0
    assert state.dumbbells[first] == 4
    # The same player's next turn: one more dumbbell is not the fifth of a turn.
    while state.to_act != first:
        other, _ = player_to_act(table, alice, bob)
        game = live(table)
        services.game_act(table_id=table.pk, user=other, version=game.version, action=a_move(state))
        state = GameState.from_json(live(table).state)
    assert timeout(live(table))
    state = GameState.from_json(live(table).state)
    assert live(table).status == Game.Status.PLAYING
    assert state.dumbbells[first] == 5 and state.turn_dumbbells == 1


@pytest.mark.django_db
def test_drawing_keeps_the_running_clock(alice: Any, bob: Any) -> None:
    # Draws happen when a player cannot play; look for one over a few games' worth of deals.
    for _attempt in range(30):
        table = gym_table(alice, bob)
        for _ in range(40):
            game = live(table)
            state = GameState.from_json(game.state)
            if game.status != Game.Status.PLAYING:
                break
            user = [alice, bob][state.to_act]
            kinds = {a.to_dict()["type"] for a in state.legal_actions()}
            move = a_move(state, ("draw",) if "draw" in kinds else ("play", "doubles", "pass"))
            services.game_act(table_id=table.pk, user=user, version=game.version, action=move)
            after = live(table)
            if move["type"] == "draw" and GameState.from_json(after.state).to_act == state.to_act:
                assert after.deadline == game.deadline
                return
            waiting = after.clock_starts_at is not None and after.clock_starts_at > timezone.now()
            if move["type"] == "play" and waiting:
                # a new hand whose clock still waits for its summary: every turn starts then
                assert after.deadline == after.clock_starts_at + timedelta(
                    seconds=state.settings.clock or 0
                )
            elif move["type"] == "play":
                assert after.deadline is not None and after.deadline > game.deadline
        Game.objects.filter(table=table).update(status=Game.Status.ABORTED)
    pytest.fail("no draw in 30 games")


@pytest.mark.django_db
def test_a_move_within_the_grace_counts(alice: Any, bob: Any, frozen_now: datetime) -> None:
    table = gym_table(alice, bob)
    user, state = player_to_act(table, alice, bob)
    # The deadline passed 50 ms less than the grace ago: the move still counts.
    deadline = frozen_now - GRACE + 50 * MS
    Game.objects.filter(table=table).update(deadline=deadline)
    game = live(table)
    result = services.game_act(
        table_id=table.pk, user=user, version=game.version, action=a_move(state)
    )
    assert result.version > game.version
    assert GameState.from_json(live(table).state).dumbbells == [0, 0]


@pytest.mark.django_db
def test_the_timer_never_beats_a_move_that_arrived_in_time(
    alice: Any, bob: Any, frozen_now: datetime
) -> None:
    """A move reached the server 50 ms inside the grace but is carried out 500 ms after it (the
    database was busy), and the timer fires in between: it leaves the turn to the move, which
    goes through; the sweep likewise. A little later than the slack, they give the dumbbell."""
    from tables import tasks

    table = gym_table(alice, bob)
    user, state = player_to_act(table, alice, bob)
    deadline = frozen_now - GRACE - 500 * MS  # now: 500 ms past the deadline and grace
    Game.objects.filter(table=table).update(deadline=deadline)
    game = live(table)
    assert tasks.clock_expire.apply(args=(game.pk, game.version)).get() is False
    assert tasks.clock_sweep.apply().get() == 0
    result = services.game_act(
        table_id=table.pk,
        user=user,
        version=game.version,
        action=a_move(state),
        arrived_at=deadline + GRACE - 50 * MS,
    )
    assert result.version > game.version
    assert GameState.from_json(live(table).state).dumbbells == [0, 0]
    # the next turn, left to run out: past the slack, the sweep gives the dumbbell
    nxt = live(table)
    assert nxt.deadline is not None
    to_act = GameState.from_json(nxt.state).to_act
    Game.objects.filter(pk=nxt.pk).update(
        deadline=frozen_now - GRACE - services.clock_timer_slack() - MS
    )
    assert tasks.clock_sweep.apply().get() == 1
    assert GameState.from_json(live(table).state).dumbbells[to_act] == 1


@pytest.mark.django_db
def test_a_move_after_the_grace_is_refused_and_the_dumbbell_given(
    alice: Any, bob: Any, frozen_now: datetime
) -> None:
    table = gym_table(alice, bob)
    user, state = player_to_act(table, alice, bob)
    seat = state.to_act
    Game.objects.filter(table=table).update(deadline=frozen_now - GRACE - 50 * MS)
    game = live(table)
    with pytest.raises(services.TableError) as refused:
        services.game_act(table_id=table.pk, user=user, version=game.version, action=a_move(state))
    assert refused.value.code == "clock_ran_out"
    after = live(table)
    assert after.version == game.version + 1
    assert GameState.from_json(after.state).dumbbells[seat] == 1
    assert not GameAction.objects.filter(game=game).exclude(kind__in=["deal", "timeout"]).exists()


@pytest.mark.django_db
def test_players_cannot_send_themselves_a_timeout(alice: Any, bob: Any) -> None:
    table = gym_table(alice, bob)
    user, _state = player_to_act(table, alice, bob)
    game = live(table)
    with pytest.raises(services.TableError) as refused:
        services.game_act(
            table_id=table.pk, user=user, version=game.version, action={"type": "timeout"}
        )
    assert refused.value.code == "bad_field"
    assert live(table).version == game.version


@pytest.mark.django_db
def test_the_sweep_picks_up_a_lost_timer(alice: Any, bob: Any) -> None:
    first = gym_table(alice, bob)
    second = gym_table(bob, alice)
    late = max(due(live(first)), due(live(second)))
    assert services.clock_sweep(now=late) == 2
    assert services.clock_sweep(now=late) == 0  # each game's clock started over
    for table in (first, second):
        assert sum(GameState.from_json(live(table).state).dumbbells) == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("move_first", [True, False])
def test_a_move_racing_its_timeout_exactly_one_wins(
    alice: Any, bob: Any, move_first: bool, frozen_now: datetime
) -> None:
    """The move arrives inside the grace while the timer, from a clock that reads later, acts
    on the same version: whichever takes the game first wins, the other changes nothing."""
    table = gym_table(alice, bob)
    user, state = player_to_act(table, alice, bob)
    Game.objects.filter(table=table).update(deadline=frozen_now - GRACE / 2)
    game = live(table)
    outcome: dict[str, Any] = {}
    start = threading.Barrier(2)

    def move() -> None:
        start.wait()
        try:
            services.game_act(
                table_id=table.pk, user=user, version=game.version, action=a_move(state)
            )
            outcome["move"] = "applied"
        except services.TableError as exc:
            outcome["move"] = exc.code
        finally:
            close_old_connections()

    def timer() -> None:
        start.wait()
        try:
            outcome["timer"] = services.clock_expire(
                game_id=game.pk, version=game.version, now=due(game)
            )
        finally:
            close_old_connections()

    order = [move, timer] if move_first else [timer, move]
    threads = [threading.Thread(target=f) for f in order]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "a thread never finished"
    after = GameState.from_json(live(table).state)
    dumbbells = sum(after.dumbbells)
    assert (outcome["move"] == "applied") != (outcome["timer"] is True), outcome
    if outcome["timer"]:
        assert dumbbells == 1 and outcome["move"] == "stale"
    else:
        assert dumbbells == 0
    timeouts = GameAction.objects.filter(game=game, kind="timeout").count()
    assert timeouts == dumbbells


@pytest.mark.django_db(transaction=True)
async def test_a_disconnected_player_keeps_taking_dumbbells(alice: Any, bob: Any) -> None:
    table = await sync_to_async(gym_table)(alice, bob)
    game = await sync_to_async(live)(table)
    seat = GameState.from_json(game.state).to_act
    users = [alice, bob]
    watcher = await connect(users[1 - seat], table.pk)
    await watcher.send_json_to({"type": "hello", "last_seq": None})
    snapshot = await watcher.receive_json_from(timeout=10)
    assert snapshot["game"]["clock"]["deadline"] == int(game.deadline.timestamp() * 1000)
    assert isinstance(snapshot["server_time"], int)
    # The player to act never connects (or has gone): their clock runs all the same.
    seq = snapshot["seq"]
    for n in (1, 2):
        game = await sync_to_async(live)(table)
        assert await sync_to_async(timeout)(game)
        seq += 1
        update = await receive_until(watcher, seq, 1 - seat)
        dumbbell = next(e for e in update["events"] if e["type"] == "dumbbell")
        assert dumbbell == {"type": "dumbbell", "seat": seat, "in_turn": n, "in_game": n}
        assert update["game"]["dumbbells"][seat] == n
        assert update["game"]["clock"]["deadline"] > snapshot["game"]["clock"]["deadline"]
    await watcher.disconnect()


# --- workouts ---------------------------------------------------------------------------------


def forfeit(table: Table) -> Game:
    for _ in range(5):
        assert timeout(live(table))
    return live(table)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kind", "base", "skunked", "owed"),
    [
        ("reps", 20, True, (20 + 5 * 5) * 2),
        ("reps", 20, False, 20 + 5 * 5),
        ("timed", 60, True, (60 + 5 * 30) * 2),
        ("timed", 60, False, 60 + 5 * 30),
        ("run", 10, True, (10 + 5 * 5) * 2),  # tenths of a mile: 1 mile + 5 half miles
        ("run", 10, False, 10 + 5 * 5),
    ],
)
def test_the_loser_owes_the_workout(
    alice: Any, bob: Any, kind: str, base: int, skunked: bool, owed: int
) -> None:
    table = gym_table(alice, bob, workout={"kind": kind, "amount": base})
    if not skunked:  # the loser has enough points not to be skunked
        state = live(table).state
        state["scores"] = [100, 100]
        Game.objects.filter(table=table).update(state=state)
    loser = GameState.from_json(live(table).state).to_act
    game = forfeit(table)
    workout = WorkoutOwed.objects.get(game=game)
    assert workout.user_id == game.players[loser] and workout.seat == loser
    assert (workout.kind, workout.amount, workout.base_amount) == (kind, owed, base)
    assert workout.dumbbells == 5 and workout.skunked is skunked
    assert game.result["workouts"][loser] == {"kind": kind, "amount": owed}
    assert game.result["workouts"][1 - loser] is None  # the winner owes nothing


@pytest.mark.django_db
def test_a_workout_is_marked_done_by_its_player_only(alice: Any, bob: Any, client: Any) -> None:
    table = gym_table(alice, bob)
    game = forfeit(table)
    workout = WorkoutOwed.objects.get(game=game)
    owner = workout.user
    stranger = bob if owner == alice else alice
    with pytest.raises(WorkoutError):
        workout_done(workout_id=workout.pk, user=stranger)
    client.force_login(stranger)
    client.post(f"/workouts/{workout.pk}/done/")
    workout.refresh_from_db()
    assert workout.done_at is None
    client.force_login(owner)
    page = client.get("/profile/", follow=True)
    assert "Mark done" in page.content.decode()
    client.post(f"/workouts/{workout.pk}/done/")
    workout.refresh_from_db()
    assert workout.done_at is not None
    first = workout.done_at
    workout_done(workout_id=workout.pk, user=owner)
    workout.refresh_from_db()
    assert workout.done_at == first
    # Others see only the counts, never the list.
    client.force_login(stranger)
    page = client.get(f"/players/{owner.pk}/").content.decode()
    assert "Mark done" not in page and "1 done" in page


# --- a move is judged by when it reached the server --------------------------------------------


@pytest.fixture
def server_clock(monkeypatch: pytest.MonkeyPatch) -> list[datetime]:
    """The server's clock, stopped, and moved by hand: `server_clock[0] = moment`."""
    moment = [timezone.now()]
    monkeypatch.setattr(timezone, "now", lambda: moment[0])
    return moment


@pytest.mark.django_db(transaction=True)
def test_a_move_counts_when_it_reached_the_server_not_when_it_was_got_to(
    alice: Any, bob: Any, server_clock: list[datetime]
) -> None:
    """At load a move that came in inside the grace waited behind other database work and was
    refused `clock_ran_out`: the deadline was compared with when the server got to it. On
    PostgreSQL the move is made warm (one statement, no lock) like any other in time."""
    from tests.tables.test_warm import plain_move

    table = gym_table(alice, bob)
    user, version, action = plain_move(table, alice, bob)
    deadline = live(table).deadline
    assert deadline is not None
    # It reached the server 50 ms inside the grace; the server got to it 2 s after the grace.
    server_clock[0] = deadline + GRACE + 2000 * MS
    with CaptureQueriesContext(connection) as queries:
        result = services.game_act(
            table_id=table.pk,
            user=user,
            version=version,
            action=action,
            arrived_at=deadline + GRACE - 50 * MS,
        )
    assert result.version > version
    assert GameState.from_json(live(table).state).dumbbells == [0, 0]
    if connection.vendor == "postgresql":
        assert not any("FOR UPDATE" in q["sql"] for q in queries), "made warm"
    # The next move reached the server 50 ms after its grace: refused, the dumbbell given,
    # however soon the server got to it.
    user, version, action = plain_move(table, alice, bob)
    seat = GameState.from_json(live(table).state).to_act
    deadline = live(table).deadline
    assert deadline is not None
    server_clock[0] = deadline + GRACE + 60 * MS
    with pytest.raises(services.TableError) as refused:
        services.game_act(
            table_id=table.pk,
            user=user,
            version=version,
            action=action,
            arrived_at=deadline + GRACE + 50 * MS,
        )
    assert refused.value.code == "clock_ran_out"
    assert GameState.from_json(live(table).state).dumbbells[seat] == 1


#: How long the live server's socket is kept busy before it gets to the move, and how much of
#: the clock (with its grace) is left when the move is sent (see below).
BUSY_SECONDS = 3.5
LEFT_SECONDS = 1.5


async def _busy_then_move(port: int, table_id: int, cookies: list[str]) -> list[dict[str, Any]]:
    """Both players' sockets; the player to act, with LEFT_SECONDS of the clock and grace left,
    sends a message that keeps the socket busy for BUSY_SECONDS and at once the move behind
    it. Then the next player to act, past the deadline and grace, moves at once. What each was
    told."""
    import json

    from tests.tables.test_restart import open_socket

    async def next_of(socket: Any, kinds: tuple[str, ...]) -> dict[str, Any]:
        while True:
            message = json.loads(await asyncio.wait_for(socket.recv(), timeout=30))
            if message["type"] in kinds:
                return message

    async def game_at(socket: Any, version: int) -> dict[str, Any]:
        while True:
            message = await next_of(socket, ("update",))
            if message["game"]["version"] >= version:
                return message["game"]

    async def move(socket: Any, game: dict[str, Any]) -> None:
        action = dict(game["legal_actions"][0])
        action.pop("seat")
        await socket.send(json.dumps({"type": "act", "version": game["version"], "action": action}))

    sockets = [await open_socket(port, table_id, c) for c in cookies]
    views = []
    for socket in sockets:
        await socket.send(json.dumps({"type": "hello", "last_seq": None}))
        views.append((await next_of(socket, ("snapshot",)))["game"])
    actor = views[0]["to_act"]
    await sync_to_async(_clock_left)(table_id, LEFT_SECONDS)
    await sockets[actor].send(json.dumps({"type": "busy"}))
    await move(sockets[actor], views[actor])
    told = [await next_of(sockets[actor], ("ack", "error"))]
    assert told[0]["type"] == "ack", told
    version = told[0]["version"]
    game = await game_at(sockets[actor], version)
    if game["to_act"] != actor:
        actor = game["to_act"]
        game = await game_at(sockets[actor], version)
    await sync_to_async(_clock_left)(table_id, -1.0)
    await move(sockets[actor], game)
    told.append(await next_of(sockets[actor], ("ack", "error")))
    for socket in sockets:
        await socket.close()
    return told


def _clock_left(table_id: int, seconds: float) -> None:
    """Set the running clock so that its deadline and grace end `seconds` from now."""
    Game.objects.filter(table_id=table_id, status=Game.Status.PLAYING).update(
        deadline=timezone.now() - GRACE + timedelta(seconds=seconds)
    )


@pytest.mark.django_db(transaction=True)
def test_a_real_server_judges_a_move_by_when_its_frame_came_in(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """daphne stamps each frame as it reads it (dominoes_site/arrival.py): a move that came in
    with a second of clock left, while its socket was busy with the message before it for three,
    counts; one that came in after the deadline and grace is refused `clock_ran_out`."""
    from tables.consumers import TableConsumer
    from tests.live import start_server, stop_server
    from tests.tables.test_restart import cookie_for

    async def busy(consumer: Any, content: dict[str, Any]) -> None:
        await asyncio.sleep(BUSY_SECONDS)  # as a socket whose database work queued that long

    # In the server's process (forked from this one): a message that keeps the socket busy.
    monkeypatch.setitem(TableConsumer.HANDLERS, "busy", busy)
    table = gym_table(alice, bob)
    cookies = [cookie_for(u) for u in (alice, bob)]
    server = start_server()
    try:
        told = asyncio.run(_busy_then_move(server.port.value, table.pk, cookies))
    finally:
        stop_server(server)
    assert told[0]["type"] == "ack", told
    assert told[1]["type"] == "error" and told[1]["code"] == "clock_ran_out", told
    assert sum(GameState.from_json(live(table).state).dumbbells) == 1
