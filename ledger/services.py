"""Ledger services: the only code that moves value. Everything here is play money.

`posting_make` is the one writer of postings, entries and balances. It checks that the posting
balances per unit, that no player's balance (nor a pot) would go below zero, that value never
passes from one player straight to another, and that each kind of posting touches only the
accounts its reason allows. It locks the accounts it touches in primary-key order (so two
postings never deadlock), and its idempotency key makes it pay at most once: a second call with
the same key, even at the same moment, returns the first posting.

Everything else here builds postings: the sign-up grant, the daily allowance, Commissary orders,
staff adjustments, and a staked game's hold, settlement and refund.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
import zoneinfo
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from engine import TableSettings
from ledger.models import (
    SYSTEM_KINDS,
    TABLE_KINDS,
    Account,
    Adjustment,
    Currency,
    Entry,
    Good,
    Kind,
    Mismatch,
    Party,
    Posting,
    Reason,
    ReconciliationRun,
    StakeItem,
    StakeKind,
    StoreOrder,
    TableStake,
    posting_allowed,
)
from tables.models import Game, Table
from tables.stakes import StakeRefused

log = logging.getLogger(__name__)

#: The most of one good a player buys in one order, or bets in one canteen bundle.
MAX_ORDER = 99
MAX_BUNDLE_ITEM = 20
#: The largest stake a table may be played for, and the largest single staff adjustment.
MAX_STAKE = 100_000
MAX_ADJUSTMENT = 10_000_000

DOLLAR_MODES = frozenset({"citizen", "fives", "threes"})
CANTEEN_MODES = frozenset({"inmate"})
GYM_MODES = frozenset({"citizen_gym", "inmate_gym"})

#: A unit of value: a currency, and the good when the currency is goods.
Unit = tuple[str, int | None]
TIMES = " \N{MULTIPLICATION SIGN} "
DOLLARS: Unit = (Currency.DOLLARS.value, None)
BOOKS: Unit = (Currency.BOOKS.value, None)


def good_unit(good_id: int) -> Unit:
    return (Currency.GOODS.value, good_id)


def unit_key(unit: Unit) -> str:
    """A unit as a JSON key: `dollars`, `books` or `good:<id>`."""
    return unit[0] if unit[1] is None else f"good:{unit[1]}"


def unit_from_key(key: str) -> Unit:
    if key.startswith("good:"):
        return good_unit(int(key.removeprefix("good:")))
    return (key, None)


# --- errors ------------------------------------------------------------------------------------


class LedgerError(StakeRefused):
    """A refused ledger request: a stable `code`, words for the player and the form field it is
    about (`field`, or None). Nothing was posted. A tables.stakes.StakeRefused, so tables passes
    the refusals of its stake keeper (ledger/keeper.py) on in the same words without importing
    the ledger."""


class InsufficientFunds(LedgerError):
    pass


class AlreadyClaimed(LedgerError):
    def __init__(self, message: str, next_at: dt.datetime) -> None:
        super().__init__("already_claimed", message)
        self.next_at = next_at


class NotCovered(LedgerError):
    pass


# --- words for amounts -------------------------------------------------------------------------


def amount_text(unit: Unit, amount: int, goods: dict[int, Good] | None = None) -> str:
    """`12 Dollars`, `1 book`, `2 x Soup` (a multiplication sign), in the reader's language:
    names only, never the good's emoji icon (a box without an emoji font; pages draw it,
    `goods.good_icon`)."""
    currency, good_id = unit
    if currency == Currency.DOLLARS:
        return ngettext("%(n)s Dollar", "%(n)s Dollars", amount) % {"n": amount}
    if currency == Currency.BOOKS:
        return ngettext("%(n)s book", "%(n)s books", amount) % {"n": amount}
    good = (goods or {}).get(good_id or 0) or Good.objects.filter(pk=good_id).first()
    return f"{amount}{TIMES}{good.label if good is not None else '?'}"


def amounts_text(amounts: dict[Unit, int], goods: dict[int, Good] | None = None) -> str:
    return ", ".join(text for _good, text in amount_parts(amounts, goods))


def amount_parts(
    amounts: dict[Unit, int], goods: dict[int, Good] | None = None
) -> list[tuple[Good | None, str]]:
    """Each amount in words with its good (None for Dollars and books), in `amounts_text`'s
    order: for a page that draws each good's icon beside its words."""
    goods = dict(goods or {})
    missing = [u[1] for u in amounts if u[1] is not None and u[1] not in goods]
    if missing:
        goods.update(Good.objects.in_bulk(missing))
    return [
        (goods.get(unit[1]) if unit[1] is not None else None, amount_text(unit, n, goods))
        for unit, n in sorted(amounts.items(), key=_unit_order)
    ]


