"""Table services: the only code that writes tables, seats, games, hands and their events.

Every function is one short transaction. Game actions name the game version they were made
against and are applied with a compare-and-set on it; every visible change raises the table's
event number (`seq`) with a compare-and-set too, so two writers never both succeed on a stale
read. Broadcasts leave only after commit (tables.broadcast).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings as django_settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.services import AccountNotAllowed, ensure_may_play
from dominoes_site import user_sockets
from dominoes_site.metrics import GYM_CLOCK_LATENESS, MOVES
from engine import (
    ActionError,
    Event,
    GameState,
    Pass,
    Phase,
    SettingsError,
    TableSettings,
    Timeout,
    parse_action,
)
from engine.rules import CLOCK_RANGE
from tables import broadcast, selectors, signals, stakes, statements, warm
from tables.events import GameCalledOff, GameFinished, game_called_off, game_finished
from tables.fairdeal import commitment_of, is_entropy, new_seed, shuffled_set
from tables.models import Game, GameAction, Hand, Seat, Table, TableEvent

log = logging.getLogger(__name__)

#: How many automatic steps (forced passes, deals, redeals) may follow one action: a bound, so
#: that a bug can never spin forever inside a transaction.
MAX_AUTOMATIC_STEPS = 64


class TableError(Exception):
    """A refused table request: a stable `code` and words for the player. Nothing changed."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra


#: The engine explains refusals in English; players read them in their own language.
ENGINE_MESSAGES = {
    "not_your_turn": gettext_lazy("It is not your turn."),
    "bone_not_held": gettext_lazy("You don't hold that bone."),
    "unknown_bone": gettext_lazy("There is no such bone."),
    "wrong_lead": gettext_lazy("That bone can't lead this hand: the lead is forced."),
    "lead_has_no_end": gettext_lazy("The lead is not played on an end."),
    "wrong_end": gettext_lazy("That bone does not match that end."),
    "does_not_fit": gettext_lazy("That bone fits no open end."),
    "spinner_not_closed": gettext_lazy(
        "Up and down open only once both sides of the spinner are covered."
    ),
    "no_spinner": gettext_lazy("There is no spinner on this board, so no up or down."),
    "ambiguous_end": gettext_lazy("That bone fits more than one end: say which."),
    "must_play": gettext_lazy("You can play, so you must: no drawing or passing."),
    "must_draw": gettext_lazy("You can't play: draw from the yard."),
    "yard_empty": gettext_lazy("The yard is empty."),
    "no_such_position": gettext_lazy("There is no face-down bone there."),
    "must_choose": gettext_lazy("Choose first: play your doubles or reshuffle."),
    "no_choice": gettext_lazy("There is no doubles choice to make."),
    "no_clock": gettext_lazy("This turn has no clock."),
    "game_over": gettext_lazy("The game is over."),
    "awaiting_deal": gettext_lazy("The bones are being washed and dealt."),
}


def _engine_refusal(exc: ActionError) -> TableError:
    message = ENGINE_MESSAGES.get(exc.code)
    return TableError(exc.code, str(message) if message is not None else exc.message)


class StaleVersion(TableError):
    def __init__(self, current: int) -> None:
        super().__init__(
            "stale",
            _("The game moved on before your move arrived; here is where it stands now."),
            version=current,
        )


# --- creating tables --------------------------------------------------------------------------


def table_create(
    *,
    host: Any,
    mode: str,
    private: bool = False,
    on_leave: str = "wait",
    stake: Any = None,
    rated: bool = True,
    clock_halving: bool = False,
    **options: Any,
) -> Table:
    """A new table with the mode's defaults and `options` (validated by the engine).

    The host takes seat 0. `on_leave` (Cut Throat and Partners): "wait" or "forfeit" when a
    player's grace runs out. `stake` is what the table is played for, as the stake keeper's
    form made it (tables/stakes.py; the ledger's StakeSpec), None: nothing. `rated`: False for a
    casual table, whose games never change a rating (docs/ratings.md). `clock_halving`: its
    players may halve their own clock from the table (`seat_clock_halve_asked`; an arena's
    berserk). Raises SettingsError
    (naming the setting), AccountNotAllowed, or stakes.StakeRefused (a refused stake, or a host
    who cannot cover it).
    """
    ensure_may_play(host)
    settings = TableSettings.build(mode, **options)
    if on_leave not in Table.OnLeave.values:
        raise SettingsError("on_leave", f"on_leave is wait or forfeit, not {on_leave!r}")
    with transaction.atomic():
        table = Table.objects.create(
            mode=settings.mode.value,
            settings=settings.to_dict(),
            host=host,
            private=private,
            on_leave=on_leave,
            rated=rated,
            clock_halving=clock_halving,
        )
        Seat.objects.bulk_create(
            Seat(
                table=table,
                number=n,
                user=host if n == 0 else None,
                joined_at=timezone.now() if n == 0 else None,
            )
            for n in range(settings.players)
        )
        game = Game.objects.create(
            table=table,
            number=1,
            status=Game.Status.WAITING,
            state=GameState.new(settings).to_json(),
            players=[None] * settings.players,
        )
        _new_hand(game, 1)
        stakes.keeper().stake_set(table=table, spec=stake)  # the stake, covered by the host
        _record(table, public=[{"type": "table_created"}])
    return table


def _new_hand(game: Game, number: int) -> Hand:
    seed = new_seed()
    return Hand.objects.create(
        game=game, number=number, server_seed=seed, commitment=commitment_of(seed)
    )


# --- seats ------------------------------------------------------------------------------------


def _open_table(table_id: int) -> Table:
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None:
        raise TableError("no_table", _("There is no such table."))
    return table


def _ensure_may_sit(user: Any) -> None:
    """Only adults with an active account sit (the age gate's door for tables), and not while
    made to wait for leaving games unfinished."""
    from tables.presence import sit_again_at, waiting_message

    try:
        ensure_may_play(user)
    except AccountNotAllowed as exc:
        raise TableError("not_allowed", exc.message) from exc
    waiting = sit_again_at(user)
    if waiting is not None:
        until, count = waiting
        raise TableError(
            "must_wait",
            waiting_message(until, count),
            until=int(until.timestamp() * 1000),
        )


def _waiting_game(table: Table) -> Game:
    game = table.games.filter(status=Game.Status.WAITING).first()
    if game is None:
        raise TableError("game_started", _("Seats can't change once the game has started."))
    return game


