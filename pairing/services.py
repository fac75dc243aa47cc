"""Quick pairing: joining and leaving a pool, pairing its players, and the tables it makes.

Pairing runs in two places (docs/pairing.md says why): right after a player joins (the join
request pairs its own pool, so two players who press the same cell are seated at once), and in
beat's sweep every second (`pairing_sweep`), which widens ranges as waits grow, gives the
seat of a player who was not ready in time to the next one waiting, and fills seats with house
players for those who asked.

Every step is claimed with a compare-and-set on the waiting rows (`UPDATE ... WHERE status =
'waiting'`): a step that claims fewer rows than it chose rolls back whole (its table too) and
pairs again from a fresh read, so two workers never seat one player twice.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings as django_settings
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.services import AccountNotAllowed, ensure_may_play
from engine import SettingsError
from house import services as house
from ledger import services as ledger
from ledger.selectors import balances_of
from pairing.cells import Cell, cell_parse
from pairing.models import Match, PoolEntry
from pairing.ratings import ratings_in_pool
from social import notices
from tables import services as tables
from tables.models import Table
from tables.presence import sit_again_at, waiting_message

log = logging.getLogger(__name__)

Status = PoolEntry.Status


def _setting(name: str, default: float) -> float:
    return float(getattr(django_settings, name, default))


def confirm_seconds() -> float:
    """How long a seated player has to press "Ready" before the seat goes to someone else."""
    return _setting("PAIRING_CONFIRM_SECONDS", 30)


def stale_seconds() -> float:
    """A waiting player whose page has not asked how the wait goes for this long (it polls
    every 3 s) has closed it, and leaves the pool rather than be seated and keep others waiting."""
    return _setting("PAIRING_STALE_SECONDS", 45)


def house_fill_after_seconds() -> float:
    """How long a player who allows house players waits before they take the empty seats."""
    return _setting("PAIRING_HOUSE_FILL_SECONDS", 45)


#: The rating range: ±100 at first, 50 more each second waited, ±600 at most (after 10 s).
RANGE_START = 100
RANGE_PER_SECOND = 50
RANGE_MOST = 600
#: Bound on the pairing rounds of one step (each round pairs from a fresh read).
MAX_ROUNDS = 50


class PairingError(Exception):
    """A refused pairing request: a stable `code` and words for the player. Nothing changed."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra


def rating_range(waited_seconds: float) -> int:
    """How far apart in rating a player may be paired after waiting this long."""
    return min(RANGE_MOST, RANGE_START + int(RANGE_PER_SECOND * max(0.0, waited_seconds)))


# --- joining and leaving ----------------------------------------------------------------------


def cover_needed(cell: Cell) -> int:
    """Dollars a player must hold to join the cell: the stake, twice where a skunk owes double
    (the house modes), as at any table (ledger.services.cover_needed)."""
    if not cell.stake:
        return 0
    return cell.stake * (2 if cell.settings().skunk_line is not None else 1)


def cover_check(user: Any, cell: Cell) -> None:
    """Refuse a player who cannot cover the cell's stake (checked again when seated: the table's
    own check, and at the start of the game)."""
    needed = cover_needed(cell)
    if not needed:
        return
    have = balances_of(user.pk).get(ledger.DOLLARS, 0)
    if have >= needed:
        return
    words = {
        "needed": ledger.amount_text(ledger.DOLLARS, needed),
        "have": ledger.amount_text(ledger.DOLLARS, have),
    }
    if needed > cell.stake:
        message = _(
            "You need %(needed)s to play for this stake: twice the stake, because a skunk owes "
            "double. You have %(have)s."
        )
    else:
        message = _("You need %(needed)s to play for this stake. You have %(have)s.")
    raise PairingError("cannot_cover", message % words)


def ensure_may_join(user: Any, cell: Cell) -> None:
    """The doors of a pool: a person (never a house player), allowed to play now, not made to
    wait for leaving games, and able to cover the stake."""
    if getattr(user, "house_level", ""):
        raise PairingError("house_player", _("House players do not wait in pools."))
    try:
        ensure_may_play(user)
    except AccountNotAllowed as exc:
        raise PairingError("not_allowed", exc.message) from exc
    waiting = sit_again_at(user)
    if waiting is not None:
        raise PairingError("must_wait", waiting_message(*waiting))
    cover_check(user, cell)


