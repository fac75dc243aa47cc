"""Entry fees and prizes: the only tournament code that moves value, all of it through the ledger.

Every movement is one ledger posting with an idempotency key, so a retried sweep or a second
request pays at most once:

- `tournament:<t>:entry:<e>:fee:<user>`: one player's entry fee, from their account into the
  house's tournament pot (reason `entry_fee`);
- `tournament:<t>:entry:<e>:refund:<user>`: that fee back, exactly (reason `fee_refund`);
- `tournament:<t>:prizes`: the whole pool from the pot to the prize winners (reason `prizes`).

An entry fee is Dominologist Dollars (Citizen, Fives, Threes events) or, for Inmate events, a
canteen entry: a bundle of Commissary goods. Partners each pay the fee. The prize pool is every
fee held and not refunded, paid out in full.

What this needs of the ledger (issue 7, being built in parallel): `ledger.services.posting_make`,
`Line`, `player_account`, `system_account`, `InsufficientFunds`, `LedgerError`, `good_unit`,
`unit_key`, `amounts_text`, `DOLLARS` (all there today), and, not there yet, the tournament's
side of it: an account kind `ledger.models.Kind.TOURNAMENT` (the house's tournament pot, one per
unit, never below zero), three reasons `Reason.ENTRY_FEE`, `Reason.FEE_REFUND` and
`Reason.PRIZES` whose postings may touch that pot (`SYSTEM_ACCOUNTS_FOR`) and which the
posting's reference constraint accepts (their reference is the tournament, in `detail`). Until
the ledger has all of it, `unavailable()` says what is missing, events with an entry fee cannot
be created or entered, and free events run as usual.
"""

from __future__ import annotations

import importlib
from collections import defaultdict
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

#: The largest entry fee in Dollars, and the most of one good in a canteen entry.
MAX_FEE = 100_000
MAX_CANTEEN_ITEM = 20

#: A unit of value as the ledger names it: (currency, good id or None).
Unit = tuple[str, int | None]

_NEEDED = (
    "posting_make",
    "Line",
    "player_account",
    "system_account",
    "InsufficientFunds",
    "LedgerError",
    "good_unit",
    "unit_key",
    "amounts_text",
    "DOLLARS",
)


#: The ledger's reasons for a tournament's postings.
REASONS = ("ENTRY_FEE", "FEE_REFUND", "PRIZES")


class MoneyError(Exception):
    """A refused movement (not enough to pay the fee, say): words for the player."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _modules() -> tuple[Any, Any] | None:
    try:
        services = importlib.import_module("ledger.services")
        models = importlib.import_module("ledger.models")
    except ImportError:
        return None
    return services, models


def unavailable() -> str | None:
    """Why tournament money can't move yet (in English, for logs and tests); None when it can."""
    found = _modules()
    if found is None:
        return "the ledger (ledger.services) is not installed yet"
    services, models = found
    missing = [name for name in _NEEDED if not hasattr(services, name)]
    if missing:
        return f"ledger.services lacks {', '.join(missing)}"
    if not hasattr(models.Kind, "TOURNAMENT"):
        return "the ledger has no tournament pot (ledger.models.Kind.TOURNAMENT)"
    allowed = getattr(services, "SYSTEM_ACCOUNTS_FOR", {})
    for reason in REASONS:
        if not hasattr(models.Reason, reason):
            return f"the ledger has no {reason.lower()} postings (ledger.models.Reason.{reason})"
        if models.Kind.TOURNAMENT not in allowed.get(getattr(models.Reason, reason), ()):
            return f"the ledger does not let a {reason.lower()} posting touch the tournament pot"
    return None


def _ledger() -> tuple[Any, Any]:
    reason = unavailable()
    if reason is not None:
        raise MoneyError(
            "no_ledger",
            _("Entry fees can't be taken until the house's books open; only free events for now."),
        )
    found = _modules()
    assert found is not None
    return found