#: Apps that run tables themselves (tournaments) check every seat change here: a guard takes
#: (table id, user id, seat number or None, "take" | "leave" | "remove" | "abort" | "rematch")
#: and returns why the change is refused, or None. Registered in the app's ready().
SEAT_GUARDS: list[Callable[[int, int, int | None, str], str | None]] = []


def _check_seat_guards(table_id: int, user_id: int, number: int | None, change: str) -> None:
    for guard in SEAT_GUARDS:
        refusal = guard(table_id, user_id, number, change)
        if refusal is not None:
            raise TableError("seats_fixed", refusal)


def seat_take(*, table_id: int, user: Any, number: int) -> Table:
    """Sit `user` in seat `number` (moving them if they already sit elsewhere at this table)."""
    _ensure_may_sit(user)
    with transaction.atomic():
        table = _open_table(table_id)
        _waiting_game(table)
        seats = {s.number: s for s in table.seats.select_related("user")}
        seat = seats.get(number)
        if seat is None:
            raise TableError("no_such_seat", _("This table has no such seat."))
        if seat.user_id == user.pk:
            return table
        if seat.user_id is not None:
            raise TableError("seat_taken", _("That seat is taken."))
        _check_seat_guards(table.pk, user.pk, number, "take")
        _ensure_covers_stake(table, user)
        events: list[dict[str, Any]] = []
        for other in seats.values():
            if other.user_id == user.pk:
                Seat.objects.filter(pk=other.pk).update(user=None, ready=False, joined_at=None)
                events.append({"type": "seat_left", "seat": other.number})
        try:
            with transaction.atomic():
                Seat.objects.filter(pk=seat.pk).update(
                    user=user, ready=False, joined_at=timezone.now()
                )
        except IntegrityError as exc:
            raise TableError("seat_taken", _("That seat is taken.")) from exc
        events.append({"type": "seat_taken", "seat": number, "player": selectors.player_of(user)})
        _record(table, public=events)
    return table


def seat_leave(*, table_id: int, user: Any) -> Table:
    """Leave one's seat, before the game starts. Someone with no seat is told so first (a
    watcher has no seat to leave, whether or not the game has started)."""
    with transaction.atomic():
        table = _open_table(table_id)
        seat = table.seats.filter(user=user).first()
        if seat is None:
            raise TableError("not_seated", _("You don't have a seat at this table."))
        _waiting_game(table)
        _check_seat_guards(table.pk, user.pk, seat.number, "leave")
        Seat.objects.filter(pk=seat.pk).update(user=None, ready=False, joined_at=None)
        _record(table, public=[{"type": "seat_left", "seat": seat.number}])
    return table


def seat_remove(*, table_id: int, host: Any, number: int) -> Table:
    """The host removes a player before the game starts: one who has not pressed ready, or one
    who is ready but could not start the game now (`_unfit_to_start`: no longer covers the
    stake, or may not play at the moment), who would otherwise hold the table up for good. The
    `removed` event then says which (`reason`), never why an account may not play."""
    with transaction.atomic():
        table = _open_table(table_id)
        if table.host_id != host.pk:
            raise TableError("not_host", _("Only the host can remove a player."))
        _waiting_game(table)
        seat = table.seats.select_related("user").filter(number=number).first()
        if seat is None or seat.user_id is None:
            raise TableError("no_such_seat", _("Nobody sits in that seat."))
        if seat.user_id == host.pk:
            raise TableError("bad_field", _("Use 'Leave seat' to leave your own seat."))
        reason = _unfit_to_start(table, seat.user) if seat.ready else None
        if seat.ready and reason is None:
            raise TableError(
                "player_ready",
                _("You can't remove a player who is ready and can play: wait for the others."),
            )
        _check_seat_guards(table.pk, seat.user_id, number, "remove")
        Seat.objects.filter(pk=seat.pk).update(user=None, ready=False, joined_at=None)
        event: dict[str, Any] = {"type": "removed", "seat": number}
        if reason is not None:
            event["reason"] = reason
        _record(table, public=[event])
    return table


def _unfit_to_start(table: Table, user: Any) -> str | None:
    """Why a seated player could not start a game at this table now, or None: `cannot_cover`
    (no longer holds what the stake needs) or `cannot_play` (may not play at the moment)."""
    try:
        _ensure_may_sit(user)
    except TableError:
        return "cannot_play"
    try:
        _ensure_covers_stake(table, user)
    except TableError as exc:
        if exc.code == "cannot_cover":
            return "cannot_cover"
        raise
    return None


def seat_ready(*, table_id: int, user: Any, ready: bool) -> Table:
    """Press (or release) ready. When every seat is taken and ready, the game starts."""
    _ensure_may_sit(user)
    with transaction.atomic():
        table = _open_table(table_id)
        seats = list(table.seats.order_by("number"))
        mine = next((s for s in seats if s.user_id == user.pk), None)
        if mine is None:  # before "game_started": someone watching a game has no seat to ready
            raise TableError("not_seated", _("Take a seat first."))
        game = _waiting_game(table)
        if mine.ready == ready:
            return table
        Seat.objects.filter(pk=mine.pk).update(ready=ready)
        mine.ready = ready
        events: list[dict[str, Any]] = [{"type": "ready", "seat": mine.number, "ready": ready}]
        engine_events: list[Event] = []
        if all(s.user_id is not None and s.ready for s in seats):
            events.append({"type": "game_started", "game": game.number})
            engine_events = _start_game(table, game, seats, user)
        _record(table, public=events, engine_events=engine_events)
    return table


def _start_game(table: Table, game: Game, seats: list[Seat], by: Any) -> list[Event]:
    """Every seat is taken and ready (the last by `by`): check the players once more, hold the
    stakes, deal."""
    for seat in seats:
        _ensure_fit_to_start(table, seat, by)
    state = GameState.from_json(game.state)
    engine_events, actions, _following = _automatic_steps(game, state, [])
    game.players = [s.user_id for s in seats]
    game.status = Game.Status.PLAYING
    game.state = state.to_json()
    game.version = len(actions)
    now = timezone.now()
    game.clock_starts_at, game.summary_seen = _summary_wait(game, state, engine_events, now)
    game.deadline = _turn_deadline(game, state, _clock_from(game, now), None)
    game.save(
        update_fields=[
            "players",
            "status",
            "state",
            "version",
            "deadline",
            "clock_starts_at",
            "summary_seen",
        ]
    )
    _save_actions(game, actions, first_version=1)
    _stake_call(stakes.keeper().game_stake_hold, game=game)  # stakes into the pot
    _clock_schedule(game)
    Table.objects.filter(pk=table.pk).update(status=Table.Status.PLAYING)
    table.status = Table.Status.PLAYING
    signals.announce_turn(game, state)  # house players (house/receivers.py)
    return engine_events