def match_waiting_for(user: Any) -> Match | None:
    """A table a pool seated `user` at whose game has not started yet."""
    return (
        Match.objects.filter(status=Match.Status.CONFIRMING, table__seats__user=user)
        .select_related("table")
        .first()
    )


def pool_join(
    *, user: Any, cell: Cell | str, house_fill: bool = False, now: datetime | None = None
) -> PoolEntry:
    """Put `user` in the cell's pool (leaving any other pool), then pair that pool at once.

    `house_fill`: after a wait, seats nobody came for are filled with house players and the
    game is casual (only for cells played for nothing). Raises PairingError.
    """
    if isinstance(cell, str):
        cell = cell_parse(cell)
    ensure_may_join(user, cell)
    pending = match_waiting_for(user)
    if pending is not None:
        raise PairingError(
            "already_seated",
            _("A table is waiting for you to be ready: play there, or leave its seat first."),
            table=pending.table_id,
        )
    rating = ratings_in_pool([user.pk], cell)[user.pk]
    given, now = now, now or timezone.now()
    for attempt in range(2):
        try:
            with transaction.atomic():
                PoolEntry.objects.filter(user=user, status=Status.WAITING).update(
                    status=Status.LEFT, ended_at=now
                )
                entry = PoolEntry.objects.create(
                    user=user,
                    cell=cell.key,
                    house_fill=house_fill and cell.stake == 0,
                    rating=rating,
                    joined_at=now,
                    seen_at=now,
                )
            break
        except IntegrityError:  # the same player joining twice at once: the last one counts
            if attempt:
                raise PairingError(
                    "busy", _("You joined another pool at the same moment; try again.")
                ) from None
    try:
        pool_pair(cell=cell, now=given)
    except Exception:  # the sweep pairs again within a second; the join itself stands
        log.exception("pairing: pairing %s after a join failed", cell.key)
    entry.refresh_from_db()
    return entry


def pool_seen(*, entry_pk: int, now: datetime) -> None:
    """The waiting player's page is open (it asked how the wait goes): written at most every
    10 s, so a poll every 3 s costs a write now and then."""
    PoolEntry.objects.filter(
        pk=entry_pk, status=Status.WAITING, seen_at__lt=now - timedelta(seconds=10)
    ).update(seen_at=now)


def pool_prune(*, now: datetime) -> int:
    """Players whose page has been closed for a while leave their pool (compare-and-set on the
    waiting rows, like every other step). Returns how many left."""
    return PoolEntry.objects.filter(
        status=Status.WAITING, seen_at__lt=now - timedelta(seconds=stale_seconds())
    ).update(status=Status.LEFT, ended_at=now)


def pool_leave(*, user: Any, now: datetime | None = None) -> bool:
    """Take `user` out of the pool they wait in; False when they were not waiting (a pairing
    may just have seated them: their table is then theirs to play or leave)."""
    return bool(
        PoolEntry.objects.filter(user=user, status=Status.WAITING).update(
            status=Status.LEFT, ended_at=now or timezone.now()
        )
    )


# --- choosing groups --------------------------------------------------------------------------


@dataclass(frozen=True)
class Waiting:
    """A player in a pool, as pairing sees them."""

    pk: int
    user_id: int
    rating: int
    joined_at: datetime
    house_fill: bool = False
    #: A bot account (docs/api.md, "Bot accounts").
    bot: bool = False
    #: A person who lets bots play them rated games (social's `bots_rated`): Play now may pair
    #: them with bots.
    bots_ok: bool = False


def bots_fit(group: list[Waiting]) -> bool:
    """Bots play bots, and people who let bots play them rated games; never anyone else."""
    if not any(w.bot for w in group):
        return True
    return all(w.bot or w.bots_ok for w in group)


