"""Tournament services: the only code that writes events, entries and matches.

Organizers create, edit, publish and cancel events; players register, answer a partner's
invitation, check in and withdraw; organizers disqualify and settle matches by hand. The beat
sweep (`tournament_sweep`) does everything the clock decides: opens registration and check-in,
starts the event (seeding it, or cancelling it when fewer than two entrants checked in), opens a
table for every match of the round, forfeits players who do not come, records the games, moves
the winners on, builds the next round and, at the end, pays the prizes.

Every step is claimed with a compare-and-set (`UPDATE ... WHERE status = <what it saw>`) inside
the transaction that does the step's work, so two sweeps at once, or a worker that died half way
and a new one, never do anything twice: the second finds the row already moved and does nothing.
Money moves through `tournaments.money`, whose ledger keys are idempotent too.

Decided (docs/tournaments.md says it for players):
- Players get to the table themselves: the sweep opens the table with every player seated and
  tells them; each presses Ready, and the game starts when all have. Whoever has not pressed
  Ready when the no-show time runs out forfeits the whole match; if neither side is ready, both
  are out (see tournaments.brackets). Every game of a best of 3 or 5 is played at a new table,
  with the same no-show time.
- A player whose account may no longer play (suspended, say) is withdrawn at the next sweep and
  their fee is given back; their current match, if any, is forfeited.
- Fees are given back on withdrawal before the start, to entries that did not check in, and on
  cancellation. An entry that withdraws or is disqualified after the start forfeits its matches
  and its fee stays in the pool.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
from collections.abc import Iterable
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.services import refusal_reason
from clubs import selectors as clubs
from clubs.models import Club
from engine import SettingsError, TableSettings
from social.notices import notify_users
from tables import services as tables
from tables.models import Game, Seat
from tournaments import arena, brackets, money
from tournaments.broadcast import tournament_changed
from tournaments.models import ORGANIZERS_GROUP, Entry, Match, Tournament

log = logging.getLogger(__name__)

S = Tournament.Status
MS = Match.Status

#: Limits of an event's settings.
MAX_SWISS_ROUNDS = 15
MAX_ARENA_PLAYERS = 1000
ARENA_MINUTES = arena.ARENA_MINUTES
MAX_PRIZE_PLACES = 8
CHECKIN_MINUTES = (1, 240)
ROUND_MINUTES = (0, 120)
NOSHOW_MINUTES = (1, 60)
NAME_LENGTH = 80
#: A club battle: how many clubs at most, and the most players who count for each.
MAX_BATTLE_CLUBS = 16
MAX_BATTLE_TOP = 50

#: The statuses in which the sweep has something to do.
LIVE = (S.PUBLISHED, S.REGISTRATION, S.CHECKIN, S.RUNNING)
BEFORE_START = (S.DRAFT, S.PUBLISHED, S.REGISTRATION, S.CHECKIN)
#: A sweep step that moves a match or a round forward at most this often per pass.
MAX_STEPS_PER_PASS = 500


class TournamentError(Exception):
    """A refused request: a stable `code`, words for the person, and for a form the words per
    field (`errors`). Nothing changed."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        field: str | None = None,
        errors: dict[str, list[str]] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.errors = errors or ({field: [message]} if field else {})


# --- who may organize ---------------------------------------------------------------------------


def is_organizer(user: Any) -> bool:
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    return bool(user.is_superuser or user.groups.filter(name=ORGANIZERS_GROUP).exists())


def may_manage(user: Any, tournament: Tournament) -> bool:
    """The event's own organizer (still in the group), a co-organizer of the event or of its
    series, a leader of the club whose own event it is, or a superuser."""
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    if user.is_superuser:
        return True
    if tournament.club_id is not None and clubs.is_leader(tournament.club_id, user):
        return True  # a club's own event: its leaders run it, whoever made it
    if tournament.organizer_id == user.pk:
        return is_organizer(user)
    if tournament.co_organizers.filter(pk=user.pk).exists():
        return True
    return bool(
        tournament.series_id is not None
        and tournament.series.co_organizers.filter(pk=user.pk).exists()  # type: ignore[union-attr]
    )


def may_create(user: Any, club: Club | None = None) -> bool:
    """Whether `user` may make an event or a series: a tournament organizer may make open ones;
    a club's leaders (organizers or not) make their club's own."""
    if club is not None:
        return bool(getattr(user, "is_superuser", False)) or clubs.is_leader(club.pk, user)
    return is_organizer(user)


def clubs_led(user: Any) -> list[Club]:
    """The clubs whose own events `user` may make (the clubs they lead), by name."""
    if not getattr(user, "is_authenticated", False):
        return []
    return list(
        Club.objects.filter(
            memberships__user_id=user.pk,
            memberships__status="active",
            memberships__role="leader",
        ).order_by("name")
    )


def _ensure_creator(user: Any, club: Club | None) -> None:
    if may_create(user, club):
        return
    if club is not None:
        raise TournamentError(
            "not_leader",
            _("Only the leaders of %(club)s make its events.") % {"club": club.name},
            field="club",
        )
    raise TournamentError("not_organizer", _("Only tournament organizers create events."))


def battle_check(
    *, format: str, club: Club | None, battle_clubs: Iterable[Club], battle_top: int | None
) -> tuple[list[Club], int | None]:
    """A club battle's clubs and how many players count for each: none for an ordinary event;
    for a battle an arena open to everyone (not one club's own), 2 to MAX_BATTLE_CLUBS clubs
    and 1 to MAX_BATTLE_TOP players each. Refusals name their field."""
    chosen = list(dict.fromkeys(battle_clubs))
    if battle_top is None and not chosen:
        return [], None
    errors: dict[str, list[str]] = {}
    if format != Tournament.Format.ARENA:
        errors["battle_clubs"] = [_("A club battle is an arena: choose the arena format.")]
    elif club is not None:
        errors["battle_clubs"] = [_("A club's own event can't be a battle between clubs.")]
    elif not 2 <= len(chosen) <= MAX_BATTLE_CLUBS:
        errors["battle_clubs"] = [
            _("A club battle has from 2 to %(n)s clubs.") % {"n": MAX_BATTLE_CLUBS}
        ]
    if type(battle_top) is not int or not 1 <= battle_top <= MAX_BATTLE_TOP:
        errors["battle_top"] = [
            _("Each club counts its best 1 to %(n)s players.") % {"n": MAX_BATTLE_TOP}
        ]
    if errors:
        first = next(iter(errors.values()))[0]
        raise TournamentError("bad_settings", first, errors=errors)
    return chosen, battle_top


def _ensure_manager(user: Any, tournament: Tournament) -> None:
    if not may_manage(user, tournament):
        raise TournamentError("not_organizer", _("Only this event's organizer can do that."))


# --- an event's settings ------------------------------------------------------------------------

FIELDS = (
    "name",
    "description",
    "rules_text",
    "mode",
    "table_options",
    "format",
    "swiss_rounds",
    "arena_minutes",
    "best_of",
    "fee_kind",
    "fee_dollars",
    "fee_canteen",
    "prize_split",
    "max_entrants",
    "registration_opens",
    "registration_closes",
    "starts_at",
    "checkin_minutes",
    "round_minutes",
    "noshow_minutes",
    "seeding",
    "bots_welcome",
)

DOLLAR_MODES = {"citizen", "fives", "threes"}
CANTEEN_MODES = {"inmate"}
GYM_MODES = {"citizen_gym", "inmate_gym"}


def _whole(value: object) -> bool:
    return type(value) is int