def _ensure_fit_to_start(table: Table, seat: Seat, by: Any) -> None:
    """A player who pressed ready must still be able to play and cover the stake when the game
    starts. Refused for another player, the error names the seat and says the host can remove
    them (`seat_remove`), without saying why an account may not play."""
    try:
        _ensure_may_sit(seat.user)
        _ensure_covers_stake(table, seat.user)
    except TableError as exc:
        if seat.user_id == by.pk:
            raise
        remedy = (
            _("You can remove them from their seat.")
            if table.host_id == by.pk
            else _("The host can remove them from their seat.")
        )
        if exc.code == "cannot_cover":
            message = _("%(why)s The game can't start until they can. %(remedy)s") % {
                "why": exc.message,
                "remedy": remedy,
            }
        else:
            message = _(
                "%(name)s can't play at the moment, so the game can't start. %(remedy)s"
            ) % {
                "name": seat.user.display_name,
                "remedy": remedy,
            }
        code = exc.code if exc.code == "cannot_cover" else "player_cannot_play"
        raise TableError(code, message, seat=seat.number) from exc


def game_abort(*, table_id: int, user: Any) -> Table:
    """A seated player ends a game that never got its first play: no result, for anyone."""
    with transaction.atomic():
        table = _open_table(table_id)
        game = (
            Game.objects.select_for_update().filter(table=table, status=Game.Status.PLAYING).first()
        )
        if game is None:
            raise TableError("no_game", _("There is no game in progress at this table."))
        seat = _seat_of(game, user)
        if seat is None:
            raise TableError("not_seated", _("Only the players at this table can do that."))
        _check_seat_guards(table.pk, user.pk, seat, "abort")
        if GameAction.objects.filter(game=game, kind="play").exists():
            raise TableError(
                "already_played", _("A bone has been played: the game can no longer be aborted.")
            )
        _abort(table, game)
        _game_aborted(game)
        _record(table, public=[{"type": "game_aborted", "seat": seat}])
    return table


def _abort(table: Table, game: Game) -> None:
    """End `game` with no result, inside the caller's transaction: the game and its table are
    aborted, no clock runs and no seat is held any more."""
    Game.objects.filter(pk=game.pk).update(
        status=Game.Status.ABORTED, deadline=None, finished_at=timezone.now()
    )
    game.status = Game.Status.ABORTED
    Table.objects.filter(pk=table.pk).update(status=Table.Status.ABORTED)
    table.status = Table.Status.ABORTED
    Seat.objects.filter(table=table).update(away_since=None, grace_until=None)


def _game_aborted(
    game: Game, *, why: str = "aborted before the first play", by: Any = None, voided: bool = False
) -> None:
    """What follows a game called off inside its transaction: `game_called_off`, whose
    subscriber gives every stake back, exactly (tables/events.py)."""
    game_called_off.send(GameCalledOff(game=game, why=why, by=by, voided=voided))


def rematch_offer(*, table_id: int, user: Any, want: bool = True) -> Table:
    """After a game, offer (or accept, or take back) a rematch. When every player wants one, a
    new game starts at the same table with the same settings and seats."""
    _ensure_may_sit(user)
    with transaction.atomic():
        table = _open_table(table_id)
        if table.status != Table.Status.FINISHED:
            raise TableError("no_rematch", _("A rematch is offered once a game has ended."))
        last = table.games.order_by("-number").first()
        assert last is not None
        seat = _seat_of(last, user)
        if seat is None:
            raise TableError("not_seated", _("Only the players of the last game can rematch."))
        _check_seat_guards(table.pk, user.pk, seat, "rematch")
        seats = list(table.seats.select_related("user").order_by("number"))
        mine = seats[seat]
        if mine.rematch == want:
            return table
        Seat.objects.filter(pk=mine.pk).update(rematch=want)
        mine.rematch = want
        events: list[dict[str, Any]] = [{"type": "rematch", "seat": seat, "want": want}]
        engine_events: list[Event] = []
        if all(s.rematch for s in seats):
            settings = TableSettings.from_dict(table.settings)
            game = Game.objects.create(
                table=table,
                number=last.number + 1,
                status=Game.Status.WAITING,
                state=GameState.new(settings).to_json(),
                players=[None] * settings.players,
            )
            _new_hand(game, 1)
            Seat.objects.filter(table=table).update(rematch=False)
            for s in seats:
                s.rematch = False
            events.append({"type": "game_started", "game": game.number})
            engine_events = _start_game(table, game, seats, user)
        _record(table, public=events, engine_events=engine_events)
    return table


# --- stakes (tables/stakes.py: the ledger keeps them), voiding ----------------------------------


def _stake_call(ask: Any, **kwargs: Any) -> Any:
    """Ask the stake keeper; its refusal becomes a table refusal with the same words."""
    try:
        return ask(**kwargs)
    except stakes.StakeRefused as exc:
        raise TableError(exc.code, exc.message) from exc


def _ensure_covers_stake(table: Table, user: Any) -> None:
    """To sit at a staked table a player must be able to cover what a game can cost them."""
    _stake_call(stakes.keeper().stake_check_cover, table=table, user=user)


def _ensure_staff_reason(by: Any, reason: str, refusal: str, ask: str) -> str:
    if not (getattr(by, "is_active", False) and getattr(by, "is_staff", False)):
        raise TableError("not_staff", refusal)
    reason = (reason or "").strip()
    if not reason:
        raise TableError("bad_field", ask, field="reason")
    return reason


def _live_game_refusal(game: Game) -> TableError:
    """Why staff cannot void `game`, a game that is no longer waiting or in play."""
    if game.status == Game.Status.FINISHED:
        if stakes.keeper().stakes_settled(game):
            return TableError(
                "settled",
                _(
                    "Game %(game)s is over and its stakes were settled: it can no longer be "
                    "voided. Correct it with an adjustment."
                )
                % {"game": game.pk},
            )
        return TableError(
            "game_over",
            _("Game %(game)s is over: only a game waiting or in play can be voided.")
            % {"game": game.pk},
        )
    return TableError(
        "already_aborted",
        _("Game %(game)s was already aborted or voided; its stakes were given back then.")
        % {"game": game.pk},
    )