def group_fits(group: list[Waiting], now: datetime) -> bool:
    """A group may play together when its ratings lie within the range of the player in it who
    has waited longest (the range widens with the wait, so a long wait ends), nobody is in it
    twice, and a bot in it plays only bots and people who opted in (`bots_fit`)."""
    if len({w.user_id for w in group}) != len(group):
        return False
    if not bots_fit(group):
        return False
    spread = max(w.rating for w in group) - min(w.rating for w in group)
    longest = max((now - w.joined_at).total_seconds() for w in group)
    return spread <= rating_range(longest)


def groups_find(
    waiting: list[Waiting], size: int, now: datetime, seated: list[Waiting] | None = None
) -> list[list[Waiting]]:
    """Groups of `size` from `waiting`, the longest-waiting player first: each takes the nearest
    ratings that still fit. With `seated` (players already at a table with empty seats), one
    group at most, of the players who join them."""
    pool = sorted(waiting, key=lambda w: (w.joined_at, w.pk))
    taken: set[int] = set()
    groups: list[list[Waiting]] = []
    anchors = [None] if seated else pool
    for anchor in anchors:
        if anchor is not None and anchor.pk in taken:
            continue
        group = list(seated or []) + ([anchor] if anchor is not None else [])
        target = group[0].rating if group else 0
        others = [w for w in pool if w.pk not in taken and w is not anchor]
        others.sort(key=lambda w: (abs(w.rating - target), w.joined_at, w.pk))
        for other in others:
            if len(group) == size:
                break
            if group_fits([*group, other], now):
                group.append(other)
        if len(group) == size:
            fresh = group[len(seated or []) :]
            if not fresh:
                continue
            groups.append(fresh)
            taken.update(w.pk for w in fresh)
    return groups


def seat_order(group: list[Waiting], cell: Cell) -> list[Waiting]:
    """Who sits where. Partners: the strongest and the weakest against the two in between
    (seats 0 and 2 play together), so the sides are as even as the ratings allow."""
    if not cell.partners or len(group) != 4:
        return list(group)
    a, b, c, d = sorted(group, key=lambda w: -w.rating)
    return [a, b, d, c]


def house_level_for(rating: int) -> str:
    """House players matched to the players they join: rookie, regular or shark."""
    if rating < 1400:
        return "rookie"
    if rating < 1700:
        return "regular"
    return "shark"


# --- seating ----------------------------------------------------------------------------------


class _Lost(Exception):
    """Another worker claimed one of the chosen players first: roll back, pair again."""


class _HostRefused(Exception):
    def __init__(self, entry_pk: int, code: str) -> None:
        self.entry_pk = entry_pk
        self.code = code


#: A pool entry's fields as `Waiting` takes them (with its player's bot flag and consent).
_WAITING_FIELDS = (
    "pk",
    "user_id",
    "rating",
    "joined_at",
    "house_fill",
    "user__bot",
    "user__social_settings__bots_rated",
)


def _waiting_of(row: tuple[Any, ...]) -> Waiting:
    *head, bot, bots_ok = row
    return Waiting(*head, bot=bool(bot), bots_ok=bool(bots_ok))


def _waiting_rows(cell: Cell) -> list[Waiting]:
    rows = PoolEntry.objects.filter(cell=cell.key, status=Status.WAITING).values_list(
        *_WAITING_FIELDS
    )
    return [_waiting_of(row) for row in rows]


def _claim(pks: list[int], now: datetime, match: Match | None = None) -> None:
    """The compare-and-set: these entries go from waiting to seated, all of them or none."""
    claimed = PoolEntry.objects.filter(pk__in=pks, status=Status.WAITING).update(
        status=Status.SEATED, seated_at=now, match=match
    )
    if claimed != len(pks):
        raise _Lost


def _refuse(entry_pk: int, code: str) -> None:
    """A player who can no longer sit (the stake, the account, a wait after leaving games)
    leaves the pool; the status page says so."""
    PoolEntry.objects.filter(pk=entry_pk, status__in=[Status.WAITING, Status.SEATED]).update(
        status=Status.LEFT, ended_at=timezone.now()
    )
    log.info("pairing: entry %s out of its pool (%s)", entry_pk, code)


def _table_casual(table: Table) -> None:
    """A table with house players is casual: never rated."""
    Table.objects.filter(pk=table.pk).update(rated=False)
    table.rated = False


