"""Who is at a table, and what happens when a player leaves a game in progress.

Each open table socket is a `Presence` row, refreshed by whatever the page sends (at most every
15 s: tables/consumers.py); the beat's sweep drops a row not seen for `PRESENCE_STALE_SECONDS`
as a closed socket, so a crashed server's sockets do not keep seats alive. A socket taken for gone
that was not (it was only quiet) is there again with its next message (`presence_refresh`), as
if it had just opened. A seated player is
online while they have a row at the table; each change of that is an event (`online`, or during
a game `away` and `back`), so that two snapshots at one event number always show the same.
When a seated player's last socket closes during a game, the seat is held for a grace period
(`LEAVE_GRACE_SECONDS`, shorter when the page was closed on purpose) and everyone sees a
countdown. When it runs out (a Celery timer, and a beat sweep behind it): one on one, the other
player may claim the game; Cut Throat and Partners, the table's `on_leave` setting decides: wait,
or the leaver's side forfeits. Each game lost that way is an `Abandonment`; repeated ones make the
player wait before sitting again. A game left to house players alone (every person away, their
grace run out) would wait for ever: the house claims it, whatever the table's rule, and the
first person to have left loses it; that costs no waiting time (nobody was kept waiting). A game
of people only that every one of them left (each away past their grace: one on one, nobody is
there to claim it) would wait for ever too: it ends the same way, the first to have left losing
it, as a claim by the others would have; that one counts as an abandonment, as a claim does.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings as django_settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from dominoes_site import db_hop
from dominoes_site.layer import group_send_many, group_send_many_on, outer_loop
from dominoes_site.metrics import PRESENCE_SWEPT
from engine import ActionError, GameState
from tables import broadcast
from tables.models import Abandonment, Game, Presence, Seat, Table

log = logging.getLogger(__name__)

#: A socket refreshes its row at least every 20 s (pings, or any message); unseen this long, the
#: sweep drops it.
PRESENCE_STALE_SECONDS = 90
#: A socket closed by a drained server (dominoes_site/serve.py: the page reconnects at once, to
#: another server) leaves its row behind, aged so that the sweep (every 5 s) drops it this long
#: after: a player back by then was never away; one who is not is away from then on.
DRAIN_HOLD_SECONDS = 15
#: Abandonments counted for the waiting time, and how it grows.
ABANDON_WINDOW = timedelta(days=7)
ABANDON_FIRST_WAIT = timedelta(minutes=5)


def grace_for(*, on_purpose: bool) -> timedelta:
    seconds = (
        django_settings.LEAVE_GRACE_CLOSED_SECONDS
        if on_purpose
        else django_settings.LEAVE_GRACE_SECONDS
    )
    return timedelta(seconds=seconds)


def _fresh(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(seconds=PRESENCE_STALE_SECONDS)


def _playing_game(table_id: int) -> Game | None:
    return (
        Game.objects.select_related("table")
        .filter(table_id=table_id, status=Game.Status.PLAYING)
        .first()
    )


def _seat_in(game: Game | None, user_id: int) -> int | None:
    if game is None or user_id not in game.players:
        return None
    return list(game.players).index(user_id)


# --- sockets coming and going -----------------------------------------------------------------


def _seated(table_id: int, user_id: int) -> int | None:
    """The seat this user holds at the table (before, during or after a game), or None."""
    return (
        Seat.objects.filter(table_id=table_id, user_id=user_id)
        .values_list("number", flat=True)
        .first()
    )


def presence_join(*, table_id: int, user: Any, channel_name: str) -> None:
    """A socket opened at the table. A seated player who had none open is online again (an
    event); one who was away from a game is back, and the seat is theirs."""
    from tables.services import _record

    now = timezone.now()
    if _seated(table_id, user.pk) is None:  # a watcher: one statement, no transaction
        _present(table_id, user, channel_name, now)
        transaction.on_commit(lambda: watchers_changed(table_id))
        return
    with transaction.atomic():
        seat = _seated(table_id, user.pk)
        if seat is None:  # stood up since
            _present(table_id, user, channel_name, now)
            transaction.on_commit(lambda: watchers_changed(table_id))
            return
        # A seated player's sockets come and go one at a time per table (its row is locked), so
        # "was online" is exact and each change is one event.
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        if table is None:
            return
        was_online = (
            Presence.objects.filter(table_id=table_id, user=user)
            .exclude(channel_name=channel_name)
            .exists()
        )
        _present(table_id, user, channel_name, now)
        game = _playing_game(table_id)
        if _seat_in(game, user.pk) is not None:
            back = Seat.objects.filter(
                table_id=table_id, number=seat, away_since__isnull=False
            ).update(away_since=None, grace_until=None, left_on_purpose=False)
            if back:
                _record(table, public=[{"type": "back", "seat": seat}], lobby=False)
                return
        if not was_online:
            _record(table, public=[{"type": "online", "seat": seat, "online": True}], lobby=False)


def _present(table_id: int, user: Any, channel_name: str, now: datetime) -> None:
    """This socket's row, written or refreshed in one statement (an upsert on the channel)."""
    Presence.objects.bulk_create(
        [Presence(table_id=table_id, user=user, channel_name=channel_name, seen_at=now)],
        update_conflicts=True,
        unique_fields=["channel_name"],
        update_fields=["table", "user", "seen_at"],
    )