def game_void(
    *, table_id: int | None = None, game_id: int | None = None, by: Any, reason: str
) -> Game:
    """Staff void a live game (waiting or playing): it is aborted and every stake held for it is
    refunded exactly (ledger key game:<id>:refund). `game_id` names the game itself (what admin
    selected); with `table_id` alone, the table's live game. A game that is over is refused: a
    rematch may have started a new game at its table, which is never voided in its place."""
    reason = _ensure_staff_reason(
        by, reason, _("Only staff void a game."), _("Say why the game is voided.")
    )
    if (table_id is None) == (game_id is None):
        raise TableError("bad_field", _("Name the game to void."), field="game")
    live = [Game.Status.WAITING, Game.Status.PLAYING]
    with transaction.atomic():
        # The game row first, then the table's: the order game_act takes them in.
        if game_id is not None:
            game = Game.objects.select_for_update().filter(pk=game_id).first()
            if game is None:
                raise TableError("no_game", _("There is no such game."))
            if game.status not in live:
                raise _live_game_refusal(game)
        else:
            game = (
                Game.objects.select_for_update().filter(table_id=table_id, status__in=live).first()
            )
            if game is None:
                raise TableError("no_game", _("There is no game in progress at this table."))
        table = _open_table(game.table_id)
        _abort(table, game)
        _game_aborted(game, why=reason, by=by, voided=True)
        _record(table, public=[{"type": "game_voided"}], game=game)
    log.info("game %s voided by %s: %s", game.pk, by.pk, reason)
    return game


def table_close(*, table_id: int, by: Any, reason: str) -> Game | None:
    """Staff close a stuck table: its live game, if any, is voided (every stake refunded), the
    table leaves the lobby for good (aborted: no seat changes, no rematch) and no seat is held.
    Returns the game voided, or None when none was live. A table already closed is refused."""
    reason = _ensure_staff_reason(
        by, reason, _("Only staff close a table."), _("Say why the table is closed.")
    )
    with transaction.atomic():
        game = (
            Game.objects.select_for_update()
            .filter(table_id=table_id, status__in=[Game.Status.WAITING, Game.Status.PLAYING])
            .first()
        )
        table = _open_table(table_id)
        events: list[dict[str, Any]] = []
        if game is not None:
            _abort(table, game)
            _game_aborted(game, why=reason, by=by, voided=True)
            events.append({"type": "game_voided"})
        elif table.status == Table.Status.ABORTED:
            raise TableError("table_closed", _("This table is already closed."))
        else:
            Table.objects.filter(pk=table.pk).update(status=Table.Status.ABORTED)
            table.status = Table.Status.ABORTED
            Seat.objects.filter(table=table).update(
                away_since=None, grace_until=None, rematch=False
            )
        events.append({"type": "table_closed"})
        _record(table, public=events, game=game)
    log.info("table %s closed by %s: %s", table_id, by.pk, reason)
    return game


# --- washing and dealing ----------------------------------------------------------------------


def hand_wash(*, table_id: int, user: Any, hand: int, entropy: object) -> bool:
    """Record this seat's contribution to the committed, not yet dealt, hand. First one counts."""
    if not is_entropy(entropy):
        raise TableError("bad_wash", _("A wash is 64 hexadecimal characters."), field="entropy")
    with transaction.atomic():
        game = (
            Game.objects.filter(
                table_id=table_id, status__in=[Game.Status.WAITING, Game.Status.PLAYING]
            )
            .only("id", "players", "status")
            .first()
        )
        if game is None:
            raise TableError("no_game", _("There is no game in progress."))
        seat = _seat_of(game, user)
        if seat is None:
            seat = (
                Seat.objects.filter(table_id=table_id, user=user)
                .values_list("number", flat=True)
                .first()
            )
        if seat is None:
            raise TableError("not_seated", _("Only players at the table wash."))
        pending = (
            Hand.objects.select_for_update().filter(game=game, number=hand, dealt_at=None).first()
        )
        if pending is None:
            raise TableError("bad_wash", _("That hand is not waiting for a wash."), field="hand")
        if str(seat) in pending.contributions:
            return False
        pending.contributions[str(seat)] = entropy
        pending.save(update_fields=["contributions"])
    return True


def _deal(
    game: Game, state: GameState, writes: statements.Writes | None = None
) -> tuple[list[Event], dict[str, Any]]:
    """Deal the game's next committed hand from its seed and the washers' contributions; the
    events, and the next hand's commitment as the table's picture shows it. `writes`: the
    action's gathered writes (statements.Writes), which the hands' join."""
    if writes is None:
        writes = statements.Writes(Hand)
        own = True
    else:
        writes.run()  # a second deal in one action reads what the first one wrote
        own = False
    hand = Hand.objects.select_for_update().get(game=game, dealt_at=None)
    washers = list(state.wash_seats)
    contributions = {int(s): v for s, v in hand.contributions.items() if int(s) in washers}
    order = shuffled_set(hand.server_seed, contributions, state.settings.max_pip)
    events = state.deal(order)
    # The hands dealt before this one are over: their seeds may be shown (history reads the
    # flag). Written before this hand's own write, so that this hand is not among them where
    # each write is made as it comes (on PostgreSQL the statement sees the rows as before it).
    writes.update_where(
        Hand,
        {"revealed": True},
        {"game": game.pk, "revealed": False, "dealt_at": statements.NOT_NULL},
        or_raise=None,
    )
    writes.update_where(
        Hand,
        {
            "contributions": {str(s): v for s, v in contributions.items()},
            "washers": washers,
            "dealt_at": timezone.now(),
        },
        {"id": hand.pk},
        or_raise=None,  # locked above
    )
    seed = new_seed()
    following = {"hand": hand.number + 1, "sha256": commitment_of(seed)}
    writes.insert_rows(
        Hand,
        [
            {
                "game": game.pk,
                "number": following["hand"],
                "server_seed": seed,
                "commitment": following["sha256"],
                "contributions": {},
                "washers": None,
                "dealt_at": None,
                "revealed": False,
            }
        ],
    )
    if own:
        writes.run()
    return events, following


def _automatic_steps(
    game: Game,
    state: GameState,
    events: list[Event],
    *,
    deal: bool = True,
    writes: statements.Writes | None = None,
    boards: list[dict[str, Any]] | None = None,
) -> tuple[list[Event], list[dict[str, Any]], dict[str, Any] | None]:
    """What the house does for the players after an action: deals and forced passes; the
    events, the actions, and after a deal the next hand's commitment (tables.broadcast).
    `deal` false (a warm move): a deal raises `warm.Cold` instead. `writes`: where a deal's
    writes are gathered (made at once without). `boards`: where the board of each hand that
    ended with bones on it is put (its view), before the next deal clears it."""
    actions: list[dict[str, Any]] = []
    following = None
    for _step in range(MAX_AUTOMATIC_STEPS):
        if state.is_over:
            break
        if state.phase == Phase.AWAITING_DEAL:
            if not deal:
                raise warm.Cold
            if boards is not None and state.board.lead is not None:
                boards.append(state.board.to_view())
            dealt, following = _deal(game, state, writes)
            events += dealt
            actions.append({"seat": None, "kind": "deal", "action": {"type": "deal"}})
        elif state.is_forced_pass():
            seat = state.to_act
            assert seat is not None
            events += state.apply(Pass(seat))
            actions.append({"seat": seat, "kind": "pass", "action": {"type": "pass", "seat": seat}})
        else:
            break
    else:  # pragma: no cover - a bound that only a bug can reach
        log.error("game %s: automatic steps did not settle", game.pk)
    return events, actions, following