def _notify(user_ids: list[int], kind: str, data: dict[str, Any]) -> None:
    """A notice to each player's open pages, after commit (the notices socket). A lost one is
    made up for by the waiting page's status poll."""
    notices.notify_users([(uid, kind, data) for uid in user_ids])


def _seated_notice(table: Table, user_ids: list[int], confirm_by: datetime) -> None:
    """Each player seated is told on every page they have open: a card with the table and the
    time left to press Ready (notices.js), rendered for its reader (`views.seated_card`)."""
    _notify(
        user_ids,
        "pairing_seated",
        {
            "table": table.pk,
            "url": table.get_absolute_url(),
            "confirm_by": int(confirm_by.timestamp() * 1000),
            "card_url": reverse("pairing:seated_card", args=[table.pk]),
        },
    )


def _seat_group(cell: Cell, group: list[Waiting], now: datetime, house_seats: int = 0) -> Match:
    """Claim the group's entries, open a table for them and seat them (and `house_seats` house
    players after them): one transaction. Raises _Lost or _HostRefused (nothing changed)."""
    order = seat_order(group, cell)
    users = {u.pk: u for u in User.objects.filter(pk__in=[w.user_id for w in group])}
    refused: list[tuple[int, str]] = []
    with transaction.atomic():
        _claim([w.pk for w in group], now)
        try:
            table = tables.table_create(
                host=users[order[0].user_id],
                mode=cell.mode,
                private=True,
                stake=ledger.StakeSpec(dollars=cell.stake) if cell.stake else None,
                **cell.table_options(),
            )
        except (tables.TableError, ledger.LedgerError, AccountNotAllowed, SettingsError) as exc:
            raise _HostRefused(order[0].pk, getattr(exc, "code", "refused")) from exc
        match = Match.objects.create(
            table=table,
            cell=cell.key,
            confirm_by=now + timedelta(seconds=confirm_seconds()),
            house_filled=house_seats > 0,
        )
        PoolEntry.objects.filter(pk__in=[w.pk for w in group]).update(match=match)
        seated = [order[0].user_id]
        for number, waiting in enumerate(order[1:], start=1):
            try:
                tables.seat_take(table_id=table.pk, user=users[waiting.user_id], number=number)
            except tables.TableError as exc:  # the seat stays empty; the sweep fills it
                refused.append((waiting.pk, exc.code))
            else:
                seated.append(waiting.user_id)
        if house_seats:
            level = house_level_for(round(sum(w.rating for w in group) / len(group)))
            for number in range(len(order), len(order) + house_seats):
                house.house_seat_add(
                    table_id=table.pk, host=users[order[0].user_id], number=number, level=level
                )
            _table_casual(table)
        for entry_pk, code in refused:
            _refuse(entry_pk, code)
        _seated_notice(table, seated, match.confirm_by)
    log.info("pairing: table %s for %s (%s)", table.pk, seated, cell.key)
    return match


def _seat_one(match: Match, waiting: Waiting, number: int, now: datetime) -> bool:
    """Claim one waiting player for an empty seat of a table the pool made, and seat them."""
    user = User.objects.get(pk=waiting.user_id)
    with transaction.atomic():
        _claim([waiting.pk], now, match)
        try:
            tables.seat_take(table_id=match.table_id, user=user, number=number)
        except tables.TableError as exc:
            if exc.code in ("seat_taken", "game_started", "no_table"):
                raise _Lost from exc  # the table changed under us: the player waits on
            refused = exc.code
        else:
            refused = ""
            confirm_by = max(match.confirm_by, now + timedelta(seconds=confirm_seconds()))
            Match.objects.filter(pk=match.pk).update(confirm_by=confirm_by)
            match.confirm_by = confirm_by
            _seated_notice(match.table, [user.pk], confirm_by)
    if refused:
        _refuse(waiting.pk, refused)
        return False
    return True


# --- pairing a pool ---------------------------------------------------------------------------