def presence_seen(*, channel_name: str) -> bool:
    """A sign of life from this socket: whether it still had a row to refresh (False: the
    sweep took it for gone)."""
    return bool(Presence.objects.filter(channel_name=channel_name).update(seen_at=timezone.now()))


def presence_refresh(*, table_id: int, user: Any, channel_name: str) -> bool:
    """A sign of life from an open socket (the consumer calls this at most every 15 s, and at
    once after the sweep took it for gone): its row is refreshed, one write. A socket whose row
    the sweep dropped is there again: it joins as a new socket does (`presence_join`: `back`
    during a game, else `online`), before the message it came with is carried out. Returns
    whether it had to join again."""
    if presence_seen(channel_name=channel_name):
        return False
    presence_join(table_id=table_id, user=user, channel_name=channel_name)
    return True


def presence_leave(
    *,
    channel_name: str,
    on_purpose: bool,
    stale_before: datetime | None = None,
    drained: bool = False,
) -> None:
    """A socket closed. A seated player's last one: during a game the seat is held (`away`),
    otherwise they are offline (`online` false). `stale_before` (the sweep): only while the row
    was last seen before then; a socket that showed a sign of life meanwhile keeps it.

    `drained`: its server is stopping and told the page to reconnect at once (to another
    server). Nothing changes yet: the row stays, aged to be dropped by the sweep
    `DRAIN_HOLD_SECONDS` from now, so the page's new socket finds its player still online (no
    event, no `away` flashed to the others), and a player who does not come back leaves then,
    as from a lost connection."""
    from tables.services import _record

    if drained:
        aged = timezone.now() - timedelta(seconds=PRESENCE_STALE_SECONDS - DRAIN_HOLD_SECONDS)
        Presence.objects.filter(channel_name=channel_name, seen_at__gt=aged).update(seen_at=aged)
        return

    rows = Presence.objects.filter(channel_name=channel_name)
    if stale_before is not None:
        rows = rows.filter(seen_at__lt=stale_before)
    with transaction.atomic():
        row = rows.first()
        if row is None:
            return
        table_id, user_id = row.table_id, row.user_id
        seat = _seated(table_id, user_id)
        if seat is None:
            if rows.filter(pk=row.pk).delete()[0]:
                transaction.on_commit(lambda: watchers_changed(table_id))
            return
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        # (The delete checks the row again: a refresh that came first keeps it.)
        if not rows.filter(pk=row.pk).delete()[0]:
            return
        if table is None or Presence.objects.filter(table_id=table_id, user_id=user_id).exists():
            return  # another tab is still open
        game = _playing_game(table_id)
        if _seat_in(game, user_id) is not None:
            assert game is not None
            _away(table, game, seat, on_purpose=on_purpose)
            return
        _record(table, public=[{"type": "online", "seat": seat, "online": False}], lobby=False)


def _away(table: Table, game: Game, seat: int, *, on_purpose: bool) -> None:
    """A player's last socket closed during the game: hold the seat for the grace."""
    from tables.services import _record

    now = timezone.now()
    until = now + grace_for(on_purpose=on_purpose)
    held = Seat.objects.filter(table_id=table.pk, number=seat, away_since__isnull=True).update(
        away_since=now, grace_until=until, left_on_purpose=on_purpose
    )
    if not held:
        return
    _record(
        table,
        public=[
            {
                "type": "away",
                "seat": seat,
                "on_purpose": on_purpose,
                "grace_until": int(until.timestamp() * 1000),
            }
        ],
        lobby=False,
    )
    by_itself = table.on_leave == Table.OnLeave.FORFEIT and table.players > 2
    everyone_away = not Seat.objects.filter(
        table_id=table.pk, user__isnull=False, away_since__isnull=True
    ).exists()
    if not by_itself and not everyone_away and not _house_players(game):
        return  # nothing happens by itself when the grace ends: no timer needed
    table_id, game_id = table.pk, game.pk

    def queue() -> None:
        from tables.tasks import grace_expire

        try:
            grace_expire.apply_async((table_id, seat, game_id), eta=until)
        except Exception:  # the sweep catches up
            log.exception("table %s: could not queue the grace timer", table_id)

    transaction.on_commit(queue)


