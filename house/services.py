"""House players: their accounts, seating them, practice tables, and their moves.

A house player is an account like any other (`accounts.User` with a `house_level`), so it sits,
is ready and moves through `tables.services` exactly as a person does. Its accounts are made on
demand, adults verified by the house so they pass `ensure_may_play`, with an unusable password
and an address that cannot receive mail, so nobody can ever log in as one. Their names end in
"(house)", which a person's display name cannot contain: a house player is never passed off as a
person.

After a game its house players offer the rematch at once (`house_rematch_accept`), so a person
who presses "rematch" starts the next game.

Its moves: when the turn passes to a house player (tables.signals.turn_changed, after commit),
`house_turn_queue` queues `house.tasks.house_act` for that game version with a short, human
pace; the task calls `house_turn`, which decides from the seat's view alone (engine.bots) and
acts through `tables.services.game_act`. Idempotent: a task for a version the game has left
does nothing. A bot that fails falls back to a legal action (logged), and `house_sweep` (beat,
every 5 s) plays any house turn whose task was lost, so a house player never holds up a table.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
import threading
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import AgeStatus, HouseLevel, User
from accounts.services import ensure_may_play
from engine import GameState
from engine.bots import any_legal_action, decide
from tables import selectors
from tables import services as tables
from tables.models import Game, GameAction, Seat, Table

log = logging.getLogger(__name__)

LEVELS = tuple(HouseLevel.values)

#: First names per level; a table seats at most three house players, so four per level do.
ROSTER = {
    HouseLevel.ROOKIE: ("Rita", "Ray", "Rosa", "Rudy"),
    HouseLevel.REGULAR: ("Reggie", "Rhonda", "Rex", "Ruth"),
    HouseLevel.SHARK: ("Sam", "Sally", "Sid", "Stella"),
}
#: `.invalid` can never receive mail (RFC 2606), so no password reset can reach these accounts.
EMAIL_DOMAIN = "house.invalid"
BIRTH_DATE = dt.date(1990, 1, 1)
#: A house turn left this long (or three paces, if longer) is played by the sweep.
SWEEP_AFTER_SECONDS = 3.0


def house_name(level: str, first: str) -> str:
    """A house player's display name, e.g. "Shark Sam (house)"."""
    return f"{level.title()} {first} (house)"


def house_players_among(user_ids: tuple[int | None, ...]) -> frozenset[int]:
    """Which of these accounts are house players (one query)."""
    ids = [i for i in user_ids if i is not None]
    return frozenset(
        User.objects.filter(pk__in=ids).exclude(house_level="").values_list("pk", flat=True)
    )


def _check_level(level: object) -> str:
    if level not in LEVELS:
        raise tables.TableError(
            "bad_field", _("Choose a house player level: Rookie, Regular or Shark."), field="level"
        )
    assert isinstance(level, str)
    return level


def _house_account(level: str, first: str) -> User:
    email = f"{level}-{first.lower()}@{EMAIL_DOMAIN}"
    user = User.objects.filter(email=email).first()
    if user is not None:
        return user
    try:
        with transaction.atomic():
            return User.objects.create_user(
                email,
                None,  # an unusable password: nobody logs in as a house player
                display_name=house_name(level, first),
                date_of_birth=BIRTH_DATE,
                age_status=AgeStatus.VERIFIED,
                age_status_changed_at=timezone.now(),
                house_level=level,
            )
    except IntegrityError:  # made at the same moment by another request
        return User.objects.get(email=email)


def house_player_get(*, level: str, not_at_table: int | None = None) -> User:
    """A house account of `level` that does not sit at that table, made on demand."""
    level = _check_level(level)
    seated: set[int] = set()
    if not_at_table is not None:
        seated = set(
            Seat.objects.filter(table_id=not_at_table)
            .exclude(user=None)
            .values_list("user_id", flat=True)
        )
    for first in ROSTER[HouseLevel(level)]:
        user = _house_account(level, first)
        if user.pk not in seated:
            return user
    raise tables.TableError(
        "no_house_player", _("No house player of that level is free for this table.")
    )


def _hosted_table(table_id: int, host: Any) -> Table:
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None:
        raise tables.TableError("no_table", _("There is no such table."))
    if table.host_id != host.pk:
        raise tables.TableError("not_host", _("Only the host can seat or remove house players."))
    return table