def _match_players(match: Match) -> tuple[list[int], list[Waiting]]:
    """A confirming table's empty seat numbers, and its seated people as pool players."""
    seats = list(match.table.seats.order_by("number").values_list("number", "user_id"))
    empty = [n for n, uid in seats if uid is None]
    at_table = {uid for _n, uid in seats if uid is not None}
    rows = PoolEntry.objects.filter(match=match, status=Status.SEATED, user_id__in=at_table)
    people = [_waiting_of(row) for row in rows.order_by("joined_at").values_list(*_WAITING_FIELDS)]
    return empty, people


def _refill(cell: Cell, now: datetime) -> int:
    """Empty seats at the pool's tables waiting to start go to players waiting in the pool (or,
    for players who asked and after the wait, to house players). Returns the seats filled."""
    filled = 0
    matches = Match.objects.filter(
        cell=cell.key, status=Match.Status.CONFIRMING, table__status=Table.Status.OPEN
    ).select_related("table")
    for match in matches:
        for _round in range(cell.players):
            empty, people = _match_players(match)
            if not empty or not people:
                break
            fresh = groups_find(_waiting_rows(cell), len(people) + 1, now, seated=people)
            if not fresh:
                if _house_fill_due(people, now):
                    filled += _house_fill(match, people, empty)
                break
            try:
                if _seat_one(match, fresh[0][0], empty[0], now):
                    filled += 1
            except _Lost:
                continue
    return filled


def _house_fill_due(people: list[Waiting], now: datetime) -> bool:
    if not people or not all(p.house_fill for p in people):
        return False
    longest = max((now - p.joined_at).total_seconds() for p in people)
    return longest >= house_fill_after_seconds()


def _house_fill(match: Match, people: list[Waiting], empty: list[int]) -> int:
    """House players take the empty seats of a table whose people all asked for them: casual."""
    table = match.table
    level = house_level_for(round(sum(p.rating for p in people) / len(people)))
    filled = 0
    with transaction.atomic():
        if not Match.objects.filter(pk=match.pk, status=Match.Status.CONFIRMING).update(
            house_filled=True
        ):
            return 0
        for number in empty:
            try:
                bot = house.house_player_get(level=level, not_at_table=table.pk)
                tables.seat_take(table_id=table.pk, user=bot, number=number)
                tables.seat_ready(table_id=table.pk, user=bot, ready=True)
            except tables.TableError as exc:
                log.info("pairing: no house player for table %s (%s)", table.pk, exc.code)
                continue
            filled += 1
        _table_casual(table)
    return filled


def pool_pair(*, cell: Cell, now: datetime | None = None) -> int:
    """Pair the cell's pool: fill empty seats at its tables first, then open tables for every
    group that fits; house players for those who asked, after their wait. Returns how many
    players were seated."""
    now = now or timezone.now()
    seated = _refill(cell, now)
    for _round in range(MAX_ROUNDS):
        waiting = _waiting_rows(cell)
        groups = groups_find(waiting, cell.players, now) or _house_groups(waiting, cell, now)
        if not groups:
            break
        for group in groups:
            try:
                _seat_group(cell, group, now, house_seats=cell.players - len(group))
            except _Lost:
                break  # another worker took one of them: pair again from a fresh read
            except _HostRefused as refusal:
                _refuse(refusal.entry_pk, refusal.code)
                break
            seated += len(group)
    return seated


def _house_groups(waiting: list[Waiting], cell: Cell, now: datetime) -> list[list[Waiting]]:
    """Players who asked for house players and waited long enough, with no full group: each
    takes the others who asked and fit, and house players take the rest of the table."""
    due = [w for w in waiting if w.house_fill and _house_fill_due([w], now)]
    if not due:
        return []
    askers = [w for w in waiting if w.house_fill]
    groups: list[list[Waiting]] = []
    taken: set[int] = set()
    for anchor in sorted(due, key=lambda w: w.joined_at):
        if anchor.pk in taken:
            continue
        group = [anchor]
        for other in sorted(askers, key=lambda w: abs(w.rating - anchor.rating)):
            if len(group) == cell.players - 1:
                break
            if other.pk not in taken and other is not anchor and group_fits([*group, other], now):
                group.append(other)
        groups.append(group)
        taken.update(w.pk for w in group)
    return groups


