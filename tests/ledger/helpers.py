"""Ledger test helpers: balances, staked games at any stage, and the ledger's invariants."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ledger import services
from ledger.models import Account, Entry, Good, Kind, Posting
from ledger.services import BOOKS, DOLLARS, StakeSpec, good_unit
from tables import services as tables
from tables.models import Game, Table

NAMES = ["Alice", "Bob", "Carol", "Dave"]


def balance(user: Any, unit: services.Unit = DOLLARS) -> int:
    account = Account.objects.filter(kind=Kind.PLAYER, user=user, currency=unit[0], good_id=unit[1])
    return account.values_list("balance", flat=True).first() or 0


def dollars(user: Any) -> int:
    return balance(user, DOLLARS)


def books(user: Any) -> int:
    return balance(user, BOOKS)


def goods(user: Any, good: Good) -> int:
    return balance(user, good_unit(good.pk))


def give(user: Any, unit: services.Unit, amount: int, staff: Any) -> None:
    """Set up a balance the way staff would: an adjustment against the house."""
    services.adjustment_make(
        staff=staff,
        user=user,
        currency=unit[0],
        good_id=unit[1],
        amount=amount,
        reason="test set-up",
    )


def take_all(user: Any, unit: services.Unit, staff: Any) -> None:
    have = balance(user, unit)
    if have:
        give(user, unit, -have, staff)


@dataclass
class Staked:
    table: Table
    game: Game
    players: list[Any]


def open_table(
    players: list[Any], *, mode: str = "citizen", stake: StakeSpec | None = None, **options: Any
) -> Table:
    options.setdefault("players", max(2, len(players)))
    table = tables.table_create(host=players[0], mode=mode, stake=stake, **options)
    for number, player in enumerate(players[1:], start=1):
        tables.seat_take(table_id=table.pk, user=player, number=number)
    return table


def start(table: Table, players: list[Any]) -> Game:
    for player in players:
        tables.seat_ready(table_id=table.pk, user=player, ready=True)
    return Game.objects.get(table=table)


def staked_game(
    players: list[Any], *, mode: str = "citizen", stake: StakeSpec | None = None, **options: Any
) -> Staked:
    table = open_table(players, mode=mode, stake=stake or StakeSpec(dollars=10), **options)
    game = start(table, players)
    assert game.status == Game.Status.PLAYING
    return Staked(table=table, game=game, players=players)


def finish(game: Game, *, winner: int, skunked: list[int] = (), forfeit: int | None = None) -> None:  # type: ignore[assignment]
    """End a game with a given result, as the engine would have recorded it."""
    result = {
        "winner": winner,
        "skunked": list(skunked),
        "forfeit": forfeit,
        "reason": "forfeit" if forfeit is not None else "target",
        "workouts": None,
    }
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, result=result)
    Table.objects.filter(pk=game.table_id).update(status=Table.Status.FINISHED)


def assert_books_balance() -> None:
    """The ledger's invariants: every posting balances per unit, cached balances equal their
    entries, no player account or pot is negative, and every unit sums to zero overall."""
    from collections import defaultdict

    per_posting: dict[tuple[int, str, int | None], int] = defaultdict(int)
    per_account: dict[int, int] = defaultdict(int)
    for entry in Entry.objects.all():
        per_posting[(entry.posting_id, entry.currency, entry.good_id)] += entry.amount
        per_account[entry.account_id] += entry.amount
    assert all(v == 0 for v in per_posting.values()), per_posting
    overall: dict[tuple[str, int | None], int] = defaultdict(int)
    for account in Account.objects.all():
        assert account.balance == per_account.get(account.pk, 0), account.code
        if account.kind not in (Kind.HOUSE, Kind.GRANTS, Kind.STORE):
            assert account.balance >= 0, account.code
        overall[(account.currency, account.good_id)] += account.balance
    assert all(v == 0 for v in overall.values()), overall
    assert Posting.objects.filter(entries__isnull=True).count() == 0