def tournament_check(data: dict[str, Any], *, now: dt.datetime | None = None) -> dict[str, Any]:
    """Check an event's settings; return them cleaned, or raise TournamentError whose `errors`
    explain every refused value on its own field."""
    now = now or timezone.now()
    errors: dict[str, list[str]] = {}

    def refuse(field: str, message: str) -> None:
        errors.setdefault(field, []).append(message)

    unknown = set(data) - set(FIELDS)
    if unknown:
        raise TournamentError("bad_field", f"unknown settings {sorted(unknown)}")
    clean: dict[str, Any] = {}

    name = str(data.get("name") or "").strip()
    if not name:
        refuse("name", _("Give the event a name."))
    elif len(name) > NAME_LENGTH:
        refuse("name", _("A name has at most %(n)s characters.") % {"n": NAME_LENGTH})
    clean["name"] = name
    clean["description"] = str(data.get("description") or "").strip()
    rules_text = str(data.get("rules_text") or "").strip()
    if not rules_text:
        refuse(
            "rules_text",
            _("Write the event's official rules: players read them before they register."),
        )
    clean["rules_text"] = rules_text

    mode = data.get("mode")
    options = dict(data.get("table_options") or {})
    try:
        settings = TableSettings.build(mode, **options)
    except SettingsError as exc:
        message = str(exc).removeprefix(f"{exc.field}: ")
        refuse(
            "mode" if exc.field == "mode" else "table_options", message[:1].upper() + message[1:]
        )
        settings = None
    if settings is not None:
        if not (settings.players == 2 or (settings.players == 4 and settings.partners)):
            refuse(
                "table_options",
                _("Tournament matches are one on one or Partners (two against two)."),
            )
        clean["mode"] = settings.mode.value
        clean["table_settings"] = settings.to_dict()

    fmt = data.get("format")
    if fmt not in Tournament.Format.values:
        refuse("format", _("Choose single elimination, double elimination, Swiss or an arena."))
    clean["format"] = fmt
    arena = fmt == Tournament.Format.ARENA
    minutes = data.get("arena_minutes")
    if arena:
        low, high = ARENA_MINUTES
        if not _whole(minutes) or not low <= minutes <= high:  # type: ignore[operator]
            refuse(
                "arena_minutes",
                _("An arena runs for %(low)s to %(high)s minutes.") % {"low": low, "high": high},
            )
        if settings is not None and settings.players != 2:
            refuse("table_options", _("Arena games are one on one."))
        clean["arena_minutes"] = minutes
    else:
        clean["arena_minutes"] = None
    rounds = data.get("swiss_rounds")
    if fmt == Tournament.Format.SWISS:
        if not _whole(rounds) or not 1 <= rounds <= MAX_SWISS_ROUNDS:  # type: ignore[operator]
            refuse(
                "swiss_rounds",
                _("A Swiss event plays 1 to %(n)s rounds.") % {"n": MAX_SWISS_ROUNDS},
            )
        clean["swiss_rounds"] = rounds
    else:
        clean["swiss_rounds"] = None

    best_of = data.get("best_of")
    if best_of not in (1, 3, 5) or not _whole(best_of):
        refuse("best_of", _("A match is the best of 1, 3 or 5 games."))
    elif arena and best_of != 1:
        refuse("best_of", _("Each arena pairing is one game."))
    clean["best_of"] = best_of

    fee_kind = data.get("fee_kind") or Tournament.Fee.FREE
    fee_dollars = data.get("fee_dollars")
    fee_dollars = 0 if fee_dollars in (None, "") else fee_dollars
    canteen = data.get("fee_canteen") or {}
    clean.update(fee_kind=fee_kind, fee_dollars=0, fee_canteen={})
    if fee_kind not in Tournament.Fee.values:
        refuse("fee_kind", _("The entry fee is free, in Dollars, or a canteen entry."))
    elif not _whole(fee_dollars):
        refuse("fee_dollars", _("An entry fee is a whole number of Dollars."))
    elif fee_dollars < 0:
        refuse("fee_dollars", _("An entry fee can't be below zero."))
    elif fee_kind == Tournament.Fee.DOLLARS:
        if mode in GYM_MODES:
            refuse("fee_kind", _("Gym events are played for a workout: make the entry free."))
        elif mode in CANTEEN_MODES:
            refuse("fee_kind", _("Inmate events take a canteen entry of goods, not Dollars."))
        if fee_dollars == 0:
            refuse("fee_dollars", _("A Dollar entry fee is at least 1 Dollar; or choose Free."))
        elif fee_dollars > money.MAX_FEE:
            refuse(
                "fee_dollars",
                _("The largest entry fee is %(n)s Dollars.") % {"n": money.MAX_FEE},
            )
        clean["fee_dollars"] = fee_dollars
    elif fee_kind == Tournament.Fee.CANTEEN:
        if mode not in CANTEEN_MODES:
            refuse("fee_kind", _("A canteen entry is for Inmate events only."))
        bundle: dict[str, int] = {}
        for good, qty in dict(canteen).items():
            if not _whole(qty) or qty < 0:
                refuse("fee_canteen", _("Each good's quantity is a whole number, not below zero."))
                break
            if qty > money.MAX_CANTEEN_ITEM:
                refuse(
                    "fee_canteen",
                    _("At most %(n)s of each good.") % {"n": money.MAX_CANTEEN_ITEM},
                )
                break
            if qty:
                bundle[str(int(good))] = qty
        else:
            if not bundle:
                refuse("fee_canteen", _("Choose at least one good for the canteen entry."))
            elif not money.goods_exist([int(g) for g in bundle]):
                refuse("fee_canteen", _("There is no such good at the Commissary."))
        clean["fee_canteen"] = bundle
    elif fee_dollars:
        refuse(
            "fee_dollars", _("A free event has no fee in Dollars: choose Dollars or leave it at 0.")
        )
    if fee_kind != Tournament.Fee.FREE and "fee_kind" not in errors and money.unavailable():
        refuse(
            "fee_kind",
            _("Entry fees can't be taken until the house's books open; only free events for now."),
        )

    split = data.get("prize_split")
    max_entrants = data.get("max_entrants")
    if not isinstance(split, list | tuple) or not split or not all(_whole(p) for p in split):
        refuse("prize_split", _("Write the prize split as whole percentages, e.g. 50/30/20."))
    elif any(p <= 0 for p in split):
        refuse("prize_split", _("Every place in the prize split gets more than 0%."))
    elif sum(split) != 100:
        refuse(
            "prize_split",
            _("The prize split adds up to %(total)s%%; it must add up to 100%%.")
            % {"total": sum(split)},
        )
    elif list(split) != sorted(split, reverse=True):
        refuse("prize_split", _("A better place never gets less than a worse one."))
    elif len(split) > MAX_PRIZE_PLACES:
        refuse("prize_split", _("At most %(n)s places are paid.") % {"n": MAX_PRIZE_PLACES})
    elif _whole(max_entrants) and len(split) > max_entrants:  # type: ignore[operator]
        refuse("prize_split", _("More places are paid than the event has entrants."))
    clean["prize_split"] = list(split) if isinstance(split, list | tuple) else split

    most = MAX_ARENA_PLAYERS if arena else brackets.MAX_ENTRANTS
    if not _whole(max_entrants) or not (
        brackets.MIN_ENTRANTS <= max_entrants <= most  # type: ignore[operator]
    ):
        refuse(
            "max_entrants",
            _("An event has room for %(low)s to %(high)s entrants.")
            % {"low": brackets.MIN_ENTRANTS, "high": most},
        )
    clean["max_entrants"] = max_entrants

    opens, closes, starts = (
        data.get("registration_opens"),
        data.get("registration_closes"),
        data.get("starts_at"),
    )
    for field, value in (
        ("registration_opens", opens),
        ("registration_closes", closes),
        ("starts_at", starts),
    ):
        if not isinstance(value, dt.datetime) or timezone.is_naive(value):
            refuse(field, _("Give a date and a time."))
        clean[field] = value
    if not errors.keys() & {"registration_opens", "registration_closes", "starts_at"}:
        assert isinstance(opens, dt.datetime) and isinstance(closes, dt.datetime)
        assert isinstance(starts, dt.datetime)
        if starts <= now:
            refuse("starts_at", _("The start time is in the past: choose a time to come."))
        if closes <= opens:
            refuse("registration_closes", _("Registration must close after it opens."))
        elif closes <= now:
            refuse(
                "registration_closes",
                _("Registration would already be closed: choose a later time."),
            )
        if closes > starts:
            refuse("registration_closes", _("Registration must close by the start time."))

    for field, (low, high), words in (
        (
            "checkin_minutes",
            CHECKIN_MINUTES,
            _("The check-in window is %(low)s to %(high)s minutes."),
        ),
        (
            "round_minutes",
            ROUND_MINUTES,
            _("The time between rounds is %(low)s to %(high)s minutes."),
        ),
        ("noshow_minutes", NOSHOW_MINUTES, _("The no-show time is %(low)s to %(high)s minutes.")),
    ):
        value = data.get(field)
        if not _whole(value) or not low <= value <= high:  # type: ignore[operator]
            refuse(field, words % {"low": low, "high": high})
        clean[field] = value

    seeding = data.get("seeding") or Tournament.Seeding.RANDOM
    if seeding not in Tournament.Seeding.values:
        refuse("seeding", _("Seeding is random, by the organizer's order or by rating."))
    clean["seeding"] = seeding
    clean["bots_welcome"] = data.get("bots_welcome") is True

    if errors:
        first = next(iter(errors.values()))[0]
        raise TournamentError("bad_settings", first, errors=errors)
    return clean