# --- tables waiting for their players ---------------------------------------------------------


def seat_guard(table_id: int, user_id: int, number: int | None, change: str) -> str | None:
    """A seat guard (tables.services.SEAT_GUARDS): at a table the pool made, waiting for its
    players, the host may not remove a matched player before `confirm_by`: the seat is theirs
    until the time to press Ready runs out. The pool's own sweep frees the seats of those not
    ready then (`_match_check`, by `seat_leave`, which this does not refuse)."""
    if change != "remove":
        return None
    confirm_by = (
        Match.objects.filter(table_id=table_id, status=Match.Status.CONFIRMING)
        .values_list("confirm_by", flat=True)
        .first()
    )
    now = timezone.now()
    if confirm_by is None or now >= confirm_by:
        return None
    seconds = max(1, int((confirm_by - now).total_seconds() + 0.999))
    return _(
        "Play now matched the players at this table: each seat is its player's until the time "
        "to press Ready runs out (%(seconds)d s). Whoever is not ready then loses the seat, and "
        "the pool fills it."
    ) % {"seconds": seconds}


def _match_check(match: Match, now: datetime) -> None:
    """One table the pool made, not yet started: started or closed, it is done; players who
    left their seat are out; past `confirm_by`, those not ready lose their seat, and a table
    with no person left ready is called off."""
    table = match.table
    if table.status in (Table.Status.PLAYING, Table.Status.FINISHED):
        Match.objects.filter(pk=match.pk, status=Match.Status.CONFIRMING).update(
            status=Match.Status.STARTED
        )
        return
    if table.status == Table.Status.ABORTED:
        Match.objects.filter(pk=match.pk, status=Match.Status.CONFIRMING).update(
            status=Match.Status.CANCELLED
        )
        return
    seats = list(table.seats.select_related("user"))
    at_table = [s.user_id for s in seats if s.user_id is not None]
    PoolEntry.objects.filter(match=match, status=Status.SEATED).exclude(
        user_id__in=at_table
    ).update(status=Status.DROPPED, ended_at=now)
    if now < match.confirm_by:
        if any(s.user is not None and not s.user.house_level for s in seats):
            return
    else:
        dropped = []
        for seat in seats:
            if seat.user is None or seat.ready:
                continue
            try:
                tables.seat_leave(table_id=table.pk, user=seat.user)
            except tables.TableError:
                continue  # the game started, or they left meanwhile
            dropped.append(seat.user_id)
        if dropped:
            PoolEntry.objects.filter(match=match, status=Status.SEATED, user_id__in=dropped).update(
                status=Status.DROPPED, ended_at=now
            )
            _notify(dropped, "pairing_dropped", {"table": table.pk})
        Match.objects.filter(pk=match.pk).update(
            confirm_by=now + timedelta(seconds=confirm_seconds())
        )
        seats = list(table.seats.select_related("user"))
    if any(s.user is not None and not s.user.house_level for s in seats):
        return
    with transaction.atomic():
        if Match.objects.filter(pk=match.pk, status=Match.Status.CONFIRMING).update(
            status=Match.Status.CANCELLED
        ):
            tables.game_call_off(table_id=table.pk, reason="pairing_empty", waiting_only=True)


def pairing_sweep(*, now: datetime | None = None) -> int:
    """Beat's pairing step: players whose page was closed leave their pool; the tables waiting
    for their players are checked; then every pool with someone waiting is paired (ranges have
    widened since the last look). Returns players seated."""
    now = now or timezone.now()
    pool_prune(now=now)
    for match in Match.objects.filter(status=Match.Status.CONFIRMING).select_related("table"):
        try:
            _match_check(match, now)
        except Exception:
            log.exception("pairing: checking match %s failed", match.pk)
    cells = set(
        PoolEntry.objects.filter(status=Status.WAITING).values_list("cell", flat=True).distinct()
    ) | set(Match.objects.filter(status=Match.Status.CONFIRMING).values_list("cell", flat=True))
    seated = 0
    for key in sorted(cells):
        try:
            seated += pool_pair(cell=cell_parse(key), now=now)
        except Exception:
            log.exception("pairing: pairing %s failed", key)
    return seated
