"""The ledger: double-entry books of everything of value in the house (all of it play money).

An `Account` holds one unit: Dominologist Dollars, money on the books, or one Commissary good.
A `Posting` is one movement of value: its `Entry` rows add up to zero for every unit, it says why
(`reason`), what it refers to (a game, a store order, a staff adjustment, the player it was for)
and carries a unique idempotency `key`, so the same movement can never happen twice. Each account
caches its balance; players' accounts and table pots can never go below zero (a database
constraint). Entries and postings are never edited or deleted.

`ledger.services.posting_make` is the only writer of postings, entries and balances: the model
guards below refuse any other write.
"""

from __future__ import annotations

import contextlib
import contextvars
import uuid
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from tables.models import Game, Table


class Currency(models.TextChoices):
    DOLLARS = "dollars", _("Dominologist Dollars")
    BOOKS = "books", _("Money on the books")
    GOODS = "goods", _("Commissary goods")


class Kind(models.TextChoices):
    PLAYER = "player", _("Player")
    HOUSE = "house", _("House")
    POT = "pot", _("Table pot")
    RESERVE = "reserve", _("Skunk reserve")
    GRANTS = "grants", _("Grants and allowances")
    STORE = "store", _("Commissary store")
    TOURNAMENT = "tournament", _("Tournament pot")


#: System accounts: they issue value (grants), sell goods (store) or take adjustments (house),
#: so their balances run below zero by exactly what they have put into the game.
SYSTEM_KINDS = (Kind.HOUSE, Kind.GRANTS, Kind.STORE)
TABLE_KINDS = (Kind.POT, Kind.RESERVE)


class Reason(models.TextChoices):
    SIGNUP = "signup", _("Sign-up grant")
    ALLOWANCE = "allowance", _("Daily allowance")
    PURCHASE = "purchase", _("Commissary purchase")
    HOLD = "hold", _("Stake held")
    SETTLE = "settle", _("Game settled")
    REFUND = "refund", _("Stake refunded")
    ADJUSTMENT = "adjustment", _("Staff adjustment")
    ENTRY_FEE = "entry_fee", _("Tournament entry fee")
    FEE_REFUND = "fee_refund", _("Tournament entry refunded")
    PRIZES = "prizes", _("Tournament prizes")


class LedgerWriteRefused(Exception):
    """A write to the ledger from anywhere but `ledger.services.posting_make`."""


_posting = contextvars.ContextVar("ledger_posting", default=False)


@contextlib.contextmanager
def posting_allowed() -> Iterator[None]:
    """Only `ledger.services` enters this: inside it the ledger may be written."""
    token = _posting.set(True)
    try:
        yield
    finally:
        _posting.reset(token)


def _ensure_posting(what: str) -> None:
    if not _posting.get():
        raise LedgerWriteRefused(f"{what}: only ledger.services.posting_make writes the ledger.")


class Good(models.Model):
    """A Commissary good: staff keep the catalogue in admin."""

    name = models.CharField(_("name"), max_length=40, unique=True)
    name_es = models.CharField(
        _("name in Spanish"), max_length=40, blank=True, help_text=_("Empty: the English name.")
    )
    icon = models.CharField(
        _("icon"), max_length=8, help_text=_("An emoji shown beside the name, e.g. 🍜.")
    )
    price = models.PositiveIntegerField(_("price on the books"))
    in_stock = models.BooleanField(_("in stock"), default=True)
    position = models.PositiveSmallIntegerField(_("position in the store"), default=0)

    class Meta:
        ordering = ["position", "name"]
        verbose_name = _("Commissary good")
        verbose_name_plural = _("Commissary goods")
        constraints = [
            models.CheckConstraint(condition=Q(price__gt=0), name="good_price_positive"),
        ]

    def __str__(self) -> str:
        # The name alone: the icon is an emoji, a box on a device without an emoji font. Pages
        # draw it instead (ledger/templatetags/goods.py); words never carry it.
        return self.label

    @property
    def label(self) -> str:
        """The name in the reader's language."""
        if translation.get_language() == "es" and self.name_es:
            return self.name_es
        return self.name