# --- game actions -----------------------------------------------------------------------------


@dataclass
class ActResult:
    version: int
    seq: int
    events: list[Event] = field(default_factory=list)


def _seat_of(game: Game, user: Any) -> int | None:
    try:
        return list(game.players).index(user.pk)
    except ValueError:
        return None


def playing_game_locked(table_id: int) -> Game:
    """The table's game in progress, its row locked for this transaction (with its table)."""
    # One statement built once per process: compiling this query was a sixth of a move's time.
    game = statements.select_locked(
        Game, "table", {"table": table_id, "status": Game.Status.PLAYING}
    )
    if game is None:
        raise TableError("no_game", _("There is no game in progress at this table."))
    assert isinstance(game, Game)
    return game


def game_act(
    *,
    table_id: int,
    user: Any,
    version: object,
    action: object,
    arrived_at: datetime | None = None,
) -> ActResult:
    """Apply one player's action against the game version they saw. All or nothing.

    At a table on the clock, a move that arrived after the deadline and its grace is refused:
    the clock has run out, the dumbbell is applied at once (if the timer has not already done
    it) and the player is told so. `arrived_at`: when the move reached the server (the socket's
    frame, stamped by the server: dominoes_site/arrival.py), which is what the clock judges; a
    move that came in time counts however long it then waited for the database. None: now.

    On PostgreSQL the common move is made warm first (tables/warm.py: one statement, from what
    this process last wrote); anything else, and any refusal, is made here under lock.
    """
    if type(version) is not int:
        raise TableError("bad_field", _("The move must name the game version."), field="version")
    if not isinstance(action, dict):
        raise TableError("bad_field", _("The move must be an object."), field="action")
    if arrived_at is None:
        arrived_at = timezone.now()
    if warm.usable():
        try:
            return _act_warm(
                table_id, user, version, action, user_sockets.offered_guard(), arrived_at
            )
        except warm.Cold:
            pass
    user_sockets.settle()  # a socket's account check, where the statement did not make it
    try:
        with transaction.atomic():
            game = playing_game_locked(table_id)
            seat = _seat_of(game, user)
            if seat is None:
                raise TableError("not_seated", _("Only the players at this table can move."))
            if "seat" in action and action["seat"] != seat:
                raise TableError("not_your_seat", _("You can only move for your own seat."))
            if version != game.version:
                raise StaleVersion(game.version)
            # Only the player on the clock can be late; anyone else gets the engine's answer.
            overdue = game.state.get("to_act") == seat and _clock_overdue(game, arrived_at)
            if not overdue:
                state, parsed, events = _applied(game, seat, action)
                kind = str(action.get("type", "?"))
                result = _commit_action(
                    game, state, seat, kind, parsed.to_dict(), events, by_player=True
                )
    finally:
        warm.forget(table_id)
    if overdue:
        clock_expire(game_id=game.pk, version=game.version)
        raise TableError("clock_ran_out", _("Your time ran out before your move arrived."))
    return result


game_act.checks_standing_itself = True  # type: ignore[attr-defined]


def _applied(game: Game, seat: int, action: dict[str, Any]) -> tuple[GameState, Any, list[Event]]:
    """The game's state after the seat's action (the engine's refusal as a TableError)."""
    try:
        parsed = parse_action({**action, "seat": seat})
    except ActionError as exc:
        raise _engine_refusal(exc) from exc
    if isinstance(parsed, Timeout):
        raise TableError("bad_field", _("Only the clock gives dumbbells."), field="action")
    state = GameState.from_json(game.state)
    try:
        events = state.apply(parsed)
    except ActionError as exc:
        raise _engine_refusal(exc) from exc
    return state, parsed, events


def _act_warm(
    table_id: int,
    user: Any,
    version: int,
    action: dict[str, Any],
    guard: user_sockets.Guard | None,
    arrived_at: datetime,
) -> ActResult:
    """`game_act` by one statement from the game this process keeps (tables/warm.py); `Cold`
    when the move is not a plain one or the kept game is not the database's any more. `guard`:
    the socket's account check, made inside the statement; `arrived_at`: when the move reached
    the server, against the clock."""
    kept = warm.take(table_id)
    if kept is None:
        raise warm.Cold  # no game in progress: the usual way says so
    game = kept.game
    seat = _seat_of(game, user)
    if seat is None or action.get("seat", seat) != seat or version != game.version:
        raise warm.Cold
    if game.state.get("to_act") == seat and _clock_overdue(game, arrived_at):
        raise warm.Cold
    try:
        state, parsed, events = _applied(game, seat, action)
    except TableError:
        raise warm.Cold from None  # refused: by the usual way, from a fresh read
    writes = statements.Writes.alone(Game, {Game: kept.game_row, Table: kept.table_row})
    if guard is not None:
        writes.require(guard.sql, guard.params)
    kind = str(action.get("type", "?"))
    try:
        result = _commit_action(
            game, state, seat, kind, parsed.to_dict(), events, by_player=True, writes=writes
        )
    except statements.Lost:
        warm.lost(table_id)
        raise warm.Cold from None
    warm.keep(game, writes.new_versions)
    if guard is not None:
        user_sockets.guard_held(guard)
    return result


def _count_moves(actions: int, by_player: bool) -> None:
    """The metrics' count of applied actions (dominoes_site/metrics.py), once committed."""
    if by_player:
        MOVES.labels(by="player").inc()
        actions -= 1
    if actions:
        MOVES.labels(by="server").inc(actions)