def _unit_order(item: tuple[Unit, int]) -> tuple[int, int]:
    unit = item[0]
    order = {Currency.DOLLARS.value: 0, Currency.BOOKS.value: 1}
    return order.get(unit[0], 2), unit[1] or 0


# --- checking input ----------------------------------------------------------------------------


def whole_number(value: object, *, field: str, minimum: int, maximum: int) -> int:
    """An integer from minimum to maximum; anything else (fractions, text, booleans) is refused."""
    if type(value) is not int:
        raise LedgerError(
            "bad_amount", _("Amounts are whole numbers, with no fractions."), field=field
        )
    if value < minimum:
        raise LedgerError(
            "bad_amount",
            _("The smallest amount here is %(n)s.") % {"n": minimum},
            field=field,
        )
    if value > maximum:
        raise LedgerError(
            "bad_amount", _("The largest amount here is %(n)s.") % {"n": maximum}, field=field
        )
    return value


def _good(good_id: object, *, field: str = "good") -> Good:
    if type(good_id) is not int:
        raise LedgerError(
            "unknown_good", _("There is no such good at the Commissary."), field=field
        )
    good = Good.objects.filter(pk=good_id).first()
    if good is None:
        raise LedgerError(
            "unknown_good", _("There is no such good at the Commissary."), field=field
        )
    return good


# --- accounts ----------------------------------------------------------------------------------


def _account(
    kind: str, unit: Unit, *, user_id: int | None = None, table_id: int | None = None
) -> Account:
    """The account of `kind` for `unit` (and its player or table), opened on first use."""
    owner = user_id if kind == Kind.PLAYER else table_id if kind in TABLE_KINDS else None
    code = f"{kind}:{owner}:{unit_key(unit)}" if owner is not None else f"{kind}:{unit_key(unit)}"
    account = Account.objects.filter(code=code).first()
    if account is not None:
        return account
    try:
        with transaction.atomic():
            return Account.objects.create(
                code=code,
                kind=kind,
                currency=unit[0],
                good_id=unit[1],
                user_id=user_id,
                table_id=table_id,
            )
    except IntegrityError:
        return Account.objects.get(code=code)


def player_account(user_id: int, unit: Unit) -> Account:
    return _account(Kind.PLAYER, unit, user_id=user_id)


def system_account(kind: str, unit: Unit) -> Account:
    return _account(kind, unit)


def table_account(kind: str, table_id: int, unit: Unit) -> Account:
    return _account(kind, unit, table_id=table_id)


# --- the one writer ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """So much of the account's unit into (positive) or out of (negative) the account."""

    account: Account
    amount: int


@dataclass(frozen=True)
class PostingResult:
    posting: Posting
    created: bool


#: The system accounts each reason may touch (player accounts: any reason; pots: stakes only).
SYSTEM_ACCOUNTS_FOR = {
    Reason.SIGNUP: {Kind.GRANTS},
    Reason.ALLOWANCE: {Kind.GRANTS},
    Reason.PURCHASE: {Kind.STORE},
    Reason.ADJUSTMENT: {Kind.HOUSE},
    Reason.HOLD: {Kind.POT, Kind.RESERVE},
    Reason.SETTLE: {Kind.POT, Kind.RESERVE},
    Reason.REFUND: {Kind.POT, Kind.RESERVE},
    Reason.ENTRY_FEE: {Kind.TOURNAMENT},
    Reason.FEE_REFUND: {Kind.TOURNAMENT},
    Reason.PRIZES: {Kind.TOURNAMENT},
}


