"""Read models of the ledger: a player's locker and history, a table's stake, the store."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Prefetch, QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from engine import TableSettings
from ledger.models import Account, Currency, Entry, Good, Kind, Posting, Reason, TableStake
from ledger.services import (
    BOOKS,
    DOLLARS,
    Unit,
    amount_parts,
    amount_text,
    amounts_text,
    good_unit,
    hold_key,
    next_allowance_at,
    settle_key,
)
from tables.models import Game, Table

# --- a player's locker -----------------------------------------------------------------------


@dataclass
class Holding:
    good: Good
    quantity: int


@dataclass
class Locker:
    dollars: int
    books: int
    goods: list[Holding]


def locker_of(user: Any) -> Locker:
    rows = Account.objects.filter(kind=Kind.PLAYER, user=user).select_related("good")
    dollars = books = 0
    goods = []
    for account in rows:
        if account.currency == Currency.DOLLARS:
            dollars = account.balance
        elif account.currency == Currency.BOOKS:
            books = account.balance
        elif account.balance and account.good is not None:
            goods.append(Holding(account.good, account.balance))
    goods.sort(key=lambda h: (h.good.position, h.good.name))
    return Locker(dollars=dollars, books=books, goods=goods)


def balances_of(user_id: int) -> dict[Unit, int]:
    rows = Account.objects.filter(kind=Kind.PLAYER, user_id=user_id)
    return {(a.currency, a.good_id): a.balance for a in rows}


@dataclass
class Claim:
    """The daily allowance, as the locker page shows it."""

    available: bool
    next_at: dt.datetime
    wait_seconds: int


def claim_of(user: Any, now: dt.datetime | None = None) -> Claim:
    now = now or timezone.now()
    next_at = next_allowance_at(user, now)
    wait = max(0, int((next_at - now).total_seconds()))
    return Claim(available=wait == 0, next_at=next_at, wait_seconds=wait)


def allowance_text() -> str:
    """The daily allowance, in words."""
    amounts = {DOLLARS: settings.LEDGER_ALLOWANCE_DOLLARS, BOOKS: settings.LEDGER_ALLOWANCE_BOOKS}
    return amounts_text({u: n for u, n in amounts.items() if n > 0})


def wait_text(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes = (rest + 59) // 60
    if minutes == 60:
        hours, minutes = hours + 1, 0
    return _("%(h)s h %(m)s min") % {"h": hours, "m": minutes}


# --- history -----------------------------------------------------------------------------------


def history_of(user: Any) -> QuerySet[Posting]:
    """Every posting that concerns the player, newest first."""
    return (
        Posting.objects.filter(parties__user=user)
        .select_related("game", "order__good", "adjustment")
        .prefetch_related(
            Prefetch(
                "entries",
                queryset=Entry.objects.filter(account__user=user).select_related("good"),
                to_attr="own_entries",
            )
        )
        .order_by("-created_at", "-pk")
    )


@dataclass
class HistoryRow:
    posting: Posting
    what: str
    changes: list[tuple[str, int, Good | None]] = field(default_factory=list)
    """Each change: its amount in words, signed, and its good (drawn beside the words)."""
    game_url: str | None = None
    note: str = ""


def history_rows(postings: Iterable[Posting], user: Any) -> list[HistoryRow]:
    rows = []
    for posting in postings:
        changes = [
            (
                amount_text((e.currency, e.good_id), abs(e.amount), _goods_of([e])),
                e.amount,
                e.good if e.good_id else None,
            )
            for e in getattr(posting, "own_entries", [])
        ]
        game_url = (
            reverse("tables:table", args=[posting.game.table_id])
            if posting.game is not None
            else None
        )
        rows.append(
            HistoryRow(
                posting=posting,
                what=posting_text(posting, user),
                changes=changes,
                game_url=game_url,
                note="" if changes else _nothing_back(posting, user),
            )
        )
    return rows


def _nothing_back(posting: Posting, user: Any) -> str:
    """Why a settlement paid this player nothing: what they had put in went to the winners."""
    if _seat_role(posting, user) == "skunked":
        return _("Nothing back: your stake and your skunk reserve went to the winners.")
    return _("Nothing back: your stake went to the winners.")


def _seat_role(posting: Posting, user: Any) -> str:
    """`winner`, `skunked` or `loser` in the game a settlement paid."""
    detail = posting.detail or {}
    players = [int(p) for p in (posting.game.players if posting.game is not None else []) or []]
    seat = players.index(user.pk) if user.pk in players else None
    if seat is not None and seat in detail.get("winners", []):
        return "winner"
    if seat is not None and seat in detail.get("skunked", []):
        return "skunked"
    return "loser"


def _goods_of(entries: Iterable[Entry]) -> dict[int, Good]:
    return {e.good_id: e.good for e in entries if e.good_id and e.good is not None}


def posting_text(posting: Posting, user: Any) -> str:
    """What a posting was for, in the reader's words."""
    reason = posting.reason
    if reason == Reason.SIGNUP:
        return _("Welcome grant for signing up")
    if reason == Reason.ALLOWANCE:
        day = dt.date.fromisoformat(posting.key.rsplit(":", 1)[1])
        return _("Daily allowance for %(day)s") % {"day": date_format(day, "DATE_FORMAT")}
    if reason == Reason.PURCHASE and posting.order is not None:
        order = posting.order
        return _("Bought %(goods)s at the Commissary") % {
            "goods": amount_text(
                good_unit(order.good_id), order.quantity, {order.good_id: order.good}
            )
        }
    if reason == Reason.ADJUSTMENT and posting.adjustment is not None:
        return _("Staff adjustment: %(reason)s") % {"reason": posting.adjustment.reason}
    number = posting.game.table_id if posting.game is not None else "?"
    if reason == Reason.HOLD:
        return _("Stake held for the game at table %(n)s") % {"n": number}
    if reason == Reason.REFUND:
        return _("Stake refunded: the game at table %(n)s was called off") % {"n": number}
    if reason == Reason.SETTLE:
        role = _seat_role(posting, user)
        if role == "winner":
            return _("Won the game at table %(n)s") % {"n": number}
        if role == "skunked":
            return _("Skunked in the game at table %(n)s: paid one more stake") % {"n": number}
        return _("Lost the game at table %(n)s") % {"n": number}
    return str(Reason(reason).label)