def tournament_create(
    *,
    organizer: Any,
    now: dt.datetime | None = None,
    club: Club | None = None,
    battle_clubs: Iterable[Club] = (),
    battle_top: int | None = None,
    **data: Any,
) -> Tournament:
    """A new event, as a draft only its organizers see. Refused unless `organizer` is in the
    "Tournament organizers" group or, for a club's own event (`club`), one of the club's
    leaders; a club battle (`battle_clubs`, `battle_top`) is an organizer's arena. Every
    refused setting is explained (TournamentError)."""
    _ensure_creator(organizer, club)
    clean = tournament_check(data, now=now)
    chosen, top = battle_check(
        format=clean["format"], club=club, battle_clubs=battle_clubs, battle_top=battle_top
    )
    with transaction.atomic():
        tournament = Tournament.objects.create(
            organizer=organizer, status=S.DRAFT, club=club, battle_top=top, **clean
        )
        tournament.battle_clubs.set(chosen)
    return tournament


def tournament_update(
    *,
    tournament_id: int,
    by: Any,
    now: dt.datetime | None = None,
    battle_clubs: Iterable[Club] | None = None,
    battle_top: int | None = None,
    **data: Any,
) -> Tournament:
    """Change an event's settings: while it is a draft, or published before registration opens
    (nobody can have registered yet). Whose event it is (open or a club's) does not change; a
    club battle's clubs change only when `battle_clubs` is given (the form shows them to
    organizers only)."""
    clean = tournament_check(data, now=now)
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _ensure_manager(by, tournament)
        if battle_clubs is None:  # kept as they are (checked against the new format)
            battle_clubs = list(tournament.battle_clubs.all())
            battle_top = tournament.battle_top
        chosen, top = battle_check(
            format=clean["format"],
            club=tournament.club,
            battle_clubs=battle_clubs,
            battle_top=battle_top,
        )
        clean["battle_top"] = top
        editable = tournament.status == S.DRAFT or (
            tournament.status == S.PUBLISHED
            and not tournament.entries.exists()
            and (now or timezone.now()) < tournament.registration_opens
        )
        if not editable:
            raise TournamentError(
                "not_editable",
                _("Settings can change only before registration opens; you can still cancel."),
            )
        updated = Tournament.objects.filter(pk=tournament.pk, status=tournament.status).update(
            **clean
        )
        if not updated:  # pragma: no cover - the row is locked
            raise TournamentError("stale", _("The event changed at the same moment; try again."))
        tournament.battle_clubs.set(chosen)
        if tournament.status != S.DRAFT:
            tournament_changed(tournament.pk)
    tournament.refresh_from_db()
    return tournament