def house_seat_add(*, table_id: int, host: Any, number: int, level: str) -> Table:
    """The host seats a house player of `level` in empty seat `number`; it is ready at once (and
    when that makes every seat ready, the game starts)."""
    level = _check_level(level)
    with transaction.atomic():
        table = _hosted_table(table_id, host)
        bot = house_player_get(level=level, not_at_table=table.pk)
        tables.seat_take(table_id=table.pk, user=bot, number=number)
        tables.seat_ready(table_id=table.pk, user=bot, ready=True)
    table.refresh_from_db()
    return table


def house_seat_remove(*, table_id: int, host: Any, number: int) -> Table:
    """The host frees a seat a house player holds, before the game starts."""
    with transaction.atomic():
        table = _hosted_table(table_id, host)
        seat = table.seats.select_related("user").filter(number=number).first()
        if seat is None or seat.user is None or not seat.user.house_level:
            raise tables.TableError("not_house_player", _("No house player sits in that seat."))
        tables.seat_leave(table_id=table.pk, user=seat.user)
    table.refresh_from_db()
    return table


def practice_start(
    *,
    user: Any,
    mode: str,
    level: str,
    players: int = 2,
    partners: bool = False,
    **options: Any,
) -> Table:
    """A private table in `mode` with `user` in seat 0 and house players of `level` in every
    other seat, started at once; casual (`rated` false: a game against the house is never
    rated, and hints are given only at unrated tables). Raises SettingsError,
    AccountNotAllowed or TableError."""
    level = _check_level(level)
    ensure_may_play(user)
    if mode not in ("fives", "threes"):
        options.update(players=players, partners=partners)
    with transaction.atomic():
        table = tables.table_create(host=user, mode=mode, private=True, rated=False, **options)
        for number in range(1, table.players):
            house_seat_add(table_id=table.pk, host=user, number=number, level=level)
        tables.seat_ready(table_id=table.pk, user=user, ready=True)
    table.refresh_from_db()
    return table


# --- moves ------------------------------------------------------------------------------------

_inline = threading.local()


def house_turn_queue(*, game_id: int, version: int) -> None:
    """Queue the house player's move at this game version, at the house's pace. Called after
    commit. When tasks run inline (tests), moves run one after another, never inside each other,
    however many house players follow in a row."""
    from house.tasks import house_act

    if not current_app.conf.task_always_eager:
        house_act.apply_async((game_id, version), countdown=settings.HOUSE_PLAYER_PACE_SECONDS)
        return
    pending: list[tuple[int, int]] | None = getattr(_inline, "pending", None)
    if pending is not None:
        pending.append((game_id, version))
        return
    _inline.pending = pending = [(game_id, version)]
    try:
        while pending:
            house_act.apply(pending.pop(0))
    finally:
        _inline.pending = None


def house_turn(*, game_id: int, version: int) -> bool:
    """The house player to act at `version` of the game moves, through `game_act`. Returns
    whether it moved; does nothing when the game has moved on, is over, or a person is to act."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != Game.Status.PLAYING or game.version != version:
        return False
    state = GameState.from_json(game.state)
    seat = state.to_act
    if seat is None:
        return False
    bot = User.objects.filter(pk=game.players[seat]).exclude(house_level="").first()
    if bot is None:
        return False
    view = selectors.game_view(game, seat, state)
    assert view is not None
    rng = random.Random()
    try:
        action = decide(view, bot.house_level, rng=rng)
    except Exception:
        log.exception(
            "house player %s failed to decide at game %s v%s; making a random legal move",
            bot.display_name,
            game_id,
            version,
        )
        action = any_legal_action(view, rng)
    move = {k: v for k, v in action.to_dict().items() if k != "seat"}
    try:
        tables.game_act(table_id=game.table_id, user=bot, version=version, action=move)
    except tables.StaleVersion:
        return False  # the game moved on (a clock's dumbbell): its new turn is announced anew
    except tables.TableError as exc:
        log.error(
            "house player %s: %s refused at game %s v%s (%s); making a random legal move",
            bot.display_name,
            move,
            game_id,
            version,
            exc.code,
        )
        fallback = any_legal_action(view, rng).to_dict()
        fallback.pop("seat", None)
        try:
            tables.game_act(table_id=game.table_id, user=bot, version=version, action=fallback)
        except tables.TableError as again:
            log.error("house player %s: fallback refused too (%s)", bot.display_name, again.code)
            return False
    return True


def house_rematch_queue(*, game_id: int) -> None:
    """After commit, when nobody is to act at a game with house players: if it is over, they
    offer the rematch, at the house's pace (inline under eager tasks)."""
    from house.tasks import house_rematch

    if current_app.conf.task_always_eager:
        house_rematch.apply((game_id,))
    else:
        house_rematch.apply_async((game_id,), countdown=settings.HOUSE_PLAYER_PACE_SECONDS)