def canteen_goods() -> list[tuple[int, str]]:
    """The Commissary goods a canteen entry can be made of: (id, name); none without a ledger."""
    found = _modules()
    if found is None or not hasattr(found[1], "Good"):
        return []
    return [(g.pk, str(g)) for g in found[1].Good.objects.order_by("position", "name")]


def goods_exist(good_ids: list[int]) -> bool:
    found = _modules()
    if found is None or not hasattr(found[1], "Good"):
        return False
    return found[1].Good.objects.filter(pk__in=good_ids).count() == len(set(good_ids))


# --- what an entry costs -----------------------------------------------------------------------


def fee_units(tournament: Any) -> dict[Unit, int]:
    """What one player pays to enter: {unit: amount}; empty for a free event."""
    if tournament.fee_kind == "dollars" and tournament.fee_dollars > 0:
        return {("dollars", None): int(tournament.fee_dollars)}
    if tournament.fee_kind == "canteen":
        return {
            ("goods", int(good)): int(qty)
            for good, qty in sorted(tournament.fee_canteen.items())
            if int(qty) > 0
        }
    return {}


def fee_text(tournament: Any) -> str:
    """The entry fee in words: "Free", "25 Dollars", "2 x Soup, 1 x Coffee"."""
    units = fee_units(tournament)
    if not units:
        return _("Free")
    found = _modules()
    if found is not None and hasattr(found[0], "amounts_text"):
        return str(found[0].amounts_text(units))
    if tournament.fee_kind == "dollars":
        return _("%(n)s Dollars") % {"n": tournament.fee_dollars}
    return ", ".join(f"{n} \N{MULTIPLICATION SIGN} #{good}" for (_c, good), n in units.items())


def amounts_text(amounts: dict[Unit, int]) -> str:
    found = _modules()
    if found is not None and hasattr(found[0], "amounts_text"):
        return str(found[0].amounts_text(amounts))
    return ", ".join(str(n) for n in amounts.values())


def fee_key(tournament_id: int, entry_id: int, user_id: int) -> str:
    return f"tournament:{tournament_id}:entry:{entry_id}:fee:{user_id}"


def refund_key(tournament_id: int, entry_id: int, user_id: int) -> str:
    return f"tournament:{tournament_id}:entry:{entry_id}:refund:{user_id}"


def prizes_key(tournament_id: int) -> str:
    return f"tournament:{tournament_id}:prizes"


def _unit(services: Any, unit: Unit) -> Any:
    return services.DOLLARS if unit[0] == "dollars" else services.good_unit(unit[1])


# --- moving it ---------------------------------------------------------------------------------


def fee_hold(*, tournament: Any, entry: Any, user: Any) -> bool:
    """Hold `user`'s entry fee in the tournament pot (once per entry and player). Returns False
    for a free event. Raises MoneyError (saying what is missing) when they cannot pay."""
    units = fee_units(tournament)
    if not units:
        return False
    services, models = _ledger()
    lines = []
    for unit, amount in units.items():
        ledger_unit = _unit(services, unit)
        lines.append(services.Line(services.player_account(user.pk, ledger_unit), -amount))
        lines.append(
            services.Line(services.system_account(models.Kind.TOURNAMENT, ledger_unit), amount)
        )
    try:
        services.posting_make(
            key=fee_key(tournament.pk, entry.pk, user.pk),
            reason=models.Reason.ENTRY_FEE,
            lines=lines,
            user=user,
            created_by=user,
            detail={
                "tournament": tournament.pk,
                "entry": entry.pk,
                "fee": {services.unit_key(_unit(services, u)): n for u, n in units.items()},
            },
        )
    except services.InsufficientFunds as exc:
        raise MoneyError(
            "insufficient",
            _("The entry fee is %(fee)s: %(why)s")
            % {"fee": fee_text(tournament), "why": exc.message},
        ) from exc
    except services.LedgerError as exc:
        raise MoneyError(exc.code, exc.message) from exc
    return True