class AccountQuerySet(models.QuerySet["Account"]):
    def update(self, **kwargs: Any) -> int:
        _ensure_posting("Account balances")
        return super().update(**kwargs)

    def delete(self) -> tuple[int, dict[str, int]]:
        raise LedgerWriteRefused("Ledger accounts are never deleted.")


class Account(models.Model):
    """One holder of one unit: a player's Dollars, books or one good; a pot; a system account."""

    code = models.CharField(max_length=80, unique=True, editable=False)
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    currency = models.CharField(_("currency"), max_length=8, choices=Currency.choices)
    good = models.ForeignKey(Good, null=True, blank=True, on_delete=models.PROTECT)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="ledger_accounts",
    )
    table = models.ForeignKey(
        Table, null=True, blank=True, on_delete=models.PROTECT, related_name="ledger_accounts"
    )
    balance = models.BigIntegerField(_("balance"), default=0, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = AccountQuerySet.as_manager()

    class Meta:
        ordering = ["pk"]
        verbose_name = _("ledger account")
        constraints = [
            models.CheckConstraint(
                condition=Q(balance__gte=0) | Q(kind__in=[k.value for k in SYSTEM_KINDS]),
                name="ledger_account_never_negative",
            ),
            models.CheckConstraint(
                condition=Q(currency=Currency.GOODS, good__isnull=False)
                | (~Q(currency=Currency.GOODS) & Q(good__isnull=True)),
                name="ledger_account_good_iff_goods",
            ),
            models.CheckConstraint(
                condition=Q(kind=Kind.PLAYER, user__isnull=False)
                | (~Q(kind=Kind.PLAYER) & Q(user__isnull=True)),
                name="ledger_account_user_iff_player",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=[k.value for k in TABLE_KINDS], table__isnull=False)
                | (~Q(kind__in=[k.value for k in TABLE_KINDS]) & Q(table__isnull=True)),
                name="ledger_account_table_iff_pot",
            ),
        ]
        indexes = [models.Index(fields=["user", "currency"])]

    def __str__(self) -> str:
        return self.code

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise LedgerWriteRefused("Ledger accounts change only through postings.")
        if self.balance != 0:
            raise LedgerWriteRefused("A new ledger account starts at zero.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise LedgerWriteRefused("Ledger accounts are never deleted.")

    @property
    def is_player(self) -> bool:
        return self.kind == Kind.PLAYER


class StoreOrder(models.Model):
    """One Commissary purchase: a player's books for goods in their locker."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="store_orders"
    )
    good = models.ForeignKey(Good, on_delete=models.PROTECT, related_name="orders")
    quantity = models.PositiveIntegerField()
    unit_price = models.PositiveIntegerField()
    total = models.PositiveIntegerField()
    token = models.UUIDField(
        help_text=_("The order form's own token: a resubmitted form buys once.")
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("store order")
        constraints = [
            models.UniqueConstraint(fields=["user", "token"], name="one_order_per_form"),
            models.CheckConstraint(condition=Q(quantity__gt=0), name="order_quantity_positive"),
        ]

    def __str__(self) -> str:
        return f"order {self.pk}: {self.user} {self.quantity} x {self.good}"


class Adjustment(models.Model):
    """A staff member's correction of a player's balance, against the house, with a reason."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="ledger_adjustments"
    )
    currency = models.CharField(_("currency"), max_length=8, choices=Currency.choices)
    good = models.ForeignKey(Good, null=True, blank=True, on_delete=models.PROTECT)
    amount = models.BigIntegerField(_("amount"))
    reason = models.TextField(_("reason"))
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    token = models.UUIDField(unique=True, default=uuid.uuid4, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("staff adjustment")
        constraints = [
            models.CheckConstraint(condition=~Q(amount=0), name="adjustment_not_zero"),
            models.CheckConstraint(condition=~Q(reason=""), name="adjustment_has_reason"),
        ]

    def __str__(self) -> str:
        return f"adjustment {self.pk}: {self.user} {self.amount:+d} {self.currency}"


class ImmutableQuerySet(models.QuerySet[Any]):
    def update(self, **kwargs: Any) -> int:
        raise LedgerWriteRefused("Postings and entries are never edited.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise LedgerWriteRefused("Postings and entries are never deleted.")

    def bulk_create(self, objs: Any, *args: Any, **kwargs: Any) -> list[Any]:
        _ensure_posting("Bulk writes")
        return super().bulk_create(objs, *args, **kwargs)

    def bulk_update(self, objs: Any, *args: Any, **kwargs: Any) -> int:
        raise LedgerWriteRefused("Postings and entries are never edited.")


class ImmutableModel(models.Model):
    objects = ImmutableQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise LedgerWriteRefused("Postings and entries are never edited.")
        _ensure_posting(type(self).__name__)
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise LedgerWriteRefused("Postings and entries are never deleted.")


class Posting(ImmutableModel):
    """One balanced movement of value with its reason, its reference and its idempotency key."""

    key = models.CharField(_("idempotency key"), max_length=120, unique=True)
    reason = models.CharField(_("reason"), max_length=12, choices=Reason.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="ledger_postings",
        help_text=_("The player it was for (grants, allowances, purchases, adjustments)."),
    )
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.PROTECT, related_name="postings"
    )
    order = models.OneToOneField(
        StoreOrder, null=True, blank=True, on_delete=models.PROTECT, related_name="posting"
    )
    adjustment = models.OneToOneField(
        Adjustment, null=True, blank=True, on_delete=models.PROTECT, related_name="posting"
    )
    detail = models.JSONField(
        default=dict, blank=True, help_text=_("How the amounts were worked out.")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text=_("Who caused it; empty for the house itself."),
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("posting")
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(reason__in=["signup", "allowance"], user__isnull=False)
                    | Q(reason="purchase", order__isnull=False, user__isnull=False)
                    | Q(reason__in=["hold", "settle", "refund"], game__isnull=False)
                    | Q(reason="adjustment", adjustment__isnull=False, user__isnull=False)
                    # tournaments: the event is named in the key and the detail
                    | Q(reason__in=["entry_fee", "fee_refund", "prizes"])
                ),
                name="posting_has_its_reference",
            ),
        ]

    def __str__(self) -> str:
        return self.key