def presence_sweep(*, now: datetime | None = None) -> int:
    """Sockets not seen for a while are gone (a server that died keeps no seat): returns how
    many rows were dropped."""
    cutoff = _fresh(now)
    stale = list(Presence.objects.filter(seen_at__lt=cutoff).values_list("channel_name", flat=True))
    for channel_name in stale:
        presence_leave(channel_name=channel_name, on_purpose=False, stale_before=cutoff)
    PRESENCE_SWEPT.inc(len(stale))
    return len(stale)


def watchers(table_id: int, players: set[int] | None = None) -> int:
    """People watching: fresh sockets of users who do not play this table's live game.
    `players`: the live game's players and the seated users, when the caller has them."""
    if players is None:
        game = Game.objects.filter(
            table_id=table_id, status__in=[Game.Status.WAITING, Game.Status.PLAYING]
        ).first()
        players = game_players(game)
        players |= set(
            Seat.objects.filter(table_id=table_id, user__isnull=False).values_list(
                "user_id", flat=True
            )
        )
    return (
        Presence.objects.filter(table_id=table_id, seen_at__gte=_fresh())
        .exclude(user_id__in=players)
        .values("user_id")
        .distinct()
        .count()
    )


def game_players(game: Game | None) -> set[int]:
    """The users playing `game` while it is live (none once it is over)."""
    if game is None or game.status not in (Game.Status.WAITING, Game.Status.PLAYING):
        return set()
    return {p for p in game.players if p is not None}


def online_users(table_id: int) -> set[int]:
    """Users with a socket open at the table (a stale one counts until the sweep drops it, and
    that is an event): what the picture shows, changed only by events."""
    return set(Presence.objects.filter(table_id=table_id).values_list("user_id", flat=True))


#: A table's watcher count is sent at most this often: each watcher arriving or leaving would
#: otherwise send a count to everyone at the table and in the lobby (a thousand spectators
#: arriving at a final: a million frames, crowding out the moves).
WATCHERS_EVERY_SECONDS = 1.0
_watchers_sent: dict[int, float] = {}
_watchers_due: set[int] = set()
_watchers_lock = threading.Lock()
_watchers_sending: set[asyncio.Task[None]] = set()
#: The lobby hears watcher counts from each process at most this often, every table whose count
#: changed meanwhile in one message: a count sent to the lobby for each table as it changes
#: would send every lobby socket a frame per table (thousands of watchers arriving at once: ten
#: million frames, and the lobby hears of a new table half a minute late).
LOBBY_WATCHERS_EVERY_SECONDS = 1.0
#: The counts kept for the lobby's next message (a send is due while any is kept).
_lobby_counts: dict[int, int] = {}


def watchers_changed(table_id: int) -> None:
    """The number watching a table changed: tell the table and the lobby, at once if nothing
    was sent for it in the last WATCHERS_EVERY_SECONDS, else once at the end of that second
    (in a daphne: the latest count, read then; elsewhere, at once). Not an event: nothing to
    replay, and the answer to `hello` carries the count."""
    loop = outer_loop()
    now = time.monotonic()
    with _watchers_lock:
        last = _watchers_sent.get(table_id, 0.0)
        wait = last + WATCHERS_EVERY_SECONDS - now
        if loop is not None and wait > 0:
            if table_id not in _watchers_due:
                _watchers_due.add(table_id)
                loop.call_soon_threadsafe(loop.call_later, wait, _send_later, table_id)
            return
        _watchers_sent[table_id] = now
        if len(_watchers_sent) > 4096:  # forget the oldest tables
            for old in sorted(_watchers_sent, key=_watchers_sent.__getitem__)[:2048]:
                _watchers_sent.pop(old, None)
    _send_watchers(table_id)


def _send_later(table_id: int) -> None:
    """On the daphne's loop: the count deferred for `table_id`, read and sent now."""
    with _watchers_lock:
        _watchers_due.discard(table_id)
        _watchers_sent[table_id] = time.monotonic()

    async def send() -> None:
        try:
            await db_hop.run(_send_watchers, table_id)
        except Exception:  # a count is only a hint; the next one or a hello corrects it
            log.exception("table %s: could not send the watcher count", table_id)

    task = asyncio.ensure_future(send())
    _watchers_sending.add(task)
    task.add_done_callback(_watchers_sending.discard)