def _commit_action(
    game: Game,
    state: GameState,
    seat: int,
    kind: str,
    applied: dict[str, Any],
    events: list[Event],
    *,
    by_player: bool,
    writes: statements.Writes | None = None,
) -> ActResult:
    """Save an action applied to `state`, with the automatic steps that follow it, as the next
    versions of `game` (compare-and-set), set the turn clock, and record the events.

    `writes` given (`Writes.alone`, a warm move): `warm.Cold` before anything is written when
    the action deals or ends the game, `statements.Lost` when a compare-and-set lost."""
    warm_move = writes is not None
    if writes is None:
        writes = statements.Writes(Game)
    deal_before = game.state.get("deal")
    to_act_before = game.state.get("to_act")
    actions = [{"seat": seat, "kind": kind, "action": applied}]
    boards: list[dict[str, Any]] = []
    events, automatic, following = _automatic_steps(
        game, state, events, deal=not warm_move, writes=writes, boards=boards
    )
    if warm_move and state.is_over:
        raise warm.Cold
    actions += automatic
    new_version = game.version + len(actions)
    now = timezone.now()
    turn_goes_on = kind == "draw" and not automatic and state.to_act == to_act_before
    changes: dict[str, Any] = {"state": state.to_json(), "version": new_version}
    starts, seen = _summary_wait(game, state, events, now)
    if starts is not None:  # a hand ended: the next one's clock waits for its summary
        changes.update(clock_starts_at=starts, summary_seen=seen)
    elif game.clock_starts_at is not None and game.clock_starts_at <= now:
        changes.update(clock_starts_at=None, summary_seen=[])  # the wait is over
    waiting_until = changes.get("clock_starts_at", game.clock_starts_at)
    clock_from = waiting_until if waiting_until is not None and waiting_until > now else now
    changes["deadline"] = _turn_deadline(
        game, state, clock_from, game.deadline if turn_goes_on else None
    )
    if state.is_over:
        changes.update(
            status=Game.Status.FINISHED,
            finished_at=now,
            result=state.result.to_dict() if state.result else None,
        )
    # The game, its actions, the table's number and the events (and a deal's hands): one round
    # trip on PostgreSQL (statements.Writes), sent by _record; a finished game sends them before
    # its subscribers.
    version_before = game.version
    writes.update_where(
        Game,
        changes,
        {"id": game.pk, "version": version_before},
        or_raise=lambda: StaleVersion(version_before),
    )
    for name, value in changes.items():
        setattr(game, name, value)
    _save_actions(
        game,
        actions,
        first_version=new_version - len(actions) + 1,
        by_player=by_player,
        writes=writes,
    )
    table = game.table
    if state.is_over:
        writes.run()  # the subscribers read the finished game
        Table.objects.filter(pk=table.pk).update(status=Table.Status.FINISHED)
        table.status = Table.Status.FINISHED
        _game_over(game, state)
    # The table's own picture (seats, status, the next hand's commitment) changes only when
    # a hand is dealt or the game ends; other moves send the game alone. A deal changes only
    # the commitment (tables.broadcast reuses the rest where it can).
    picture_changed = state.deal_number != deal_before or state.is_over
    # The finished hand's board, for the page to keep under the hand's summary: the deal that
    # follows in the same update has already cleared the game's board.
    finished = [{"type": "hand_board", "board": board} for board in boards[-1:]]
    seq = _record(
        table,
        public=finished,
        engine_events=events,
        game=game,
        state=state,
        lobby=state.is_over,
        picture=picture_changed,
        commitment=None if state.is_over else following,
        writes=writes,
    )
    # After the writes: a warm move has no transaction, so these run at once.
    transaction.on_commit(partial(_count_moves, len(actions), by_player))
    _clock_schedule(game)
    signals.announce_turn(game, state)  # house players (house/receivers.py)
    return ActResult(version=new_version, seq=seq, events=events)


def _game_over(game: Game, state: GameState) -> None:
    """What follows a finished game inside its transaction: `game_finished`, whose subscribers
    (settlement, archive, workouts, ratings: tables/events.py) run here, in their stated order."""
    game_finished.send(GameFinished(game=game, state=state))


# --- calling a game off (tournaments) -----------------------------------------------------------


def game_call_off(*, table_id: int, reason: str, waiting_only: bool = False) -> Game | None:
    """Call off a table's live game without a result: a tournament does this when its players
    did not come (`waiting_only`: only a game nobody has started) or its organizer settled the
    match by hand. For tables played for nothing (tournament tables have no stake). Locks the
    table, so a last "ready" either starts the game first or comes too late. Returns the game
    called off, or None when there was none (or it had started, with `waiting_only`)."""
    statuses = [Game.Status.WAITING] if waiting_only else [Game.Status.WAITING, Game.Status.PLAYING]
    with transaction.atomic():
        table = _open_table(table_id)
        game = Game.objects.select_for_update().filter(table=table, status__in=statuses).first()
        if game is None:
            return None
        _abort(table, game)
        _game_aborted(game, why=reason)
        _record(table, public=[{"type": "game_aborted", "reason": reason}], game=game)
    return game


# --- the Gym clock ----------------------------------------------------------------------------


def clock_grace() -> timedelta:
    """How long after the deadline a move still counts (network delay): GYM_CLOCK_GRACE_MS."""
    return timedelta(milliseconds=django_settings.GYM_CLOCK_GRACE_MS)


def clock_timer_slack() -> timedelta:
    """How long past the deadline and grace the timer and the sweep wait before they give the
    dumbbell (GYM_CLOCK_TIMER_SLACK_MS): a move that reached the server in time may still be
    queued behind other work, and it must not lose the turn to the timer. A late move does not
    wait for it: it gives the dumbbell at once."""
    return timedelta(milliseconds=django_settings.GYM_CLOCK_TIMER_SLACK_MS)


def _timer_due(deadline: datetime) -> datetime:
    """When the timer of a turn with this deadline acts: after the grace and the slack."""
    return deadline + clock_grace() + clock_timer_slack()


def clock_timer_moment() -> datetime:
    """The moment the timer and the sweep judge the clock at: now, less the slack. Every move
    that reached the server before it has had the slack to be carried out."""
    return timezone.now() - clock_timer_slack()


def _turn_deadline(
    game: Game, state: GameState, now: datetime, running: datetime | None
) -> datetime | None:
    """When the turn now to act runs out: the seat's own full clock for a new turn (the table's,
    or what the seat halved it to: `Game.seat_clocks`), the running clock when the turn goes on
    (a draw), none when nobody is on the clock."""
    clock = state.settings.clock
    seat = state.to_act
    if clock is None or state.is_over or seat is None:
        return None
    if state.phase not in (Phase.PLAYING, Phase.CHOOSING_DOUBLES) or state.is_forced_pass():
        return None
    if running is not None:
        return running
    return now + timedelta(seconds=game.turn_clock(seat, clock))