# --- a table's stake -----------------------------------------------------------------------------


STAKE_FILTERS = [
    ("", gettext_lazy("Any stake")),
    ("none", gettext_lazy("No stake")),
    ("dollars", gettext_lazy("Dominologist Dollars")),
    ("canteen", gettext_lazy("Canteen bets")),
    ("covered", gettext_lazy("Stakes I can cover")),
]


def tables_by_stake(tables: QuerySet[Table], value: str) -> QuerySet[Table]:
    """Narrow the lobby's tables by the stake filter (`covered` is applied to the rows)."""
    tables = tables.select_related("stake").prefetch_related("stake__items__good")
    if value == "none":
        return tables.filter(stake__isnull=True)
    if value in ("dollars", "canteen"):
        return tables.filter(stake__kind=value)
    return tables


@dataclass
class StakeView:
    kind: str  # "dollars", "canteen", "workout" or "none"
    stake: dict[Unit, int]
    reserve: bool
    goods: dict[int, Good]

    @property
    def text(self) -> str:
        if self.kind == "workout":
            return _("Played for a workout")
        if self.kind == "none":
            return _("No stake")
        return amounts_text(self.stake, self.goods)

    @property
    def parts(self) -> list[tuple[Good | None, str]]:
        """The stake as `text` says it, one amount at a time with its good: the page draws the
        good's icon beside its words (`{% good_icon %}`); empty with no stake."""
        return amount_parts(self.stake, self.goods)

    @property
    def label(self) -> str:
        return _("Canteen bet") if self.kind == "canteen" else _("Stake")

    @property
    def needed(self) -> dict[Unit, int]:
        factor = 2 if self.reserve else 1
        return {u: n * factor for u, n in self.stake.items()}

    @property
    def needed_text(self) -> str:
        return amounts_text(self.needed, self.goods)

    @property
    def skunk_text(self) -> str:
        if not self.stake:
            return ""
        if not self.reserve:
            return _("No skunks in this mode: the most you can lose is the stake.")
        return _("A skunk costs one more stake: %(amount)s more, %(total)s in all.") % {
            "amount": self.text,
            "total": self.needed_text,
        }

    def covered_by(self, balances: dict[Unit, int]) -> bool:
        return all(balances.get(u, 0) >= n for u, n in self.needed.items())

    def pot_text(self, players: int) -> str:
        return amounts_text({u: n * players for u, n in self.stake.items()}, self.goods)