def _send_watchers(table_id: int) -> None:
    table = Table.objects.filter(pk=table_id).only("private", "settings").first()
    if table is None:
        return
    n = watchers(table_id)
    outgoing: list[tuple[str, dict[str, Any]]] = [
        (group, {"type": "table.watchers", "watchers": n})
        for group in broadcast.all_groups(table_id, table.players)
    ]
    group_send_many(outgoing)
    if not table.private:
        _lobby_watchers(table_id, n)


def _lobby_watchers(table_id: int, n: int) -> None:
    """A public table's new watcher count, for the lobby: in a daphne, kept and sent with every
    other table's within LOBBY_WATCHERS_EVERY_SECONDS; elsewhere (a Celery task), at once."""
    loop = outer_loop()
    if loop is None:
        group_send_many([(broadcast.LOBBY_GROUP, _lobby_message({table_id: n}))])
        return
    with _watchers_lock:
        due = bool(_lobby_counts)
        _lobby_counts[table_id] = n
    if not due:  # (from the database thread, when the work is not inline: hence threadsafe)
        loop.call_soon_threadsafe(loop.call_later, LOBBY_WATCHERS_EVERY_SECONDS, _send_lobby, loop)


def _send_lobby(loop: asyncio.AbstractEventLoop) -> None:
    """On the daphne's loop: every count kept for the lobby, in one message."""
    with _watchers_lock:
        counts = dict(_lobby_counts)
        _lobby_counts.clear()
    if counts:
        group_send_many_on(loop, [(broadcast.LOBBY_GROUP, _lobby_message(counts))])


def forget_lobby_counts() -> None:
    """Tests: a fresh process (a test's event loop may end before its send was due)."""
    with _watchers_lock:
        _lobby_counts.clear()


def _lobby_message(counts: dict[int, int]) -> dict[str, Any]:
    return {"type": "lobby.watchers", "tables": {str(t): n for t, n in counts.items()}}


# --- when the grace runs out ------------------------------------------------------------------


def grace_expire(
    *, table_id: int, seat: int, game_id: int | None, now: datetime | None = None
) -> str:
    """The grace of `seat` ran out (if it is still away): one on one the other player may now
    claim the game; otherwise the table's rule: wait, or the leaver forfeits. Idempotent: the
    game ends once (a compare-and-set on its version), and a player who came back is not due."""
    now = now or timezone.now()
    with transaction.atomic():
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        game = _playing_game(table_id)
        if table is None or game is None or (game_id is not None and game.pk != game_id):
            return "gone"
        held = Seat.objects.filter(
            table_id=table_id, number=seat, away_since__isnull=False, grace_until__lte=now
        ).first()
        if held is None:
            return "not_due"
        leaver = _left_to_the_house(game, now)
        if leaver is not None:
            _abandon(game, leaver, counted=False)
            return "claimed_by_house"
        leaver = _left_by_everyone(game, now)
        if leaver is not None:
            _abandon(game, leaver)
            return "left_by_everyone"
        if table.players == 2:
            # Clients see the countdown end and offer the claim; game_claim checks it.
            return "claimable"
        if table.on_leave == Table.OnLeave.FORFEIT:
            _abandon(game, seat)
            return "forfeited"
        return "waiting"


def grace_sweep(*, now: datetime | None = None) -> int:
    """The beat job: stale sockets dropped, and every seat whose grace ran out dealt with (for a
    timer that was lost): at tables that forfeit leavers, at tables with house players (a game
    left to them alone), and at tables where no person is there any more (a game every person
    left). Returns how many games ended."""
    now = now or timezone.now()
    presence_sweep(now=now)
    with_house = Seat.objects.filter(table=OuterRef("table")).exclude(user__house_level="")
    person_there = Seat.objects.filter(
        table=OuterRef("table"), user__isnull=False, user__house_level="", away_since__isnull=True
    )
    due = (
        Seat.objects.filter(
            away_since__isnull=False, grace_until__lte=now, table__status=Table.Status.PLAYING
        )
        .filter(
            Q(table__on_leave=Table.OnLeave.FORFEIT) | Exists(with_house) | ~Exists(person_there)
        )
        .values_list("table_id", "number")
    )
    ended = ("forfeited", "claimed_by_house", "left_by_everyone")
    return sum(grace_expire(table_id=t, seat=n, game_id=None, now=now) in ended for t, n in due)