#: At a Gym table the hand that follows another waits for its summary: its clock starts when
#: every seated player has dismissed the summary (`summary_seen`), or this many seconds after
#: the hand ended, whichever comes first. House players dismiss it at once.
SUMMARY_WAIT_SECONDS = 15


def _summary_wait(
    game: Game, state: GameState, events: list[Event], now: datetime
) -> tuple[datetime | None, list[int]]:
    """When an action ended a hand at a table on the clock and the game goes on: when the next
    hand's clock starts at the latest, and the seats that count as having seen the summary (the
    house players'). (None, []) when nothing waits: no clock, no hand ended, the game is over,
    or only house players sit."""
    if state.settings.clock is None or state.is_over:
        return None, []
    if not any(event.type == "hand_over" for event in events):
        return None, []
    from accounts.models import User

    ids = [p for p in game.players if p is not None]
    house = set(
        User.objects.filter(pk__in=ids).exclude(house_level="").values_list("pk", flat=True)
    )
    seen = [n for n, p in enumerate(game.players) if p is None or p in house]
    if len(seen) == len(game.players):
        return None, []
    return now + timedelta(seconds=SUMMARY_WAIT_SECONDS), seen


def _clock_from(game: Game, now: datetime) -> datetime:
    """When a turn's clock that begins now really begins: not before the hand's summary wait."""
    starts = game.clock_starts_at
    return starts if starts is not None and starts > now else now


def summary_seen(*, table_id: int, user: Any, hand: object) -> bool:
    """A seated player dismissed the summary shown before `hand` (the hand being played now, the
    game's `deal`). When every seat has, the waiting clock starts now: the deadline of the turn
    on the clock moves up by the wait left, and the timer is queued for it. Returns whether
    anything changed: a repeat, an earlier hand, or a message when no clock waits changes
    nothing and is not answered; a hand not dealt yet is refused."""
    if type(hand) is not int or hand < 0:
        raise TableError("bad_field", _("hand is a whole number."), field="hand")
    with transaction.atomic():
        game = playing_game_locked(table_id)
        seat = _seat_of(game, user)
        if seat is None:
            raise TableError("not_seated", _("Only the players at this table can do that."))
        deal = int(game.state.get("deal") or 0)
        if hand > deal:
            raise TableError("bad_field", _("That hand has not been dealt yet."), field="hand")
        now = timezone.now()
        starts = game.clock_starts_at
        if hand != deal or starts is None or starts <= now or seat in game.summary_seen:
            return False
        seen = sorted({*game.summary_seen, seat})
        changes: dict[str, Any] = {"summary_seen": seen}
        everyone = len(seen) >= len(game.players)
        if everyone:
            changes["clock_starts_at"] = now
            if game.deadline is not None:
                changes["deadline"] = game.deadline - (starts - now)
        Game.objects.filter(pk=game.pk, version=game.version).update(**changes)
        for name, value in changes.items():
            setattr(game, name, value)
        if everyone:
            table = game.table
            _record(
                table, public=[{"type": "clock_started"}], game=game, lobby=False, picture=False
            )
            _clock_schedule(game)
    warm.forget(table_id)
    return True


#: Apps above tables hear that a seated player halved their own turn clock (tournaments: an
#: arena's berserk, worth a point more for a win), after commit: each takes (table id, game id,
#: seat number). Registered in the app's ready(), as SEAT_GUARDS are.
SEAT_CLOCK_HALVED: list[Callable[[int, int, int], None]] = []


def seat_clock_halve(*, table_id: int, user: Any) -> Game:
    """A seated player halves their own turn clock for the rest of the game, before their first
    move: every turn of their seat then starts with half the table's clock, rounded up, and
    never less than the shortest clock a table may have (`CLOCK_RANGE`); the other seats keep
    the table's. If the seat is on the clock now, its deadline comes forward to what the halved
    clock gives from the turn's start (never before now, never later than it was), and the
    timer is queued for it.

    Refused: no game in progress (`no_game`), not seated at it (`not_seated`), a table without
    a turn clock (`no_clock`), halved already (`clock_halved`), after the seat's first move or
    dumbbell (`already_moved`), a clock already as short as a clock may be (`clock_too_short`).
    Every page's clock redraws from a `clock_halved` event; SEAT_CLOCK_HALVED hear it after
    commit."""
    with transaction.atomic():
        game = playing_game_locked(table_id)
        seat = _seat_of(game, user)
        if seat is None:
            raise TableError("not_seated", _("Only the players at this table can do that."))
        state = GameState.from_json(game.state)
        clock = state.settings.clock
        if clock is None:
            raise TableError("no_clock", _("This table has no turn clock."))
        if str(seat) in game.seat_clocks:
            raise TableError("clock_halved", _("Your turn clock is already halved for this game."))
        # A forced pass is the server's, not a move; a dumbbell already ran the seat's clock.
        moved = GameAction.objects.filter(game=game, seat=seat).filter(
            Q(by_server=False) | Q(kind="timeout")
        )
        if moved.exists():
            raise TableError(
                "already_moved",
                _("Your turn clock can be halved only before your first move of the game."),
            )
        halved = max(math.ceil(clock / 2), CLOCK_RANGE[0])
        if halved >= clock:
            raise TableError(
                "clock_too_short",
                _("Your turn clock can't be halved: it is already as short as a clock can be."),
            )
        changes: dict[str, Any] = {"seat_clocks": {**game.seat_clocks, str(seat): halved}}
        if state.to_act == seat and game.deadline is not None:
            # Before its first move a seat's deadline is its turn's start plus a full clock. It
            # only ever comes forward: one already past stays where it was, for the timer.
            shortened = game.deadline - timedelta(seconds=clock - halved)
            changes["deadline"] = min(game.deadline, max(shortened, timezone.now()))
        Game.objects.filter(pk=game.pk, version=game.version).update(**changes)
        for name, value in changes.items():
            setattr(game, name, value)
        _record(
            game.table,
            public=[{"type": "clock_halved", "seat": seat, "seconds": halved}],
            game=game,
            state=state,
            lobby=False,
            picture=False,
        )
        if "deadline" in changes:
            _clock_schedule(game)
        for hook in SEAT_CLOCK_HALVED:
            transaction.on_commit(partial(_clock_halved_heard, hook, table_id, game.pk, seat))
    warm.forget(table_id)
    return game