class Entry(ImmutableModel):
    """One line of a posting: an amount (positive: into the account) of the account's unit."""

    posting = models.ForeignKey(Posting, on_delete=models.PROTECT, related_name="entries")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="entries")
    currency = models.CharField(max_length=8, choices=Currency.choices)
    good = models.ForeignKey(Good, null=True, blank=True, on_delete=models.PROTECT)
    amount = models.BigIntegerField()

    class Meta:
        ordering = ["posting", "pk"]
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        constraints = [
            models.CheckConstraint(condition=~Q(amount=0), name="entry_not_zero"),
            models.CheckConstraint(
                condition=Q(currency=Currency.GOODS, good__isnull=False)
                | (~Q(currency=Currency.GOODS) & Q(good__isnull=True)),
                name="entry_good_iff_goods",
            ),
            models.UniqueConstraint(fields=["posting", "account"], name="one_entry_per_account"),
        ]

    def __str__(self) -> str:
        return f"{self.posting_id}: {self.account_id} {self.amount:+d}"


class Party(ImmutableModel):
    """A player a posting concerns: whose history shows it (a skunked loser gets no entry back
    from the settlement, yet it is their game's settlement)."""

    posting = models.ForeignKey(Posting, on_delete=models.PROTECT, related_name="parties")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="ledger_parties"
    )

    class Meta:
        ordering = ["posting", "user"]
        verbose_name = _("party")
        verbose_name_plural = _("parties")
        constraints = [
            models.UniqueConstraint(fields=["posting", "user"], name="one_party_row_per_player"),
        ]

    def __str__(self) -> str:
        return f"{self.posting_id}: {self.user_id}"