def _house_players(game: Game) -> set[int]:
    """The house players (bots) among the game's players."""
    ids = [p for p in game.players if p is not None]
    return set(User.objects.filter(pk__in=ids).exclude(house_level="").values_list("pk", flat=True))


def _left_to_the_house(game: Game, now: datetime) -> int | None:
    """When only house players are left at a game with some (every person away, their grace
    run out), the seat of the person who left first: the house claims the game from them.
    Otherwise None (a person is still there, or may still come back in their grace)."""
    house = _house_players(game)
    if not house:
        return None
    people = {n for n, p in enumerate(game.players) if p is not None and p not in house}
    return _first_to_leave(game, people, now)


def _left_by_everyone(game: Game, now: datetime) -> int | None:
    """When every person at a game without house players is away and past their grace (one
    on one: both players left, so nobody is there to claim it; a table that waits for leavers:
    nobody is left to wait), the seat of the person who left first: they lose the game, as if
    the others had claimed it. Otherwise None (someone is there, or may still come back)."""
    if _house_players(game):
        return None
    return _first_to_leave(game, {n for n, p in enumerate(game.players) if p is not None}, now)


def _first_to_leave(game: Game, people: set[int], now: datetime) -> int | None:
    """The seat among `people` (seat numbers) that left first, when every one of them is away
    and past their grace (ties: the lower seat); None if any is there or may come back."""
    if not people:
        return None
    held = dict(
        Seat.objects.filter(
            table_id=game.table_id,
            number__in=people,
            away_since__isnull=False,
            grace_until__lte=now,
        ).values_list("number", "away_since")
    )
    if set(held) != people:
        return None
    return min(held, key=lambda n: (held[n], n))


def game_claim(*, table_id: int, user: Any) -> None:
    """One on one: the other player's grace ran out and they are still away; the game is yours."""
    from tables.services import TableError, playing_game_locked

    with transaction.atomic():
        game = playing_game_locked(table_id)
        mine = _seat_in(game, user.pk)
        if mine is None:
            raise TableError("not_seated", _("Only the players at this table can do that."))
        if game.table.players != 2:
            raise TableError(
                "not_claimable", _("Only a one-on-one game can be claimed; this table decides.")
            )
        other = 1 - mine
        held = Seat.objects.filter(
            table_id=table_id,
            number=other,
            away_since__isnull=False,
            grace_until__lte=timezone.now(),
        ).exists()
        if not held:
            raise TableError(
                "not_claimable", _("Your opponent's seat is still held for them: wait a little.")
            )
        _abandon(game, other)


def _abandon(game: Game, seat: int, *, counted: bool = True) -> None:
    """End the game: `seat` left it. Inside the caller's transaction. `counted`: the leaver's
    `Abandonment` is recorded (not when the game was left to house players alone)."""
    from tables.services import _commit_action

    state = GameState.from_json(game.state)
    try:
        events = state.abandon(seat)
    except ActionError:
        log.exception("game %s: could not end it for seat %s leaving", game.pk, seat)
        return
    _commit_action(
        game, state, seat, "abandon", {"type": "abandon", "seat": seat}, events, by_player=False
    )
    if counted:
        Abandonment.objects.get_or_create(user_id=game.players[seat], game=game)
    Seat.objects.filter(table_id=game.table_id).update(
        away_since=None, grace_until=None, left_on_purpose=False
    )


# --- waiting after repeated abandonments --------------------------------------------------------


def sit_again_at(user: Any, now: datetime | None = None) -> tuple[datetime, int] | None:
    """When a player who abandoned games lately may sit again, and how many they left: the
    first costs nothing, then 5 minutes, doubling with each one (counted over 7 days)."""
    now = now or timezone.now()
    recent = list(
        Abandonment.objects.filter(user=user, created_at__gte=now - ABANDON_WINDOW).values_list(
            "created_at", flat=True
        )
    )
    if len(recent) < 2:
        return None
    wait = ABANDON_FIRST_WAIT * 2 ** (len(recent) - 2)
    until = max(recent) + wait
    return (until, len(recent)) if until > now else None


def waiting_message(until: datetime, count: int, now: datetime | None = None) -> str:
    minutes = max(1, round(((until - (now or timezone.now())).total_seconds()) / 60))
    return ngettext(
        "You left %(count)d games unfinished in the last 7 days: you can sit again in %(minutes)d "
        "minute.",
        "You left %(count)d games unfinished in the last 7 days: you can sit again in %(minutes)d "
        "minutes.",
        minutes,
    ) % {"count": count, "minutes": minutes}