def posting_make(
    *,
    key: str,
    reason: str,
    lines: Sequence[Line],
    created_by: Any = None,
    user: Any = None,
    game: Game | None = None,
    order: StoreOrder | None = None,
    adjustment: Adjustment | None = None,
    detail: dict[str, Any] | None = None,
    parties: Iterable[int] = (),
) -> PostingResult:
    """Post `lines` as one balanced posting under the idempotency `key`; at most once.

    Returns the new posting (`created` True) or the one already posted under `key`. Raises
    `InsufficientFunds` when a player's balance (or a pot) would go below zero, and
    `LedgerError` for a posting the ledger never allows. Nothing is written when it raises.
    """
    if not isinstance(key, str) or not key or len(key) > 120:
        raise LedgerError("bad_key", "A posting needs an idempotency key of 1 to 120 characters.")
    if reason not in Reason.values:
        raise LedgerError("bad_reason", f"Unknown posting reason {reason!r}.")
    merged: dict[int, int] = defaultdict(int)
    accounts: dict[int, Account] = {}
    for line in lines:
        if type(line.amount) is not int:
            raise LedgerError("bad_amount", _("Amounts are whole numbers, with no fractions."))
        merged[line.account.pk] += line.amount
        accounts[line.account.pk] = line.account
    amounts = {pk: n for pk, n in merged.items() if n != 0}
    if not amounts:
        raise LedgerError("empty", "A posting moves something.")
    totals: dict[Unit, int] = defaultdict(int)
    for pk, n in amounts.items():
        totals[(accounts[pk].currency, accounts[pk].good_id)] += n
    if any(totals.values()):
        raise LedgerError("unbalanced", f"Posting {key} does not balance: {dict(totals)}.")
    _check_shape(reason, [(accounts[pk], n) for pk, n in amounts.items()])

    with transaction.atomic():
        existing = _posted(key, reason)
        if existing is not None:
            return PostingResult(existing, False)
        locked = {
            a.pk: a
            for a in Account.objects.select_for_update().filter(pk__in=amounts).order_by("pk")
        }
        # Whoever held these locks before us may have posted this very key: look again.
        existing = _posted(key, reason)
        if existing is not None:
            return PostingResult(existing, False)
        for pk, n in amounts.items():
            account = locked[pk]
            if account.kind not in SYSTEM_KINDS and account.balance + n < 0:
                raise _insufficient(account, -n)
        with posting_allowed():
            try:
                with transaction.atomic():
                    posting = Posting.objects.create(
                        key=key,
                        reason=reason,
                        user=user,
                        game=game,
                        order=order,
                        adjustment=adjustment,
                        detail=detail or {},
                        created_by=created_by,
                    )
            except IntegrityError:
                existing = _posted(key, reason)
                if existing is None:
                    raise
                return PostingResult(existing, False)
            Entry.objects.bulk_create(
                Entry(
                    posting=posting,
                    account_id=pk,
                    currency=locked[pk].currency,
                    good_id=locked[pk].good_id,
                    amount=n,
                )
                for pk, n in sorted(amounts.items())
            )
            for pk, n in sorted(amounts.items()):
                Account.objects.filter(pk=pk).update(balance=F("balance") + n)
            involved = {a.user_id for a in locked.values() if a.user_id is not None}
            involved |= set(parties)
            if user is not None:
                involved.add(user.pk)
            Party.objects.bulk_create(Party(posting=posting, user_id=u) for u in sorted(involved))
    log.debug("posted %s (%s)", key, reason)
    return PostingResult(posting, True)


def _posted(key: str, reason: str) -> Posting | None:
    posting = Posting.objects.filter(key=key).first()
    if posting is not None and posting.reason != reason:
        raise LedgerError("key_reused", f"Key {key} was already used for a {posting.reason}.")
    return posting


def _check_shape(reason: str, lines: list[tuple[Account, int]]) -> None:
    """What no posting may ever do, whoever asks."""
    allowed = SYSTEM_ACCOUNTS_FOR[Reason(reason)]
    for account, _n in lines:
        if account.kind != Kind.PLAYER and account.kind not in allowed:
            raise LedgerError(
                "wrong_account", f"A {reason} posting may not touch the {account.kind} account."
            )
    paying = {a.user_id for a, n in lines if a.kind == Kind.PLAYER and n < 0}
    paid = {a.user_id for a, n in lines if a.kind == Kind.PLAYER and n > 0}
    if paying and paid - paying:
        # Value goes from players to players only through a table's pot (a game's settlement).
        raise LedgerError(
            "no_transfers", _("Value never passes from one player to another directly.")
        )


def _insufficient(account: Account, needed: int) -> InsufficientFunds:
    unit = (account.currency, account.good_id)
    if account.kind != Kind.PLAYER:
        return InsufficientFunds("insufficient", f"{account.code} cannot pay {needed}.")
    return InsufficientFunds(
        "insufficient",
        _("Not enough: this needs %(needed)s and you have %(have)s.")
        % {"needed": amount_text(unit, needed), "have": amount_text(unit, account.balance)},
    )


# --- getting play money ------------------------------------------------------------------------