class StakeKind(models.TextChoices):
    DOLLARS = "dollars", _("Dominologist Dollars")
    CANTEEN = "canteen", _("Canteen bet")


class TableStake(models.Model):
    """What a table is played for: a stake in Dollars, or a canteen bet (a bundle of goods).

    A table without a row is played for nothing (Gym tables, and tables opened with no stake).
    """

    table = models.OneToOneField(
        Table, on_delete=models.CASCADE, primary_key=True, related_name="stake"
    )
    kind = models.CharField(_("kind"), max_length=8, choices=StakeKind.choices)
    dollars = models.PositiveIntegerField(_("stake in Dollars"), default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("table stake")
        constraints = [
            models.CheckConstraint(
                condition=Q(kind=StakeKind.DOLLARS, dollars__gt=0)
                | Q(kind=StakeKind.CANTEEN, dollars=0),
                name="stake_dollars_iff_dollar_stake",
            ),
        ]

    def __str__(self) -> str:
        return f"stake of table {self.table_id}"


class StakeItem(models.Model):
    """One good of a canteen bet: so many of it from each player."""

    stake = models.ForeignKey(TableStake, on_delete=models.CASCADE, related_name="items")
    good = models.ForeignKey(Good, on_delete=models.PROTECT)
    quantity = models.PositiveIntegerField()

    class Meta:
        ordering = ["stake", "good__position", "good__name"]
        constraints = [
            models.UniqueConstraint(fields=["stake", "good"], name="one_item_per_good"),
            models.CheckConstraint(condition=Q(quantity__gt=0), name="stake_item_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.quantity} x {self.good}"


class StakedGame(Game):
    """The admin's view of games played for a stake: void (refund) or settle them."""

    class Meta:
        proxy = True
        verbose_name = _("staked game")
        verbose_name_plural = _("staked games")


class ReconciliationRun(models.Model):
    """One run of the nightly check of every balance and every posting."""

    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    accounts_checked = models.PositiveIntegerField(default=0)
    postings_checked = models.PositiveIntegerField(default=0)
    mismatch_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-started_at", "-pk"]
        verbose_name = _("reconciliation run")

    def __str__(self) -> str:
        return f"reconciliation {self.pk}: {self.mismatch_count} mismatch(es)"


class Mismatch(models.Model):
    """Something the reconciliation found wrong (there should never be one)."""

    class Problem(models.TextChoices):
        BALANCE = "balance", _("Cached balance differs from its entries")
        UNBALANCED = "unbalanced", _("Posting does not balance")
        WRONG_UNIT = "wrong_unit", _("Entry's unit differs from its account's")
        UNSETTLED = "unsettled", _("Finished game with stakes still held")

    run = models.ForeignKey(ReconciliationRun, on_delete=models.CASCADE, related_name="mismatches")
    problem = models.CharField(max_length=12, choices=Problem.choices)
    account = models.ForeignKey(Account, null=True, blank=True, on_delete=models.PROTECT)
    posting = models.ForeignKey(Posting, null=True, blank=True, on_delete=models.PROTECT)
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.PROTECT)
    expected = models.BigIntegerField(null=True, blank=True)
    found = models.BigIntegerField(null=True, blank=True)
    detail = models.TextField(blank=True)

    class Meta:
        ordering = ["run", "pk"]
        verbose_name = _("reconciliation mismatch")
        verbose_name_plural = _("reconciliation mismatches")

    def __str__(self) -> str:
        return f"{self.get_problem_display()}: {self.detail}"