def stake_view(table: Table) -> StakeView:
    """What the table is played for, with what sitting needs and what a skunk costs."""
    try:
        stake: TableStake | None = table.stake  # type: ignore[attr-defined]
    except ObjectDoesNotExist:
        stake = None
    reserve = TableSettings.from_dict(table.settings).skunk_line is not None
    if stake is None:
        gym = table.mode in ("citizen_gym", "inmate_gym")
        return StakeView("workout" if gym else "none", {}, False, {})
    if stake.kind == "dollars":
        return StakeView("dollars", {DOLLARS: stake.dollars}, reserve, {})
    items = list(stake.items.all())
    return StakeView(
        "canteen",
        {good_unit(i.good_id): i.quantity for i in items},
        reserve,
        {i.good_id: i.good for i in items},
    )


def pot_now(table: Table) -> dict[Unit, int]:
    """What the table's pot holds now (the skunk reserve apart)."""
    rows = Account.objects.filter(table=table, kind=Kind.POT).exclude(balance=0)
    return {(a.currency, a.good_id): a.balance for a in rows}


def pot_text(table: Table) -> str:
    """The pot, in words, while a game holds stakes; empty otherwise."""
    pot = pot_now(table)
    if not pot:
        return ""
    goods = {g.pk: g for g in Good.objects.filter(pk__in=[u[1] for u in pot if u[1]])}
    return amounts_text(pot, goods)


def settlement_of(game: Game) -> dict[str, Any] | None:
    """What each seat won or paid when the staked, finished `game` was settled: per seat, each
    unit's signed amount (what the settlement paid it, less the stake and skunk reserve held
    from it at the start). None before the settlement, and for a game played for nothing."""
    postings = {
        p.key: p for p in Posting.objects.filter(key__in=[hold_key(game.pk), settle_key(game.pk)])
    }
    hold, settle = postings.get(hold_key(game.pk)), postings.get(settle_key(game.pk))
    if hold is None or settle is None:
        return None
    players = len(hold.detail["players"])
    factor = 2 if hold.detail["reserve"] else 1
    net: list[dict[str, int]] = [{} for _ in range(players)]
    for unit, amount in hold.detail["stake"].items():
        paid = settle.detail["paid"].get(unit, {})
        for seat in range(players):
            net[seat][unit] = int(paid.get(str(seat), 0)) - amount * factor
    goods = [int(unit.removeprefix("good:")) for unit in hold.detail["stake"] if ":" in unit]
    units: dict[str, dict[str, Any]] = {
        unit: {"kind": unit} for unit in hold.detail["stake"] if ":" not in unit
    }
    for good in Good.objects.filter(pk__in=goods):
        units[f"good:{good.pk}"] = {"kind": "good", "name": good.name, "name_es": good.name_es}
    return {"units": units, "net": net}


def store_goods() -> list[Good]:
    return list(Good.objects.all())


def books_of(user: Any) -> int:
    return balances_of(user.pk).get(BOOKS, 0)