def fee_refund(*, tournament: Any, entry: Any, user: Any, by: Any = None) -> bool:
    """Give `user`'s held fee for `entry` back, exactly (at most once). Returns whether there was
    a fee to give back. Refused once the prizes are paid (the pool is gone)."""
    found = _modules()
    if found is None or unavailable() is not None:
        return False
    services, models = found
    with transaction.atomic():
        hold = models.Posting.objects.filter(key=fee_key(tournament.pk, entry.pk, user.pk)).first()
        if hold is None:
            return False
        if models.Posting.objects.filter(key=prizes_key(tournament.pk)).exists():
            raise MoneyError("prizes_paid", _("The prizes are paid: no fee can be given back."))
        lines = [
            services.Line(e.account, -e.amount) for e in hold.entries.select_related("account")
        ]
        services.posting_make(
            key=refund_key(tournament.pk, entry.pk, user.pk),
            reason=models.Reason.FEE_REFUND,
            lines=lines,
            user=user,
            created_by=by,
            detail={"tournament": tournament.pk, "entry": entry.pk},
        )
    return True


def fee_state(*, tournament: Any, entry: Any, user: Any) -> str:
    """ "held", "refunded" or "none": where this player's fee for this entry stands."""
    found = _modules()
    if found is None or not hasattr(found[1], "Posting"):
        return "none"
    keys = set(
        found[1]
        .Posting.objects.filter(
            key__in=[
                fee_key(tournament.pk, entry.pk, user.pk),
                refund_key(tournament.pk, entry.pk, user.pk),
            ]
        )
        .values_list("key", flat=True)
    )
    if refund_key(tournament.pk, entry.pk, user.pk) in keys:
        return "refunded"
    return "held" if keys else "none"


def pool(*, tournament: Any) -> dict[Unit, int]:
    """The prize pool: every fee held for this event and not given back, by unit."""
    found = _modules()
    if found is None or unavailable() is not None:
        return {}
    _services, models = found
    prefix = f"tournament:{tournament.pk}:entry:"
    totals: dict[Unit, int] = defaultdict(int)
    rows = models.Entry.objects.filter(
        posting__key__startswith=prefix, account__kind=models.Kind.TOURNAMENT
    ).values_list("currency", "good_id", "amount")
    for currency, good_id, amount in rows:
        totals[(str(currency), good_id)] += int(amount)
    return {unit: n for unit, n in totals.items() if n}


def prizes_pay(*, tournament: Any, shares: dict[int, dict[Unit, int]]) -> bool:
    """Pay the prizes: {user id: {unit: amount}}, the whole pool, in one posting, once.

    Returns False when there is nothing to pay (a free event, or no fees held)."""
    total: dict[Unit, int] = defaultdict(int)
    for amounts in shares.values():
        for unit, n in amounts.items():
            total[unit] += n
    total = {u: n for u, n in total.items() if n}
    if not total:
        return False
    services, models = _ledger()
    held = pool(tournament=tournament)
    if total != held:
        raise MoneyError("not_the_pool", f"prizes {dict(total)} are not the pool {held}")
    lines = []
    for unit, amount in total.items():
        ledger_unit = _unit(services, unit)
        lines.append(
            services.Line(services.system_account(models.Kind.TOURNAMENT, ledger_unit), -amount)
        )
    for user_id, amounts in sorted(shares.items()):
        for unit, n in amounts.items():
            if n:
                lines.append(
                    services.Line(services.player_account(user_id, _unit(services, unit)), n)
                )
    services.posting_make(
        key=prizes_key(tournament.pk),
        reason=models.Reason.PRIZES,
        lines=lines,
        parties=sorted(shares),
        detail={
            "tournament": tournament.pk,
            "prizes": {
                str(user_id): {services.unit_key(_unit(services, u)): n for u, n in a.items() if n}
                for user_id, a in shares.items()
            },
        },
    )
    return True