def signup_grant(*, user: Any) -> Posting | None:
    """The sign-up grant (settings LEDGER_SIGNUP_DOLLARS and _BOOKS), once per player."""
    grants = {DOLLARS: settings.LEDGER_SIGNUP_DOLLARS, BOOKS: settings.LEDGER_SIGNUP_BOOKS}
    lines = _grant_lines(user.pk, grants)
    if not lines:
        return None
    return posting_make(
        key=f"signup:{user.pk}", reason=Reason.SIGNUP, lines=lines, user=user
    ).posting


def _grant_lines(user_id: int, grants: dict[Unit, int]) -> list[Line]:
    lines = []
    for unit, amount in grants.items():
        if amount > 0:
            lines.append(Line(player_account(user_id, unit), amount))
            lines.append(Line(system_account(Kind.GRANTS, unit), -amount))
    return lines


def player_zone(user: Any) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(getattr(user, "time_zone", None) or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def allowance_day(user: Any, now: dt.datetime | None = None) -> dt.date:
    """Today, in the player's own time zone."""
    return (now or timezone.now()).astimezone(player_zone(user)).date()


def last_allowance_day(user: Any) -> dt.date | None:
    key = (
        Posting.objects.filter(reason=Reason.ALLOWANCE, user=user)
        .order_by("-pk")
        .values_list("key", flat=True)
        .first()
    )
    return dt.date.fromisoformat(key.rsplit(":", 1)[1]) if key else None


def next_allowance_at(user: Any, now: dt.datetime | None = None) -> dt.datetime:
    """When the player may next claim: now, or the next midnight in their time zone after the
    last day they claimed."""
    now = now or timezone.now()
    last = last_allowance_day(user)
    if last is None or last < allowance_day(user, now):
        return now
    day = last + dt.timedelta(days=1)
    zone = player_zone(user)
    return dt.datetime(day.year, day.month, day.day, tzinfo=zone).astimezone(dt.UTC)


def allowance_claim(*, user: Any, now: dt.datetime | None = None) -> Posting:
    """Pay the daily allowance: once per calendar day in the player's time zone.

    A day already claimed (or earlier than the last day claimed, after a change of time zone)
    raises `AlreadyClaimed`; two claims at the same moment pay once (the key holds the day).
    """
    now = now or timezone.now()
    grants = {DOLLARS: settings.LEDGER_ALLOWANCE_DOLLARS, BOOKS: settings.LEDGER_ALLOWANCE_BOOKS}
    lines = _grant_lines(user.pk, grants)
    if not lines:
        raise LedgerError("no_allowance", _("There is no daily allowance at the moment."))
    day = allowance_day(user, now)
    last = last_allowance_day(user)
    if last is None or day > last:
        result = posting_make(
            key=f"allowance:{user.pk}:{day.isoformat()}",
            reason=Reason.ALLOWANCE,
            lines=lines,
            user=user,
            created_by=user,
        )
        if result.created:
            return result.posting
    raise AlreadyClaimed(
        _("You have already claimed today's allowance. Come back tomorrow."),
        next_allowance_at(user, now),
    )


# --- the Commissary ----------------------------------------------------------------------------


def commissary_buy(*, user: Any, good_id: object, quantity: object, token: object) -> StoreOrder:
    """Buy `quantity` of a good with money on the books, into the player's locker.

    `token` is the order form's own: the same form sent twice buys once.
    """
    quantity = whole_number(quantity, field="quantity", minimum=1, maximum=MAX_ORDER)
    good = _good(good_id)
    if not isinstance(token, uuid.UUID):
        raise LedgerError("bad_form", _("Please reload the page and try again."))
    with transaction.atomic():
        done = StoreOrder.objects.filter(user=user, token=token).first()
        if done is not None:
            return _same_order(done, good, quantity)
        if not good.in_stock:
            raise LedgerError(
                "out_of_stock",
                _("%(good)s is out of stock at the Commissary.") % {"good": good},
                field="good",
            )
        total = good.price * quantity
        try:
            with transaction.atomic():
                order = StoreOrder.objects.create(
                    user=user,
                    good=good,
                    quantity=quantity,
                    unit_price=good.price,
                    total=total,
                    token=token,
                )
        except IntegrityError:
            return _same_order(StoreOrder.objects.get(user=user, token=token), good, quantity)
        unit = good_unit(good.pk)
        try:
            posting_make(
                key=f"order:{order.pk}",
                reason=Reason.PURCHASE,
                lines=[
                    Line(player_account(user.pk, BOOKS), -total),
                    Line(system_account(Kind.STORE, BOOKS), total),
                    Line(system_account(Kind.STORE, unit), -quantity),
                    Line(player_account(user.pk, unit), quantity),
                ],
                user=user,
                order=order,
                created_by=user,
                detail={"good": good.pk, "quantity": quantity, "price": good.price},
            )
        except InsufficientFunds as exc:
            have = player_account(user.pk, BOOKS).balance
            raise InsufficientFunds(
                "insufficient",
                _("Not enough on your books: %(goods)s cost %(total)s and you have %(have)s.")
                % {
                    "goods": amount_text(unit, quantity, {good.pk: good}),
                    "total": amount_text(BOOKS, total),
                    "have": amount_text(BOOKS, have),
                },
                field="quantity",
            ) from exc
    return order


def _same_order(order: StoreOrder, good: Good, quantity: int) -> StoreOrder:
    """The order this form already placed; a different order on a used form is refused."""
    if (order.good_id, order.quantity) != (good.pk, quantity):
        raise LedgerError("bad_form", _("Please reload the page and try again."))
    return order


# --- staff adjustments -------------------------------------------------------------------------


def adjustment_make(
    *,
    staff: Any,
    user: Any,
    currency: object,
    good_id: object = None,
    amount: object,
    reason: object,
    token: uuid.UUID | None = None,
) -> Adjustment:
    """A staff member corrects a player's balance, against the house, saying why."""
    if not (getattr(staff, "is_active", False) and getattr(staff, "is_staff", False)):
        raise LedgerError("not_staff", _("Only staff make adjustments."))
    if user is None or not getattr(user, "pk", None):
        raise LedgerError("no_player", _("Choose the player to adjust."), field="user")
    if user.pk == staff.pk:
        raise LedgerError(
            "own_account",
            _("Staff never adjust their own balance: ask another staff member."),
            field="user",
        )
    reason = reason.strip() if isinstance(reason, str) else ""
    if not reason:
        raise LedgerError("no_reason", _("Say why: an adjustment needs a reason."), field="reason")
    if currency not in Currency.values:
        raise LedgerError("bad_currency", _("Choose what to adjust."), field="unit")
    if type(amount) is not int:
        raise LedgerError(
            "bad_amount", _("Amounts are whole numbers, with no fractions."), field="amount"
        )
    if amount == 0 or abs(amount) > MAX_ADJUSTMENT:
        raise LedgerError(
            "bad_amount",
            _("An adjustment is a whole number from 1 to %(n)s, or down to -%(n)s.")
            % {"n": MAX_ADJUSTMENT},
            field="amount",
        )
    unit: Unit
    if currency == Currency.GOODS:
        unit = good_unit(_good(good_id, field="unit").pk)
    else:
        unit = (str(currency), None)
    token = token or uuid.uuid4()
    with transaction.atomic():
        done = Adjustment.objects.filter(token=token).first()
        if done is not None:
            return done
        adjustment = Adjustment.objects.create(
            user=user,
            currency=unit[0],
            good_id=unit[1],
            amount=amount,
            reason=reason,
            made_by=staff,
            token=token,
        )
        posting_make(
            key=f"adjustment:{adjustment.pk}",
            reason=Reason.ADJUSTMENT,
            lines=[
                Line(player_account(user.pk, unit), amount),
                Line(system_account(Kind.HOUSE, unit), -amount),
            ],
            user=user,
            adjustment=adjustment,
            created_by=staff,
            detail={"reason": reason},
        )
    log.info("adjustment %s by %s: %s %+d (%s)", adjustment.pk, staff.pk, user.pk, amount, reason)
    return adjustment


# --- stakes ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StakeSpec:
    """What a new table is played for: Dollars, or a canteen bundle of (good id, quantity)."""

    dollars: int = 0
    bundle: tuple[tuple[int, int], ...] = field(default_factory=tuple)

    @property
    def empty(self) -> bool:
        return not self.dollars and not self.bundle


def stake_spec_check(*, mode: str, spec: StakeSpec) -> StakeSpec:
    """The stake a table of `mode` may be played for, every part checked."""
    dollars = whole_number(spec.dollars, field="stake", minimum=0, maximum=MAX_STAKE)
    bundle: dict[int, int] = {}
    for good_id, quantity in spec.bundle:
        good = _good(good_id, field="canteen")
        qty = whole_number(quantity, field="canteen", minimum=0, maximum=MAX_BUNDLE_ITEM)
        if qty:
            bundle[good.pk] = bundle.get(good.pk, 0) + qty
    if mode in GYM_MODES and (dollars or bundle):
        raise LedgerError(
            "gym_no_money", _("Gym tables are played for a workout, not money."), field="stake"
        )
    if mode in CANTEEN_MODES and dollars:
        raise LedgerError(
            "canteen_only",
            _("Inmate tables are played for a canteen bet of goods, not Dollars."),
            field="stake",
        )
    if mode in DOLLAR_MODES and bundle:
        raise LedgerError(
            "dollars_only",
            _("Canteen bets are for Inmate tables; this mode is played for Dollars."),
            field="canteen",
        )
    if any(q > MAX_BUNDLE_ITEM for q in bundle.values()):
        raise LedgerError(
            "bad_amount",
            _("The largest amount here is %(n)s.") % {"n": MAX_BUNDLE_ITEM},
            field="canteen",
        )
    return StakeSpec(dollars=dollars, bundle=tuple(sorted(bundle.items())))


def stake_set(*, table: Table, spec: StakeSpec | None) -> TableStake | None:
    """Record what a new table is played for; the host (in seat 0) must cover it too."""
    if spec is None:
        return None
    spec = stake_spec_check(mode=table.mode, spec=spec)
    if spec.empty:
        return None
    stake = TableStake.objects.create(
        table=table,
        kind=StakeKind.DOLLARS if spec.dollars else StakeKind.CANTEEN,
        dollars=spec.dollars,
    )
    StakeItem.objects.bulk_create(
        StakeItem(stake=stake, good_id=g, quantity=q) for g, q in spec.bundle
    )
    try:
        stake_check_cover(table=table, user=table.host)
    except NotCovered as exc:
        exc.field = "stake" if spec.dollars else "canteen"
        raise
    return stake


def stake_units(table: Table) -> dict[Unit, int]:
    """What each player puts in the pot: {unit: amount}; empty when played for nothing."""
    stake = TableStake.objects.filter(table=table).prefetch_related("items").first()
    if stake is None:
        return {}
    if stake.kind == StakeKind.DOLLARS:
        return {DOLLARS: stake.dollars}
    return {good_unit(item.good_id): item.quantity for item in stake.items.all()}


def skunk_reserve(table: Table) -> bool:
    """Whether a skunk can happen at this table (house modes: yes; Fives and Threes: no).

    Where it can, each player needs twice the stake to sit, and the second stake is held as a
    skunk reserve when the game starts, so a skunked loser can always pay.
    """
    return TableSettings.from_dict(table.settings).skunk_line is not None


def cover_needed(table: Table) -> dict[Unit, int]:
    """What a player must hold to sit: twice the stake where a skunk owes double."""
    stake = stake_units(table)
    if not stake:
        return {}
    factor = 2 if skunk_reserve(table) else 1
    return {unit: amount * factor for unit, amount in stake.items()}


def stake_check_cover(*, table: Table, user: Any) -> None:
    """Raise `NotCovered`, saying what is missing, unless `user` holds enough to sit."""
    needed = cover_needed(table)
    if not needed:
        return
    held = _balances(user.pk, needed)
    short = {unit: n for unit, n in needed.items() if held.get(unit, 0) < n}
    if not short:
        return
    goods = {g.pk: g for g in Good.objects.filter(pk__in=[u[1] for u in needed if u[1]])}
    have = {unit: held.get(unit, 0) for unit in needed}
    words = {
        "needed": amounts_text(needed, goods),
        "have": amounts_text(have, goods),
        "name": getattr(user, "display_name", "") or str(user),
    }
    if skunk_reserve(table):
        message = _(
            "%(name)s needs %(needed)s to sit here: twice the stake, because a skunk owes "
            "double. %(name)s has %(have)s."
        )
    else:
        message = _("%(name)s needs %(needed)s to sit here (the stake). %(name)s has %(have)s.")
    raise NotCovered("cannot_cover", message % words)


def _balances(user_id: int, units: Iterable[Unit]) -> dict[Unit, int]:
    wanted = list(units)
    rows = Account.objects.filter(kind=Kind.PLAYER, user_id=user_id).filter(
        currency__in={u[0] for u in wanted}
    )
    return {(a.currency, a.good_id): a.balance for a in rows}


def hold_key(game_id: int) -> str:
    return f"game:{game_id}:hold"


def settle_key(game_id: int) -> str:
    return f"game:{game_id}:settle"


def refund_key(game_id: int) -> str:
    return f"game:{game_id}:refund"


def game_stake_hold(*, game: Game) -> Posting | None:
    """At the start of a staked game, move each player's stake into the table's pot (and, where
    a skunk can happen, a second stake into the skunk reserve). One posting: all or nothing."""
    table = game.table
    stake = stake_units(table)
    if not stake:
        return None
    reserve = skunk_reserve(table)
    players = [int(p) for p in game.players]
    lines: list[Line] = []
    for unit, amount in stake.items():
        for user_id in players:
            lines.append(Line(player_account(user_id, unit), -amount * (2 if reserve else 1)))
        lines.append(Line(table_account(Kind.POT, table.pk, unit), amount * len(players)))
        if reserve:
            lines.append(Line(table_account(Kind.RESERVE, table.pk, unit), amount * len(players)))
    try:
        result = posting_make(
            key=hold_key(game.pk),
            reason=Reason.HOLD,
            lines=lines,
            game=game,
            parties=players,
            detail={
                "stake": {unit_key(u): n for u, n in stake.items()},
                "reserve": reserve,
                "players": players,
            },
        )
    except InsufficientFunds:
        # Someone spent it since sitting down: say who, and what is needed.
        from accounts.models import User

        for user in User.objects.filter(pk__in=players).order_by("pk"):
            stake_check_cover(table=table, user=user)
        raise
    return result.posting


def _locked_pots(table_id: int) -> None:
    """Lock the table's pot and reserve accounts: settlement and refund of one game exclude
    each other (both empty the pot; only one may ever run)."""
    list(
        Account.objects.select_for_update()
        .filter(table_id=table_id, kind__in=TABLE_KINDS)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def _hold_of(game: Game) -> Posting | None:
    return Posting.objects.filter(key=hold_key(game.pk)).first()


def prize_shares(prize: int, winners: Sequence[int]) -> dict[int, int]:
    """Split a prize evenly between the winning seats; the remainder goes to the first of them
    in seat order.

    >>> prize_shares(29, [3, 1])
    {1: 15, 3: 14}
    """
    seats = sorted(winners)
    share, remainder = divmod(prize, len(seats))
    return {seat: share + (remainder if i == 0 else 0) for i, seat in enumerate(seats)}


def game_settle(*, game_id: int) -> Posting | None:
    """Pay a finished staked game: one posting under `game:<id>:settle`, paid at most once.

    The winning side takes the pot (split evenly between partners, any remainder to the first
    partner in seat order). Each player of a skunked losing side pays one more stake: their
    skunk reserve goes to the winners with the pot. Every other reserve goes back to its owner.
    A forfeit is a loss like any other (the engine names the winner). Returns None for a game
    played for nothing.
    """
    with transaction.atomic():
        game = Game.objects.select_related("table").get(pk=game_id)
        hold = _hold_of(game)
        if hold is None:
            return None
        _locked_pots(game.table_id)
        done = Posting.objects.filter(key=settle_key(game.pk)).first()
        if done is not None:
            return done
        if Posting.objects.filter(key=refund_key(game.pk)).exists():
            raise LedgerError("refunded", _("This game's stakes were refunded; nothing to pay."))
        if game.status != Game.Status.FINISHED or not game.result:
            raise LedgerError("not_finished", _("The game is not over yet."))
        table_settings = TableSettings.from_dict(game.table.settings)
        players = [int(p) for p in hold.detail["players"]]
        reserve = bool(hold.detail["reserve"])
        winner_side = int(game.result["winner"])
        skunked_sides = {int(s) for s in game.result.get("skunked") or []} - {winner_side}
        seats = range(len(players))
        winners = sorted(s for s in seats if table_settings.side_of(s) == winner_side)
        skunked = sorted(s for s in seats if table_settings.side_of(s) in skunked_sides)
        lines: list[Line] = []
        paid: dict[str, dict[str, int]] = {}
        for key, amount in hold.detail["stake"].items():
            unit = unit_from_key(key)
            pot = amount * len(players)
            extra = amount * len(skunked) if reserve else 0
            prize = pot + extra
            gets = dict.fromkeys(seats, 0)
            for seat, share in prize_shares(prize, winners).items():
                gets[seat] += share
            if reserve:
                for seat in seats:
                    if seat not in skunked:
                        gets[seat] += amount
            lines.append(Line(table_account(Kind.POT, game.table_id, unit), -pot))
            if reserve:
                lines.append(Line(table_account(Kind.RESERVE, game.table_id, unit), -pot))
            for seat, n in gets.items():
                if n:
                    lines.append(Line(player_account(players[seat], unit), n))
            paid[key] = {str(seat): n for seat, n in gets.items()}
        result = posting_make(
            key=settle_key(game.pk),
            reason=Reason.SETTLE,
            lines=lines,
            game=game,
            parties=players,
            detail={
                "winners": winners,
                "skunked": skunked,
                "forfeit": game.result.get("forfeit"),
                "paid": paid,
            },
        )
    return result.posting


def game_refund(*, game_id: int, by: Any = None, why: str = "aborted") -> Posting | None:
    """Give every stake of an aborted or voided game back, exactly: the hold, reversed.

    Refused once the game has been settled. Returns None for a game played for nothing.
    """
    with transaction.atomic():
        game = Game.objects.select_related("table").get(pk=game_id)
        hold = _hold_of(game)
        if hold is None:
            return None
        _locked_pots(game.table_id)
        done = Posting.objects.filter(key=refund_key(game.pk)).first()
        if done is not None:
            return done
        if Posting.objects.filter(key=settle_key(game.pk)).exists():
            raise LedgerError(
                "settled",
                _("This game was settled; correct it with an adjustment, not a refund."),
            )
        if game.status != Game.Status.ABORTED:
            raise LedgerError("not_aborted", _("Only an aborted or voided game is refunded."))
        lines = [
            Line(entry.account, -entry.amount) for entry in hold.entries.select_related("account")
        ]
        result = posting_make(
            key=refund_key(game.pk),
            reason=Reason.REFUND,
            lines=lines,
            game=game,
            parties=[int(p) for p in hold.detail["players"]],
            created_by=by,
            detail={"why": why},
        )
    return result.posting


# --- reconciliation ----------------------------------------------------------------------------


def reconcile_run() -> ReconciliationRun:
    """Check every cached balance against its entries, every posting's balance per unit, every
    entry's unit, and that no finished or aborted game still holds stakes. Lists each mismatch
    for staff (there should never be one)."""
    run = ReconciliationRun.objects.create()
    found: list[Mismatch] = []
    accounts = Account.objects.annotate(total=Coalesce(Sum("entries__amount"), 0))
    for account in accounts.exclude(balance=F("total")).iterator():
        found.append(
            Mismatch(
                run=run,
                problem=Mismatch.Problem.BALANCE,
                account=account,
                expected=account.total,
                found=account.balance,
                detail=f"{account.code}: cached {account.balance}, entries {account.total}",
            )
        )
    unbalanced = (
        Entry.objects.values("posting_id", "currency", "good_id")
        .annotate(total=Sum("amount"))
        .exclude(total=0)
        .order_by("posting_id")
    )
    for row in unbalanced:
        found.append(
            Mismatch(
                run=run,
                problem=Mismatch.Problem.UNBALANCED,
                posting_id=row["posting_id"],
                expected=0,
                found=row["total"],
                detail=f"posting {row['posting_id']}: "
                f"{unit_key((row['currency'], row['good_id']))} sums to {row['total']}",
            )
        )
    wrong_unit = Entry.objects.filter(
        ~Q(currency=F("account__currency"))
        | Q(currency=Currency.GOODS) & ~Q(good_id=F("account__good_id"))
    )
    for entry in wrong_unit.select_related("account").iterator():
        found.append(
            Mismatch(
                run=run,
                problem=Mismatch.Problem.WRONG_UNIT,
                posting_id=entry.posting_id,
                account=entry.account,
                detail=f"entry {entry.pk} is {entry.currency}/{entry.good_id}, "
                f"account {entry.account.code}",
            )
        )
    held = Posting.objects.filter(reason=Reason.HOLD).values_list("game_id", flat=True)
    closed = Posting.objects.filter(reason__in=[Reason.SETTLE, Reason.REFUND]).values_list(
        "game_id", flat=True
    )
    unsettled = Game.objects.filter(
        pk__in=held, status__in=[Game.Status.FINISHED, Game.Status.ABORTED]
    ).exclude(pk__in=closed)
    for game in unsettled:
        found.append(
            Mismatch(
                run=run,
                problem=Mismatch.Problem.UNSETTLED,
                game=game,
                detail=f"game {game.pk} is {game.status} and its stakes are still held",
            )
        )
    Mismatch.objects.bulk_create(found)
    run.accounts_checked = Account.objects.count()
    run.postings_checked = Posting.objects.count()
    run.mismatch_count = len(found)
    run.finished_at = timezone.now()
    run.save(
        update_fields=["accounts_checked", "postings_checked", "mismatch_count", "finished_at"]
    )
    if found:
        log.error("ledger reconciliation %s: %d mismatch(es)", run.pk, len(found))
    else:
        log.info("ledger reconciliation %s: all %d accounts agree", run.pk, run.accounts_checked)
    return run