def house_rematch_accept(*, game_id: int) -> int:
    """The house players of this finished game want a rematch: a person who offers one (or has
    offered it already) gets it at once, since the last "yes" starts the next game. Does nothing
    unless the game is over and still its table's last; returns how many house players offered.
    A refusal (a tournament's table, a stake a house player cannot cover) is logged, not raised:
    the person is simply not given a rematch."""
    game = Game.objects.select_related("table").filter(pk=game_id).first()
    if game is None or game.status != Game.Status.FINISHED:
        return 0
    if game.table.status != Table.Status.FINISHED:
        return 0
    if game.table.games.filter(number__gt=game.number).exists():
        return 0
    ids = [p for p in game.players if p is not None]
    bots = {u.pk: u for u in User.objects.filter(pk__in=ids).exclude(house_level="")}
    offered = 0
    for player in game.players:
        bot = bots.get(player)
        if bot is None:
            continue
        try:
            tables.rematch_offer(table_id=game.table_id, user=bot, want=True)
        except tables.TableError as exc:
            log.info("house player %s: no rematch at table %s (%s)", bot, game.table_id, exc.code)
            continue
        offered += 1
    return offered


def house_sweep(*, now: dt.datetime | None = None) -> int:
    """Play every house turn that has waited longer than it should (its task was lost, or the
    game moved on under it without a new one); return how many moved."""
    house_ids = set(User.objects.exclude(house_level="").values_list("pk", flat=True))
    if not house_ids:
        return 0
    wait = max(SWEEP_AFTER_SECONDS, 3 * settings.HOUSE_PLAYER_PACE_SECONDS)
    before = (now or timezone.now()) - dt.timedelta(seconds=wait)
    moved = 0
    games = Game.objects.filter(status=Game.Status.PLAYING).only(
        "id", "players", "version", "state", "started_at"
    )
    for game in games.iterator(chunk_size=200):
        if not house_ids.intersection(p for p in game.players if p is not None):
            continue
        to_act = GameState.from_json(game.state).to_act
        if to_act is None or game.players[to_act] not in house_ids:
            continue
        last = (
            GameAction.objects.filter(game=game)
            .order_by("-version")
            .values_list("created_at", flat=True)
            .first()
        ) or game.started_at
        if last > before:
            continue
        if house_turn(game_id=game.pk, version=game.version):
            moved += 1
    return moved


# --- practice games nobody comes to ------------------------------------------------------------


def practice_unopened_sweep(*, now: dt.datetime | None = None) -> int:
    """The beat job: call off every practice game whose player never came to it.

    A practice table starts its game at once; if its player never opens the table (or leaves
    before their first move and does not come back), the house players wait for them forever.
    After PRACTICE_UNOPENED_MINUTES (30 by default) from the table's start, a practice game in
    which its player has made no move and has no socket at the table is called off without a
    result (a practice game is played for nothing: there is nothing to refund or rate), and
    the table leaves their games in progress. Returns how many were called off."""
    from django.db.models import Exists, OuterRef

    from tables.models import Presence

    now = now or timezone.now()
    cutoff = now - dt.timedelta(minutes=settings.PRACTICE_UNOPENED_MINUTES)
    people = Seat.objects.filter(table=OuterRef("pk"), user__house_level="").exclude(
        user_id=OuterRef("host_id")
    )
    house_seats = Seat.objects.filter(table=OuterRef("pk")).exclude(user__house_level="")
    candidates = (
        Table.objects.filter(status=Table.Status.PLAYING, private=True, created_at__lte=cutoff)
        .filter(Exists(house_seats))
        .exclude(Exists(people))
        .exclude(Exists(Presence.objects.filter(table=OuterRef("pk"), user=OuterRef("host_id"))))
        .values_list("pk", "host_id")
    )
    ended = 0
    for table_id, host_id in list(candidates[:200]):
        game = Game.objects.filter(table_id=table_id, status=Game.Status.PLAYING).first()
        if game is None or host_id not in game.players:
            continue
        seat = game.players.index(host_id)
        if GameAction.objects.filter(game=game, seat=seat, by_server=False).exists():
            continue  # they played: theirs to finish or leave (the seat's grace handles that)
        if tables.game_call_off(table_id=table_id, reason="practice never opened"):
            ended += 1
            log.info("practice table %s: called off, its player never came", table_id)
    return ended