def tournament_publish(
    *, tournament_id: int, by: Any, now: dt.datetime | None = None
) -> Tournament:
    """Show a draft to everyone. Its times are checked again: a draft can go stale."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _ensure_manager(by, tournament)
        if tournament.status != S.DRAFT:
            raise TournamentError("not_draft", _("Only a draft can be published."))
        tournament_check(_settings_of(tournament), now=now)
        Tournament.objects.filter(pk=tournament.pk, status=S.DRAFT).update(
            status=S.PUBLISHED, published_at=now or timezone.now()
        )
        tournament_changed(tournament.pk)
    tournament.refresh_from_db()
    return tournament


def _settings_of(tournament: Tournament) -> dict[str, Any]:
    data = {f: getattr(tournament, f) for f in FIELDS if hasattr(tournament, f)}
    options = {k: v for k, v in tournament.table_settings.items() if k != "mode"}
    data["table_options"] = options
    return data


def tournament_cancel(
    *, tournament_id: int, by: Any | None, reason: str, now: dt.datetime | None = None
) -> Tournament:
    """Cancel an event that has not finished: every fee held is given back, every match table
    still open is called off. `by` None: the house (too few checked in)."""
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError("no_reason", _("Say why the event is cancelled."), field="reason")
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if by is not None:
            _ensure_manager(by, tournament)
        if tournament.status in (S.FINISHED, S.CANCELLED):
            raise TournamentError("over", _("This event is already over."))
        claimed = Tournament.objects.filter(pk=tournament.pk, status=tournament.status).update(
            status=S.CANCELLED,
            cancel_reason=reason,
            cancelled_by=by,
            finished_at=now or timezone.now(),
            next_round_at=None,
        )
        if not claimed:  # pragma: no cover - the row is locked
            raise TournamentError("stale", _("The event changed at the same moment; try again."))
        _cancel_work(tournament, by)
        tournament_changed(tournament.pk)
    tournament.refresh_from_db()
    return tournament


def _cancel_work(tournament: Tournament, by: Any | None) -> None:
    """Inside the cancelling transaction: refunds, and the tables called off."""
    for entry in tournament.entries.select_related("player", "partner"):
        _refund(tournament, entry, by)
    live = tournament.matches.filter(status__in=[MS.WAITING, MS.PLAYING])
    for match in live:
        if match.table_id:
            tables.game_call_off(table_id=match.table_id, reason="tournament_cancelled")
    live.update(status=MS.EMPTY, noshow_deadline=None)
    tournament.matches.filter(status__in=[MS.PENDING, MS.READY]).update(status=MS.EMPTY)


def _refund(tournament: Tournament, entry: Entry, by: Any | None) -> None:
    for user_id in entry.user_ids:
        user = entry.player if user_id == entry.player_id else entry.partner
        money.fee_refund(tournament=tournament, entry=entry, user=user, by=by)


def _locked(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentError("no_event", _("There is no such event."))
    return tournament


# --- registering ------------------------------------------------------------------------------


def registration_open(tournament: Tournament, now: dt.datetime) -> bool:
    return (
        tournament.status in (S.PUBLISHED, S.REGISTRATION, S.CHECKIN)
        and tournament.registration_opens <= now < tournament.registration_closes
        and now < tournament.starts_at
    )


def checkin_open(tournament: Tournament, now: dt.datetime) -> bool:
    opens = tournament.starts_at - dt.timedelta(minutes=tournament.checkin_minutes)
    return tournament.status in (S.PUBLISHED, S.REGISTRATION, S.CHECKIN) and (
        opens <= now < tournament.starts_at
    )


def active_entries(tournament: Tournament) -> Any:
    return tournament.entries.filter(withdrawn_at__isnull=True, disqualified_at__isnull=True)


def _entry_of(tournament: Tournament, user: Any) -> Entry | None:
    return (
        active_entries(tournament)
        .filter(Q(player=user) | Q(partner=user))
        .select_related("player", "partner")
        .first()
    )


def _may_play(user: Any) -> None:
    reason = refusal_reason(user)
    if reason is not None:
        raise TournamentError("not_allowed", reason)


def _bots_welcome(tournament: Tournament, user: Any, partner: Any) -> None:
    """A bot account (docs/api.md, "Bot accounts") enters only an event whose organizer welcomes
    bots (the event's page says so): the people who enter the others play people."""
    if tournament.bots_welcome:
        return
    if getattr(user, "bot", False):
        raise TournamentError(
            "bots_not_welcome",
            _("This event is for people: its organizer does not take bot accounts."),
        )
    if partner is not None and getattr(partner, "bot", False):
        raise TournamentError(
            "bots_not_welcome",
            _("%(name)s is a bot account, and this event's organizer does not take bots.")
            % {"name": partner.display_name},
            field="partner",
        )


def _club_of_entrant(tournament: Tournament, user: Any, partner: Any, club: Any) -> Club | None:
    """Whom the entry plays for, after the club checks: a club's own event takes its members
    only (a partner too); a club battle takes members of its clubs, each for one of them
    (`club`, which a member of several chooses; else the first by name). None otherwise."""
    if tournament.club_id is not None:
        own = tournament.club
        assert own is not None
        for who in (user, partner):
            if who is not None and not clubs.is_member(own.pk, who):
                words = (
                    _("Only members of %(club)s may register: join the club first.")
                    if who is user
                    else _("%(name)s is not a member of %(club)s.")
                )
                raise TournamentError(
                    "club_only",
                    words % {"club": own.name, "name": who.display_name},
                    field=None if who is user else "partner",
                )
        return None
    if not tournament.is_battle:
        return None
    theirs = [c for c in tournament.battle_clubs.order_by("name") if clubs.is_member(c.pk, user)]
    if not theirs:
        raise TournamentError(
            "club_only",
            _("This is a battle between clubs: only members of its clubs may join."),
        )
    if club is None:
        return theirs[0]
    chosen = next((c for c in theirs if c.pk == getattr(club, "pk", club)), None)
    if chosen is None:
        raise TournamentError(
            "not_your_club",
            _("Choose one of your clubs in this battle."),
            field="club",
        )
    return chosen


def entry_register(
    *,
    tournament_id: int,
    user: Any,
    partner: Any = None,
    club: Any = None,
    now: dt.datetime | None = None,
) -> Entry:
    """Register `user` (with `partner` at a Partners event, who must then accept; for `club` at
    a club battle). The fee is held now; refused with a clear message, and nothing changed,
    when the event is not open, full or started, when either is already registered or not in
    the event's club, or cannot pay."""
    now = now or timezone.now()
    _may_play(user)
    with transaction.atomic():
        tournament = _locked(tournament_id)
        arena_running = tournament.format == Tournament.Format.ARENA and tournament.status == (
            S.RUNNING
        )
        if arena_running:
            from tournaments import arenas

            if now >= arenas.ends_at(tournament):
                raise TournamentError("over", _("This arena is over."))
        elif tournament.status in (S.RUNNING, S.FINISHED, S.CANCELLED):
            raise TournamentError("started", _("This event has already started."))
        if tournament.status == S.DRAFT:
            raise TournamentError("no_event", _("There is no such event."))
        if not arena_running and not registration_open(tournament, now):
            if now < tournament.registration_opens:
                raise TournamentError("not_open", _("Registration is not open yet."))
            raise TournamentError("closed", _("Registration is closed."))
        if _entry_of(tournament, user) is not None:
            raise TournamentError("already", _("You are already registered for this event."))
        _bots_welcome(tournament, user, partner)
        if tournament.partners:
            if partner is None:
                raise TournamentError(
                    "partner_needed",
                    _("This is a Partners event: name the partner you register with."),
                    field="partner",
                )
            if partner.pk == user.pk:
                raise TournamentError(
                    "partner_self", _("Your partner is someone else."), field="partner"
                )
            reason = refusal_reason(partner)
            if reason is not None:
                raise TournamentError(
                    "partner_not_allowed",
                    _("%(name)s can't play at the moment.") % {"name": partner.display_name},
                    field="partner",
                )
            if _entry_of(tournament, partner) is not None:
                raise TournamentError(
                    "partner_already",
                    _("%(name)s is already registered for this event.")
                    % {"name": partner.display_name},
                    field="partner",
                )
        elif partner is not None:
            raise TournamentError(
                "no_partners", _("This event is one on one: register alone."), field="partner"
            )
        plays_for = _club_of_entrant(tournament, user, partner, club)
        if active_entries(tournament).count() >= tournament.max_entrants:
            raise TournamentError("full", _("This event is full."))
        try:
            with transaction.atomic():
                entry = Entry.objects.create(
                    tournament=tournament,
                    player=user,
                    partner=partner if tournament.partners else None,
                    club=plays_for,
                )
                if tournament.format == Tournament.Format.ARENA:
                    from tournaments import arenas

                    entry.start_rating = arenas.start_rating(tournament, user)
                    Entry.objects.filter(pk=entry.pk).update(start_rating=entry.start_rating)
        except IntegrityError as exc:
            raise TournamentError(
                "already", _("You are already registered for this event.")
            ) from exc
        try:
            money.fee_hold(tournament=tournament, entry=entry, user=user)
        except money.MoneyError as exc:
            raise TournamentError(exc.code, exc.message) from exc
        tournament_changed(tournament.pk)
    return entry


def entry_partner_answer(
    *, entry_id: int, user: Any, accept: bool, now: dt.datetime | None = None
) -> Entry:
    """The named partner accepts (their fee is held) or declines (the entry is withdrawn and the
    first player's fee given back)."""
    now = now or timezone.now()
    with transaction.atomic():
        entry = (
            Entry.objects.select_related("tournament", "player", "partner")
            .filter(pk=entry_id)
            .first()
        )
        if entry is None or entry.partner_id != user.pk or not entry.active:
            raise TournamentError("no_invitation", _("There is no such invitation."))
        tournament = _locked(entry.tournament_id)
        if tournament.status not in (S.PUBLISHED, S.REGISTRATION, S.CHECKIN):
            raise TournamentError("started", _("This event has already started."))
        if entry.partner_confirmed:
            return entry
        if accept:
            _may_play(user)
            try:
                money.fee_hold(tournament=tournament, entry=entry, user=user)
            except money.MoneyError as exc:
                raise TournamentError(exc.code, exc.message) from exc
            Entry.objects.filter(pk=entry.pk).update(partner_confirmed=True)
        else:
            _withdraw(tournament, entry, Entry.Withdrawal.DECLINED, now, by=user, refund=True)
        tournament_changed(tournament.pk)
    entry.refresh_from_db()
    return entry


def entry_check_in(*, tournament_id: int, user: Any, now: dt.datetime | None = None) -> Entry:
    now = now or timezone.now()
    _may_play(user)
    with transaction.atomic():
        tournament = _locked(tournament_id)
        entry = _entry_of(tournament, user)
        if entry is None:
            raise TournamentError("not_registered", _("You are not registered for this event."))
        if not checkin_open(tournament, now):
            if (
                tournament.status in (S.RUNNING, S.FINISHED, S.CANCELLED)
                or now >= tournament.starts_at
            ):
                raise TournamentError("started", _("This event has already started."))
            raise TournamentError(
                "checkin_closed",
                _("Check-in opens %(n)s minutes before the start.")
                % {"n": tournament.checkin_minutes},
            )
        if entry.partner_id and not entry.partner_confirmed:
            raise TournamentError(
                "partner_pending", _("Your partner has not accepted yet: check in once they have.")
            )
        field = "player_checked_in_at" if entry.player_id == user.pk else "partner_checked_in_at"
        if getattr(entry, field) is None:
            Entry.objects.filter(pk=entry.pk, **{f"{field}__isnull": True}).update(**{field: now})
            tournament_changed(tournament.pk)
    entry.refresh_from_db()
    return entry


def entry_withdraw(*, tournament_id: int, user: Any, now: dt.datetime | None = None) -> Entry:
    """Leave an event. Before the start the fee comes back; after it, the entry forfeits its
    matches and the fee stays in the pool."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        entry = _entry_of(tournament, user)
        if entry is None:
            raise TournamentError("not_registered", _("You are not registered for this event."))
        if tournament.status in (S.FINISHED, S.CANCELLED):
            raise TournamentError("over", _("This event is already over."))
        started = tournament.status == S.RUNNING
        if started and tournament.format == Tournament.Format.ARENA:
            raise TournamentError(
                "pause_instead",
                _("In a running arena, pause instead: you keep your points and may come back."),
            )
        _withdraw(tournament, entry, Entry.Withdrawal.PLAYER, now, by=user, refund=not started)
        tournament_changed(tournament.pk)
    entry.refresh_from_db()
    return entry


def _withdraw(
    tournament: Tournament,
    entry: Entry,
    why: str,
    now: dt.datetime,
    *,
    by: Any | None,
    refund: bool,
) -> bool:
    """Withdraw an entry (compare-and-set on its withdrawal), refund it if asked, and forfeit its
    live match. Returns whether this call withdrew it."""
    claimed = Entry.objects.filter(pk=entry.pk, withdrawn_at__isnull=True).update(
        withdrawn_at=now, withdrawal=why
    )
    if not claimed:
        return False
    entry.withdrawn_at, entry.withdrawal = now, why
    if refund:
        _refund(tournament, entry, by)
    if tournament.status == S.RUNNING:
        _forfeit_live_matches(tournament, entry, now)
    return True


def entry_disqualify(
    *, entry_id: int, by: Any, reason: str, now: dt.datetime | None = None
) -> Entry:
    """The organizer disqualifies an entry, saying why. Its live match is lost at once and its
    later matches are forfeited; before the start its fee is given back."""
    now = now or timezone.now()
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError("no_reason", _("Say why the entry is disqualified."), field="reason")
    with transaction.atomic():
        entry = Entry.objects.select_related("player", "partner").filter(pk=entry_id).first()
        if entry is None:
            raise TournamentError("no_entry", _("There is no such entry."))
        tournament = _locked(entry.tournament_id)
        _ensure_manager(by, tournament)
        if tournament.status in (S.FINISHED, S.CANCELLED, S.DRAFT):
            raise TournamentError(
                "over", _("Entries can be disqualified only while the event is on.")
            )
        if not entry.active:
            raise TournamentError("not_active", _("That entry is no longer in the event."))
        Entry.objects.filter(pk=entry.pk, disqualified_at__isnull=True).update(
            disqualified_at=now, disqualified_reason=reason, disqualified_by=by
        )
        entry.disqualified_at = now
        if tournament.status == S.RUNNING:
            _forfeit_live_matches(tournament, entry, now)
        else:
            _refund(tournament, entry, by)
        tournament_changed(tournament.pk)
    entry.refresh_from_db()
    return entry


def entry_seeds_set(
    *, tournament_id: int, by: Any, order: Iterable[int], now: dt.datetime | None = None
) -> None:
    """The organizer's seeding: entry ids, best first (used when the event seeds by the
    organizer's order). Only before the start."""
    order = list(order)
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _ensure_manager(by, tournament)
        if tournament.status not in BEFORE_START:
            raise TournamentError("started", _("This event has already started."))
        ids = set(active_entries(tournament).values_list("pk", flat=True))
        if len(order) != len(set(order)) or set(order) != ids:
            raise TournamentError(
                "bad_seeds", _("Give every entrant a different seed."), field="seeds"
            )
        for seed, entry_id in enumerate(order, start=1):
            Entry.objects.filter(pk=entry_id).update(seed=seed)
        tournament_changed(tournament.pk)


# --- settling a match by hand -------------------------------------------------------------------


def match_settle(
    *,
    match_id: int,
    by: Any,
    winner_entry_id: object,
    reason: str,
    now: dt.datetime | None = None,
) -> Match:
    """The organizer decides a disputed match: the winner must be one of its two entrants, and
    the reason is kept with who settled it. A match of the current round only (later rounds have
    not been built on it yet); a game in progress at its table is called off."""
    now = now or timezone.now()
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError(
            "no_reason", _("Say why you settle the match by hand."), field="reason"
        )
    with transaction.atomic():
        match = Match.objects.select_related("tournament").filter(pk=match_id).first()
        if match is None:
            raise TournamentError("no_match", _("There is no such match."))
        tournament = _locked(match.tournament_id)
        _ensure_manager(by, tournament)
        if tournament.status != S.RUNNING:
            raise TournamentError(
                "not_running", _("Matches are settled only while the event runs.")
            )
        match = Match.objects.select_related("entry_a", "entry_b").get(pk=match.pk)
        if match.round != tournament.current_round or match.status not in (
            MS.READY,
            MS.WAITING,
            MS.PLAYING,
            MS.DONE,
        ):
            raise TournamentError(
                "not_settleable",
                _("Only a match of the current round, between two entrants, can be settled."),
            )
        if type(winner_entry_id) is not int or winner_entry_id not in (
            match.entry_a_id,
            match.entry_b_id,
        ):
            raise TournamentError(
                "wrong_players",
                _("The winner must be one of the two entrants of this match."),
                field="winner",
            )
        if match.table_id and match.status in (MS.WAITING, MS.PLAYING):
            tables.game_call_off(table_id=match.table_id, reason="settled_by_organizer")
        claimed = Match.objects.filter(pk=match.pk, status=match.status).update(
            status=MS.DONE,
            winner_id=winner_entry_id,
            outcome=Match.Outcome.SETTLED,
            settled_by=by,
            settled_reason=reason,
            settled_at=now,
            finished_at=now,
            noshow_deadline=None,
        )
        if not claimed:  # pragma: no cover - the tournament row is locked
            raise TournamentError("stale", _("The match changed at the same moment; try again."))
        _after_result(tournament)
        tournament_changed(tournament.pk)
    match.refresh_from_db()
    return match


# --- seat guard: a tournament table's seats are the tournament's --------------------------------


def seat_guard(table_id: int, user_id: int, number: int | None, change: str) -> str | None:
    """Registered with tables.services: at a match's table nobody leaves, is removed, or sits
    anywhere but the seat the tournament gave them."""
    match = (
        Match.objects.filter(table_id=table_id)
        .select_related("entry_a", "entry_b")
        .only(
            "id",
            "entry_a__player_id",
            "entry_a__partner_id",
            "entry_b__player_id",
            "entry_b__partner_id",
        )
        .first()
    )
    if match is None:
        return None
    refusal = _("This is a tournament table: its seats are fixed by the tournament.")
    if change != "take":
        return refusal
    return None if _seating(match).get(number or 0) == user_id else refusal


def _seating(match: Match) -> dict[int, int]:
    """Seat number → user id at a match's table: the first entry on side 0 (seats 0 and 2),
    the second on side 1 (seats 1 and 3)."""
    a, b = match.entry_a, match.entry_b
    assert a is not None and b is not None
    seats = {0: a.player_id, 1: b.player_id}
    if a.partner_id and b.partner_id:
        seats.update({2: a.partner_id, 3: b.partner_id})
    return seats


# --- the sweep --------------------------------------------------------------------------------


def tournament_sweep(*, now: dt.datetime | None = None) -> int:
    """Everything the clock decides, for every live event: the beat job every few seconds.
    Returns how many steps it took (0 when nothing was due)."""
    ids = list(
        Tournament.objects.filter(status__in=LIVE)
        .order_by("starts_at")
        .values_list("pk", flat=True)
    )
    steps = 0
    for pk in ids:
        try:
            steps += tournament_advance(tournament_id=pk, now=now)
        except Exception:  # one event's trouble must not hold up the others; the next sweep retries
            log.exception("tournament %s: the sweep failed", pk)
    # An arena's standings change not sent yet (held back: one frame a second) goes out now.
    from tournaments import arenas

    arenas.flush_frames(
        list(
            Tournament.objects.filter(
                pk__in=ids, format=Tournament.Format.ARENA, standings_seq__gt=F("frame_seq")
            ).values_list("pk", flat=True)
        )
    )
    return steps


def tournament_advance(*, tournament_id: int, now: dt.datetime | None = None) -> int:
    """Take every step that is due for one event, each in its own short transaction."""
    now = now or timezone.now()
    steps = 0
    for step in (_step_open_registration, _step_open_checkin, _step_suspended, _step_start):
        steps += step(tournament_id, now)
    for _step in range(MAX_STEPS_PER_PASS):
        done = _step_round(tournament_id, now)
        steps += done
        if not done:
            break
    return steps


def _fresh(tournament_id: int) -> Tournament | None:
    return Tournament.objects.filter(pk=tournament_id).first()


def _step_open_registration(tournament_id: int, now: dt.datetime) -> int:
    tournament = _fresh(tournament_id)
    if tournament is None or tournament.status != S.PUBLISHED:
        return 0
    if now < tournament.registration_opens:
        return 0
    with transaction.atomic():
        claimed = Tournament.objects.filter(pk=tournament_id, status=S.PUBLISHED).update(
            status=S.REGISTRATION
        )
        if claimed:
            tournament_changed(tournament_id)
    return claimed


def _step_open_checkin(tournament_id: int, now: dt.datetime) -> int:
    tournament = _fresh(tournament_id)
    if tournament is None or tournament.status != S.REGISTRATION:
        return 0
    if tournament.format == Tournament.Format.ARENA:
        return 0  # an arena has no check-in: whoever joined is paired unless they pause
    if now < tournament.starts_at - dt.timedelta(minutes=tournament.checkin_minutes):
        return 0
    with transaction.atomic():
        claimed = Tournament.objects.filter(pk=tournament_id, status=S.REGISTRATION).update(
            status=S.CHECKIN
        )
        if claimed:
            tournament_changed(tournament_id)
            _tell_checkin_open(tournament)
    return claimed


def _tell_checkin_open(tournament: Tournament) -> None:
    """The event is about to start: each entrant, on whatever page they have open, is asked to
    check in (the notices socket, social)."""
    card = reverse("tournaments:notice_card", args=[tournament.pk])
    users: set[int] = set()
    for entry in active_entries(tournament):
        if entry.player_checked_in_at is None:
            users.add(entry.player_id)
        if entry.partner_id and entry.partner_checked_in_at is None:
            users.add(entry.partner_id)
    notify_users(
        [
            (user_id, "tournament_checkin_open", {"tournament": tournament.pk, "card_url": card})
            for user_id in sorted(users)
        ]
    )


def _step_suspended(tournament_id: int, now: dt.datetime) -> int:
    """Withdraw (and refund) every entry with a player whose account may no longer play."""
    tournament = _fresh(tournament_id)
    if tournament is None or tournament.status not in LIVE:
        return 0
    steps = 0
    for entry in active_entries(tournament).select_related("player", "partner"):
        users = [entry.player] + ([entry.partner] if entry.partner_id else [])
        if all(refusal_reason(u) is None for u in users):
            continue
        with transaction.atomic():
            locked = _locked(tournament_id)
            if locked.status in (S.FINISHED, S.CANCELLED):
                return steps
            if _withdraw(locked, entry, Entry.Withdrawal.SUSPENDED, now, by=None, refund=True):
                steps += 1
                tournament_changed(tournament_id)
    return steps


def _step_start(tournament_id: int, now: dt.datetime) -> int:
    tournament = _fresh(tournament_id)
    if tournament is None or tournament.status not in (S.PUBLISHED, S.REGISTRATION, S.CHECKIN):
        return 0
    if now < tournament.starts_at:
        return 0
    with transaction.atomic():
        claimed = Tournament.objects.filter(
            pk=tournament_id, status__in=[S.PUBLISHED, S.REGISTRATION, S.CHECKIN]
        ).update(status=S.RUNNING, started_at=now)
        if not claimed:
            return 0
        tournament = Tournament.objects.get(pk=tournament_id)
        if tournament.format == Tournament.Format.ARENA:
            # Nobody is seeded or checked in: the first wave pairs whoever is there.
            Tournament.objects.filter(pk=tournament_id).update(current_round=0, next_round_at=now)
            tournament_changed(tournament_id)
            return 1
        playing: list[Entry] = []
        for entry in active_entries(tournament).select_related("player", "partner"):
            confirmed = entry.partner_id is None or entry.partner_confirmed
            if confirmed and entry.checked_in:
                playing.append(entry)
            else:
                _withdraw(tournament, entry, Entry.Withdrawal.NO_CHECKIN, now, by=None, refund=True)
        if len(playing) < 2:
            Tournament.objects.filter(pk=tournament_id).update(
                status=S.CANCELLED,
                finished_at=now,
                cancel_reason=_("Fewer than two entrants checked in."),
            )
            _cancel_work(tournament, None)
            tournament_changed(tournament_id)
            return 1
        _seed(tournament, playing)
        if tournament.format == Tournament.Format.SWISS:
            rounds = brackets.swiss_rounds_possible(len(playing), tournament.swiss_rounds or 1)
            Tournament.objects.filter(pk=tournament_id).update(rounds_total=rounds, current_round=1)
            tournament.rounds_total, tournament.current_round = rounds, 1
            _swiss_round(tournament, 1, now)
        else:
            bracket = _bracket(tournament, len(playing))
            Match.objects.bulk_create(
                Match(
                    tournament=tournament,
                    key=m.key,
                    round=m.round,
                    bracket=m.bracket,
                    stage=m.stage,
                    number=m.number,
                )
                for m in bracket.matches
            )
            Tournament.objects.filter(pk=tournament_id).update(
                rounds_total=bracket.rounds, current_round=1
            )
            tournament.rounds_total, tournament.current_round = bracket.rounds, 1
            _bracket_sync(tournament)
        tournament_changed(tournament_id)
    return 1


def entry_ratings(tournament: Tournament, entries: list[Entry]) -> dict[int, float]:
    """Each entry's rating in the pool of the event's tables (ratings.selectors, as of now; a
    player with none reads as new, 1500): a player's own, a pair's mean of the two."""
    from ratings.pools import pool_for
    from ratings.selectors import player_ratings

    ids = {e.player_id for e in entries} | {e.partner_id for e in entries if e.partner_id}
    ratings = player_ratings(ids, pool_for(tournament.table_settings))
    out = {}
    for e in entries:
        members = [e.player_id] + ([e.partner_id] if e.partner_id else [])
        out[e.pk] = sum(ratings[m].rating for m in members) / len(members)
    return out


def _seed(tournament: Tournament, playing: list[Entry]) -> None:
    if tournament.seeding == Tournament.Seeding.ORGANIZER:
        ordered = sorted(
            playing, key=lambda e: (e.seed is None, e.seed or 0, e.registered_at, e.pk)
        )
    elif tournament.seeding == Tournament.Seeding.RATING:
        # Best rating first; equal ratings (new players) by who registered first.
        rating = entry_ratings(tournament, playing)
        ordered = sorted(playing, key=lambda e: (-rating[e.pk], e.registered_at, e.pk))
    else:
        ordered = list(playing)
        secrets.SystemRandom().shuffle(ordered)
    tournament.entries.update(seed=None)
    for seed, entry in enumerate(ordered, start=1):
        Entry.objects.filter(pk=entry.pk).update(seed=seed)
        entry.seed = seed


def _bracket(tournament: Tournament, entrants: int) -> brackets.Bracket:
    if tournament.format == Tournament.Format.DOUBLE:
        return brackets.double_elimination(entrants)
    return brackets.single_elimination(entrants)


def _seeded(tournament: Tournament) -> list[Entry]:
    return list(tournament.entries.filter(seed__isnull=False).order_by("seed"))


def _bracket_sync(tournament: Tournament) -> None:
    """Fill every elimination match not yet played from the bracket's results so far: its
    entrants, and whether it is to be played, a walkover, empty or not needed."""
    seeded = _seeded(tournament)
    bracket = _bracket(tournament, len(seeded))
    rows = {m.key: m for m in tournament.matches.all()}
    results = {key: m.winner_id for key, m in rows.items() if m.status == MS.DONE}
    states = brackets.resolve(bracket, [e.pk for e in seeded], results)
    mapping = {
        "pending": MS.PENDING,
        "ready": MS.READY,
        "walkover": MS.WALKOVER,
        "empty": MS.EMPTY,
        "skipped": MS.SKIPPED,
    }
    for key, state in states.items():
        row = rows[key]
        if row.status not in (MS.PENDING, MS.READY, MS.WALKOVER, MS.EMPTY, MS.SKIPPED):
            continue  # being played, or played: the result is the row's own
        a, b = (s if isinstance(s, int) else None for s in state.sides)
        status = mapping[state.status]
        winner = state.winner if status == MS.WALKOVER and isinstance(state.winner, int) else None
        if (row.entry_a_id, row.entry_b_id, row.status, row.winner_id) != (a, b, status, winner):
            Match.objects.filter(pk=row.pk, status=row.status).update(
                entry_a_id=a, entry_b_id=b, status=status, winner_id=winner
            )


def _swiss_games(tournament: Tournament) -> list[brackets.SwissGame]:
    games = []
    for m in tournament.matches.filter(status__in=[MS.DONE, MS.BYE]).order_by("round", "number"):
        assert m.entry_a_id is not None
        games.append(brackets.SwissGame(m.entry_a_id, m.entry_b_id, m.winner_id))
    return games


def _swiss_round(tournament: Tournament, number: int, now: dt.datetime) -> bool:
    """Pair Swiss round `number` among the entries still in. False when it cannot be paired
    (fewer than two left, or only rematches): the event then ends."""
    seeded = _seeded(tournament)
    active = [e.pk for e in seeded if e.active]
    if len(active) < 2:
        return False
    try:
        pairs = brackets.swiss_pair([e.pk for e in seeded], _swiss_games(tournament), active)
    except brackets.SwissError:
        return False
    Match.objects.bulk_create(
        Match(
            tournament=tournament,
            key=f"S{number}-{i}",
            round=number,
            bracket=Match.Bracket.SWISS,
            stage=number,
            number=i,
            entry_a_id=a,
            entry_b_id=b,
            status=MS.READY if b is not None else MS.BYE,
            winner_id=None if b is not None else a,
            finished_at=None if b is not None else now,
        )
        for i, (a, b) in enumerate(pairs, start=1)
    )
    return True


def _step_round(tournament_id: int, now: dt.datetime) -> int:
    """One step of a running event: the first thing due in its current round, or the move to
    the next round, or the end. Returns 1 when it did something."""
    tournament = _fresh(tournament_id)
    if tournament is None or tournament.status != S.RUNNING:
        return 0
    if tournament.format == Tournament.Format.ARENA:
        from tournaments import arenas

        return arenas.step(tournament, now)
    current = list(
        tournament.matches.filter(round=tournament.current_round)
        .exclude(status__in=Match.FINAL)
        .select_related("entry_a", "entry_b", "table")
        .order_by("number", "pk")
    )
    for match in current:
        if match.status == MS.READY and _match_ready(tournament, match, now):
            return 1
        if match.status == MS.WAITING and _match_waiting(tournament, match, now):
            return 1
        if match.status == MS.PLAYING and _match_playing(tournament, match, now):
            return 1
    if current:
        return 0
    return _round_over(tournament, now)


def _out(entry: Entry | None) -> bool:
    return entry is not None and not entry.active


def _match_ready(tournament: Tournament, match: Match, now: dt.datetime) -> bool:
    """A match whose entrants are known: decide it if one is out, else open its first table."""
    if _out(match.entry_a) or _out(match.entry_b):
        return _decide_out(tournament, match, now)
    return _open_table(tournament, match, now, from_status=MS.READY)


def _decide_out(tournament: Tournament, match: Match, now: dt.datetime) -> bool:
    """An entrant who withdrew or was disqualified loses; both out: nobody goes on."""
    a_out, b_out = _out(match.entry_a), _out(match.entry_b)
    winner = None if a_out and b_out else (match.entry_b_id if a_out else match.entry_a_id)
    return _decide(tournament, match, winner, Match.Outcome.OUT, now)


def _forfeit_live_matches(tournament: Tournament, entry: Entry, now: dt.datetime) -> None:
    """Inside a withdrawal or disqualification: the entry's match being played is lost now."""
    live = tournament.matches.filter(
        Q(entry_a=entry) | Q(entry_b=entry),
        status__in=[MS.READY, MS.WAITING, MS.PLAYING],
    ).select_related("entry_a", "entry_b")
    if tournament.format != Tournament.Format.ARENA:  # an arena's games run across waves
        live = live.filter(round=tournament.current_round)
    for match in live:
        for side in (match.entry_a, match.entry_b):
            if side is not None and side.pk == entry.pk:
                side.withdrawn_at = entry.withdrawn_at
                side.disqualified_at = entry.disqualified_at
        _decide_out(tournament, match, now)


def _open_table(
    tournament: Tournament, match: Match, now: dt.datetime, *, from_status: str
) -> bool:
    """Open the table for the match's next game with every player seated, and start the no-show
    clock. Claimed by moving the match to WAITING (compare-and-set on its status and table).

    A player the tables will not seat (their account may not play, or they are made to wait for
    leaving other games unfinished) cannot come: their side forfeits the match at once."""
    seats = _seating(match)
    users = {u.pk: u for u in _users(seats.values())}
    barred = {uid for uid, user in users.items() if _seat_refusal(user) is not None}
    if barred:
        sides = [any(seats[n] in barred for n in seats if n % 2 == side) for side in (0, 1)]
        winner = None if all(sides) else (match.entry_b_id if sides[0] else match.entry_a_id)
        return _decide(tournament, match, winner, Match.Outcome.FORFEIT, now)
    options = {k: v for k, v in tournament.table_settings.items() if k != "mode"}
    deadline = now + dt.timedelta(minutes=tournament.noshow_minutes)
    with transaction.atomic():
        claimed = Match.objects.filter(
            pk=match.pk, status=from_status, table_id=match.table_id
        ).update(status=MS.WAITING, noshow_deadline=deadline, started_at=match.started_at or now)
        if not claimed:
            return False
        # Off the lobby (private), and a player whose grace runs out forfeits (Partners too).
        # An arena's Gym tables on the clock offer berserk at the table itself.
        berserk = tournament.format == Tournament.Format.ARENA and arena.berserk_allowed(
            tournament.mode, tournament.table_settings.get("clock") or None, moved=False
        )
        table = tables.table_create(
            host=users[seats[0]],
            mode=tournament.mode,
            private=True,
            on_leave="forfeit",
            clock_halving=berserk,
            **options,
        )
        for number, user_id in sorted(seats.items()):
            if number:
                tables.seat_take(table_id=table.pk, user=users[user_id], number=number)
        Match.objects.filter(pk=match.pk).update(table=table)
        _match_changed(tournament)
        # Whatever page each player has open says so (the notices socket, social).
        notify_users(
            [
                (
                    user_id,
                    "tournament_table_ready",
                    {
                        "tournament": tournament.pk,
                        "table": table.pk,
                        "url": f"{table.get_absolute_url()}?code={table.invite_code}",
                        "card_url": reverse("tournaments:notice_card", args=[tournament.pk]),
                    },
                )
                for user_id in sorted(set(seats.values()))
            ]
        )
    return True


def _seat_refusal(user: Any) -> str | None:
    """Why the tables would not seat this player now (the tables' own rules), or None."""
    from tables.presence import sit_again_at

    reason = refusal_reason(user)
    if reason is not None:
        return reason
    return "must_wait" if sit_again_at(user) is not None else None


def _decide(
    tournament: Tournament, match: Match, winner: int | None, outcome: str, now: dt.datetime
) -> bool:
    """Record a match decided without (more) play; any game at its table is called off."""
    with transaction.atomic():
        if match.table_id and match.status in (MS.WAITING, MS.PLAYING):
            tables.game_call_off(table_id=match.table_id, reason=str(outcome))
        claimed = Match.objects.filter(pk=match.pk, status=match.status).update(
            status=MS.DONE,
            winner_id=winner,
            outcome=Match.Outcome.BOTH_ABSENT if winner is None else outcome,
            finished_at=now,
            noshow_deadline=None,
        )
        if claimed:
            _after_result(tournament)
            _match_changed(tournament)
    return bool(claimed)


def _users(ids: Iterable[int]) -> list[Any]:
    from accounts.models import User

    return list(User.objects.filter(pk__in=list(ids)))


def _live_game(table_id: int) -> Game | None:
    """The match's game at its table: the table's first (a rematch there is refused, and would
    not count)."""
    return Game.objects.filter(table_id=table_id, number=1).first()


def _match_waiting(tournament: Tournament, match: Match, now: dt.datetime) -> bool:
    """The table is open: the game started (the match is on), or the no-show time ran out."""
    if _out(match.entry_a) or _out(match.entry_b):
        return _decide_out(tournament, match, now)
    game = _live_game(match.table_id) if match.table_id else None
    if game is not None and game.status in (Game.Status.PLAYING, Game.Status.FINISHED):
        claimed = Match.objects.filter(
            pk=match.pk, status=MS.WAITING, table_id=match.table_id
        ).update(status=MS.PLAYING, noshow_deadline=None)
        if claimed:
            _match_changed(tournament)
        return bool(claimed)
    if game is not None and game.status == Game.Status.ABORTED:
        return _open_table(tournament, match, now, from_status=MS.WAITING)  # called off: again
    if match.noshow_deadline is None or now < match.noshow_deadline:
        return False
    return _no_show(tournament, match, now)


def _no_show(tournament: Tournament, match: Match, now: dt.datetime) -> bool:
    """The no-show time ran out with the game not started: whoever is not ready forfeits."""
    with transaction.atomic():
        claimed = Match.objects.filter(
            pk=match.pk, status=MS.WAITING, table_id=match.table_id
        ).update(noshow_deadline=None)
        if not claimed:
            return False
        aborted = tables.game_call_off(table_id=match.table_id, reason="no_show", waiting_only=True)
        if aborted is None:
            # The last player pressed Ready in time: the game is on.
            Match.objects.filter(pk=match.pk).update(status=MS.PLAYING)
            _match_changed(tournament)
            return True
        ready = {
            s.number: s.ready
            for s in Seat.objects.filter(table_id=match.table_id).only("number", "ready", "user_id")
        }
        settings = TableSettings.from_dict(tournament.table_settings)
        present = [
            all(ready.get(seat, False) for seat in settings.seats_of(side)) for side in (0, 1)
        ]
        if present[0] and not present[1]:
            winner = match.entry_a_id
        elif present[1] and not present[0]:
            winner = match.entry_b_id
        else:
            winner = None  # neither side came (both present cannot be: the game would be on)
        Match.objects.filter(pk=match.pk).update(
            status=MS.DONE,
            winner_id=winner,
            outcome=Match.Outcome.FORFEIT if winner else Match.Outcome.BOTH_ABSENT,
            finished_at=now,
            games=[*match.games, {"table": match.table_id, "game": aborted.pk, "no_show": True}],
        )
        if tournament.format == Tournament.Format.ARENA:
            from tournaments import arenas

            arenas.on_no_show(match, winner)
        _after_result(tournament)
        _match_changed(tournament)
    return True


def _match_playing(tournament: Tournament, match: Match, now: dt.datetime) -> bool:
    """A game is on: when it ends, count it; the match is won, or the next game's table opens."""
    if _out(match.entry_a) or _out(match.entry_b):
        return _decide_out(tournament, match, now)
    game = _live_game(match.table_id) if match.table_id else None
    if game is None or game.status == Game.Status.ABORTED:
        return _open_table(tournament, match, now, from_status=MS.PLAYING)  # voided: replay it
    if game.status != Game.Status.FINISHED or not game.result:
        return False
    settings = TableSettings.from_dict(tournament.table_settings)
    side = int(game.result["winner"])
    a_won = side == settings.side_of(0)
    wins_a = match.wins_a + int(a_won)
    wins_b = match.wins_b + int(not a_won)
    record = {
        "number": len(match.games) + 1,
        "table": match.table_id,
        "game": game.pk,
        "winner": "a" if a_won else "b",
        "forfeit": game.result.get("forfeit") is not None,
        "scores": list(game.state.get("scores") or []),
    }
    games = [*match.games, record]
    needed = tournament.wins_needed
    with transaction.atomic():
        if max(wins_a, wins_b) >= needed:
            claimed = Match.objects.filter(
                pk=match.pk, status=MS.PLAYING, table_id=match.table_id
            ).update(
                status=MS.DONE,
                wins_a=wins_a,
                wins_b=wins_b,
                games=games,
                winner_id=match.entry_a_id if wins_a > wins_b else match.entry_b_id,
                outcome=Match.Outcome.PLAYED,
                finished_at=now,
            )
            if claimed:
                _after_result(tournament)
                _match_changed(tournament)
            return bool(claimed)
        claimed = Match.objects.filter(
            pk=match.pk, status=MS.PLAYING, table_id=match.table_id
        ).update(wins_a=wins_a, wins_b=wins_b, games=games)
        if not claimed:
            return False
        match.wins_a, match.wins_b, match.games = wins_a, wins_b, games
        return _open_table(tournament, match, now, from_status=MS.PLAYING)


def _match_changed(tournament: Tournament) -> None:
    """A match moved (its table opened, its game began or ended): an event's pages fetch its
    live part again; an arena's get the next standings frame instead (one a second at most,
    however many games change: its pages do not each fetch anything)."""
    if tournament.format == Tournament.Format.ARENA:
        from tournaments import arenas

        arenas.standings_changed(tournament.pk)
    else:
        tournament_changed(tournament.pk)


def _after_result(tournament: Tournament) -> None:
    """Inside the transaction that recorded a result: move the winners on (elimination); an
    arena's standings changed."""
    if tournament.format == Tournament.Format.ARENA:
        from tournaments import arenas

        arenas.standings_changed(tournament.pk)
    elif tournament.format != Tournament.Format.SWISS:
        _bracket_sync(tournament)


def _round_over(tournament: Tournament, now: dt.datetime) -> int:
    """The current round is over: after the time between rounds, the next one; or the end."""
    nxt = _next_round(tournament)
    if nxt is None:
        return _finish(tournament, now)
    if tournament.next_round_at is None:
        wait = dt.timedelta(minutes=tournament.round_minutes)
        with transaction.atomic():
            claimed = Tournament.objects.filter(
                pk=tournament.pk,
                status=S.RUNNING,
                current_round=tournament.current_round,
                next_round_at__isnull=True,
            ).update(next_round_at=now + wait)
            if claimed:
                tournament_changed(tournament.pk)
        return claimed  # with no time between rounds, the next step starts the next round
    if now < tournament.next_round_at:
        return 0
    with transaction.atomic():
        claimed = Tournament.objects.filter(
            pk=tournament.pk,
            status=S.RUNNING,
            current_round=tournament.current_round,
            next_round_at=tournament.next_round_at,
        ).update(current_round=nxt, next_round_at=None)
        if not claimed:
            return 0
        if tournament.format == Tournament.Format.SWISS and not _swiss_round(tournament, nxt, now):
            Tournament.objects.filter(pk=tournament.pk).update(
                current_round=tournament.current_round,
                rounds_total=tournament.current_round,
                end_note=_("No further round could be paired without a rematch."),
            )
        tournament_changed(tournament.pk)
    return 1


def _next_round(tournament: Tournament) -> int | None:
    """The next round with a match to play, or None when the event is over."""
    if tournament.format == Tournament.Format.SWISS:
        nxt = tournament.current_round + 1
        if nxt > tournament.rounds_total:
            return None
        active = active_entries(tournament).filter(seed__isnull=False).count()
        return nxt if active >= 2 else None
    later = (
        tournament.matches.filter(round__gt=tournament.current_round)
        .exclude(status__in=Match.FINAL)
        .order_by("round")
        .values_list("round", flat=True)
        .first()
    )
    return later


def _finish(tournament: Tournament, now: dt.datetime) -> int:
    """Every match is over: place the entrants, pay the prizes, and close the event. One
    transaction, claimed by moving the event to FINISHED: the prizes are paid once."""
    with transaction.atomic():
        claimed = Tournament.objects.filter(pk=tournament.pk, status=S.RUNNING).update(
            status=S.FINISHED, finished_at=now, next_round_at=None
        )
        if not claimed:
            return 0
        placings = final_placings(tournament)
        prizes = _pay_prizes(tournament, placings)
        Tournament.objects.filter(pk=tournament.pk).update(placings=placings, prizes=prizes)
        tournament_changed(tournament.pk)
    return 1


def final_placings(tournament: Tournament) -> list[list[int]]:
    """Entry ids, best first, in groups that share a place; entries that withdrew or were
    disqualified are left out (they win nothing)."""
    if tournament.format == Tournament.Format.ARENA:
        from tournaments import arenas

        return arenas.placings(tournament)
    seeded = _seeded(tournament)
    active = {e.pk for e in seeded if e.active}
    if tournament.format == Tournament.Format.SWISS:
        table = brackets.swiss_standings([e.pk for e in seeded], _swiss_games(tournament))
        groups = [[s.entrant] for s in table]
    else:
        bracket = _bracket(tournament, len(seeded))
        results = {m.key: m.winner_id for m in tournament.matches.all() if m.status == MS.DONE}
        states = brackets.resolve(bracket, [e.pk for e in seeded], results)
        groups = brackets.elimination_placings(bracket, states)
    kept = [[e for e in group if e in active] for group in groups]
    return [g for g in kept if g]


def _pay_prizes(tournament: Tournament, placings: list[list[int]]) -> dict[str, Any]:
    """Share the pool by the prize split; each entry's share is split between its players (the
    remainder to the player who registered). Returns what each entry got, for the page."""
    pool = money.pool(tournament=tournament)
    if not pool:
        return {}
    entries = {e.pk: e for e in tournament.entries.all()}
    if not placings:  # nobody left to pay: every fee goes back
        for entry in entries.values():
            _refund(tournament, entry, None)
        return {}
    shares: dict[int, dict[money.Unit, int]] = {}
    by_entry: dict[str, dict[str, int]] = {}
    for unit, amount in pool.items():
        won = brackets.prize_amounts(amount, tournament.prize_split, placings)
        for entry_id, n in won.items():
            if not n:
                continue
            entry = entries[entry_id]
            people = entry.user_ids
            each, extra = divmod(n, len(people))
            for i, user_id in enumerate(people):
                got = each + (extra if i == 0 else 0)
                if got:
                    shares.setdefault(user_id, {})[unit] = (
                        shares.get(user_id, {}).get(unit, 0) + got
                    )
            key = unit[0] if unit[1] is None else f"good:{unit[1]}"
            by_entry.setdefault(str(entry_id), {})[key] = n
    money.prizes_pay(tournament=tournament, shares=shares)
    return by_entry