def seat_clock_halve_asked(*, table_id: int, user: Any) -> Game:
    """A player asks at the table (its socket) to halve their own clock: only where the table
    offers it (`Table.clock_halving`: an arena's berserk; refused `no_halving` elsewhere), then
    as `seat_clock_halve`."""
    if not Table.objects.filter(pk=table_id, clock_halving=True).exists():
        raise TableError("no_halving", _("This table does not offer halving your clock."))
    return seat_clock_halve(table_id=table_id, user=user)


def _clock_halved_heard(hook: Callable[[int, int, int], None], *args: int) -> None:
    """One SEAT_CLOCK_HALVED hook, after commit: the clock is halved whatever it does, so its
    error is logged, never handed to the player whose request it was."""
    try:
        hook(*args)
    except Exception:
        log.exception("table %s game %s seat %s: a clock-halved hook failed", *args)


def _clock_overdue(game: Game, at: datetime) -> bool:
    """Whether the clock of the game had run out (deadline and grace) at `at`: for a move, when
    it reached the server; for the timer, now."""
    return game.deadline is not None and at > game.deadline + clock_grace()


def _clock_schedule(game: Game) -> None:
    """On commit, queue the timer for the turn's deadline (plus grace and the timer's slack):
    it names the version, so a move made in time leaves it nothing to do. The beat sweep
    catches a lost timer."""
    if game.deadline is None:
        return
    game_id, version = game.pk, game.version
    due = _timer_due(game.deadline)

    def queue() -> None:
        from tables.tasks import clock_expire as task

        try:
            task.apply_async((game_id, version), eta=due)
        except Exception:  # the sweep catches up; a broker hiccup must not fail the move
            log.exception("game %s: could not queue the clock timer", game_id)

    transaction.on_commit(queue)


def clock_expire(*, game_id: int, version: int, now: datetime | None = None) -> bool:
    """The clock of `game_id` at `version` ran out: the player to act takes a dumbbell.

    Idempotent: applied only while the game is still at `version` and past its deadline and
    grace (compare-and-set on the version), so a timer and the sweep, or a timer and a move,
    never both act. Returns whether a dumbbell was given.
    """
    with transaction.atomic():
        game = (
            Game.objects.select_for_update()
            .select_related("table")
            .filter(pk=game_id, status=Game.Status.PLAYING, version=version)
            .first()
        )
        at = now or timezone.now()
        if game is None or not _clock_overdue(game, at):
            return False
        assert game.deadline is not None
        late = (at - (game.deadline + clock_grace())).total_seconds()
        state = GameState.from_json(game.state)
        seat = state.to_act
        if seat is None:  # pragma: no cover - a deadline is set only with someone to act
            return False
        try:
            events = state.apply(Timeout(seat))
        except ActionError:
            log.exception("game %s v%s: the clock could not give a dumbbell", game_id, version)
            Game.objects.filter(pk=game.pk, version=version).update(deadline=None)
            return False
        _commit_action(
            game, state, seat, "timeout", Timeout(seat).to_dict(), events, by_player=False
        )
        transaction.on_commit(lambda: GYM_CLOCK_LATENESS.observe(late))
    return True


def clock_due_in(*, game_id: int, version: int) -> float | None:
    """Seconds until the timer of `game_id` at `version` is due (deadline, grace and the
    timer's slack), or None when the game has moved on or has no clock running."""
    deadline = (
        Game.objects.filter(pk=game_id, status=Game.Status.PLAYING, version=version)
        .values_list("deadline", flat=True)
        .first()
    )
    if deadline is None:
        return None
    return max(0.0, (_timer_due(deadline) - timezone.now()).total_seconds())


def clock_sweep(*, now: datetime | None = None) -> int:
    """Give every game past its deadline (and grace) its dumbbell: the beat job's catch-up for
    a timer that was lost (a worker restart, say). Returns how many dumbbells it gave."""
    now = now or timezone.now()
    due = list(
        Game.objects.filter(
            status=Game.Status.PLAYING, deadline__lt=now - clock_grace()
        ).values_list("pk", "version")
    )
    return sum(clock_expire(game_id=pk, version=version, now=now) for pk, version in due)


def _save_actions(
    game: Game,
    actions: list[dict[str, Any]],
    *,
    first_version: int,
    by_player: bool = False,
    writes: statements.Writes | None = None,
) -> None:
    """Append the applied actions; the first is the player's own when `by_player`. With
    `writes`, among the writes it gathers (sent by its owner)."""
    now = timezone.now()
    (writes.insert_rows if writes is not None else statements.insert_rows)(
        GameAction,
        [
            {
                "game": game.pk,
                "version": first_version + i,
                "seat": a["seat"],
                "kind": a["kind"],
                "action": a["action"],
                "by_server": not (by_player and i == 0),
                "created_at": now,
            }
            for i, a in enumerate(actions)
        ],
    )


# --- the event log ----------------------------------------------------------------------------


def _record(
    table: Table,
    *,
    public: list[dict[str, Any]] | None = None,
    engine_events: list[Event] | None = None,
    game: Game | None = None,
    state: GameState | None = None,
    lobby: bool = True,
    picture: bool = True,
    commitment: dict[str, Any] | None = None,
    writes: statements.Writes | None = None,
) -> int:
    """Raise the table's event number, keep what changed for each audience, broadcast on commit.

    `game` and `state`, when the caller has them, spare the broadcast from reading them again;
    `lobby` says whether the lobby's list of tables changed, `picture` whether the table's own
    picture did. A seat's private list is kept only where it differs from the public one.
    `commitment`: the picture changed in the next hand's commitment alone (a deal: this one).
    `writes`: the caller's gathered writes, sent here with these two (statements.Writes).
    """
    public = list(public or [])
    private: dict[str, list[dict[str, Any]]] = {}
    if engine_events:
        shown = [e.to_public() for e in engine_events]
        for seat in range(table.players):
            own = [e.to_seat(seat) for e in engine_events]
            if own != shown:
                private[str(seat)] = public + own
        public = public + shown
    seq = table.seq + 1
    if writes is None:
        writes = statements.Writes(Table)
    writes.update_where(
        Table,
        {"seq": seq},
        {"id": table.pk, "seq": table.seq},
        or_raise=lambda: TableError(
            "stale", _("The table changed at the same moment; please try again.")
        ),
    )
    table.seq = seq
    writes.insert_rows(
        TableEvent,
        [
            {
                "table": table.pk,
                "seq": seq,
                "public": public,
                "private": private,
                "created_at": timezone.now(),
            }
        ],
    )
    writes.run()
    transaction.on_commit(
        lambda: broadcast.table_changed(
            table,
            seq,
            public,
            private,
            game=game,
            state=state,
            lobby=lobby,
            picture=picture,
            commitment=commitment,
        )
    )
    return seq
