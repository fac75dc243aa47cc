"""Admin for the ledger. Accounts, postings, entries, orders, adjustments and reconciliation are
read-only: staff change value only through an adjustment (a posting against the house, with a
reason) or by voiding a game (a refund). The Commissary's goods are staff's to manage."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import Exists, OuterRef, QuerySet
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from ledger import services
from ledger.models import (
    Account,
    Adjustment,
    Entry,
    Good,
    Mismatch,
    Posting,
    Reason,
    ReconciliationRun,
    StakedGame,
    StakeItem,
    StoreOrder,
    TableStake,
)


class ReadOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Staff may look, never touch."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):  # type: ignore[type-arg]
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Good)
class GoodAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["__str__", "icon", "name_es", "price", "in_stock", "position"]
    list_editable = ["in_stock", "position"]
    list_filter = ["in_stock"]
    search_fields = ["name", "name_es"]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # A good someone has bought stays in the books for ever: mark it out of stock instead.
        if obj is not None and Account.objects.filter(good=obj).exists():
            return False
        return super().has_delete_permission(request, obj)


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ["code", "kind", "currency", "good", "user", "table", "balance", "postings"]
    list_filter = ["kind", "currency", "good"]
    search_fields = ["code", "user__email", "user__display_name"]
    list_select_related = ["good", "user", "table"]

    @admin.display(description=_("Postings"))
    def postings(self, obj: Account) -> str:
        url = reverse("admin:ledger_posting_changelist") + f"?entries__account__id__exact={obj.pk}"
        return format_html('<a href="{}">{}</a>', url, _("Postings"))


class EntryInline(ReadOnlyInline):
    model = Entry
    fields = ["account", "currency", "good", "amount"]
    readonly_fields = fields


@admin.register(Posting)
class PostingAdmin(ReadOnlyAdmin):
    list_display = ["key", "reason", "user", "game", "created_by", "created_at"]
    list_filter = ["reason", "created_at"]
    search_fields = ["key", "user__email", "user__display_name"]
    date_hierarchy = "created_at"
    list_select_related = ["user", "game", "created_by"]
    inlines = [EntryInline]
    readonly_fields = [
        "key",
        "reason",
        "user",
        "game",
        "order",
        "adjustment",
        "detail",
        "created_by",
        "created_at",
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Posting]:
        return super().get_queryset(request).distinct()

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        if lookup == "entries__account__id__exact":
            return True
        return bool(super().lookup_allowed(lookup, value, request))


@admin.register(StoreOrder)
class StoreOrderAdmin(ReadOnlyAdmin):
    list_display = ["pk", "user", "good", "quantity", "unit_price", "total", "created_at"]
    list_filter = ["good"]
    search_fields = ["user__email", "user__display_name"]


@admin.register(Adjustment)
class AdjustmentAdmin(ReadOnlyAdmin):
    """The adjustments made, with who and why; "Add" opens the adjustment form."""

    list_display = ["pk", "user", "currency", "good", "amount", "made_by", "reason", "created_at"]
    list_filter = ["currency"]
    search_fields = ["user__email", "user__display_name", "reason"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.has_perm("ledger.add_adjustment"))

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context: Any = None) -> Any:
        return HttpResponseRedirect(reverse("ledger:adjust"))


class StakeItemInline(ReadOnlyInline):
    model = StakeItem
    fields = ["good", "quantity"]
    readonly_fields = fields


@admin.register(TableStake)
class TableStakeAdmin(ReadOnlyAdmin):
    list_display = ["table", "kind", "dollars", "created_at"]
    list_filter = ["kind"]
    inlines = [StakeItemInline]


@admin.action(description=_("Settle finished games not yet settled"), permissions=["adjust"])
def settle_games(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[StakedGame]
) -> None:
    for game in queryset:
        try:
            posting = services.game_settle(game_id=game.pk)
        except services.LedgerError as exc:
            modeladmin.message_user(request, f"{game}: {exc.message}", level=messages.ERROR)
        else:
            modeladmin.message_user(request, f"{game}: {posting}")


@admin.register(StakedGame)
class StakedGameAdmin(ReadOnlyAdmin):
    """Games with stakes held: settle a finished one. Staff void one that went wrong (refunding
    it) with the house office's action, added to this list by `staff/admin.py`."""

    list_display = ["pk", "table", "status", "started_at", "finished_at", "settled", "refunded"]
    list_filter = ["status"]
    actions = [settle_games]

    def get_queryset(self, request: HttpRequest) -> QuerySet[StakedGame]:
        def posted(reason: str) -> Exists:
            return Exists(Posting.objects.filter(game=OuterRef("pk"), reason=reason))

        return (
            super()
            .get_queryset(request)
            .select_related("table")
            .annotate(
                held=posted(Reason.HOLD),
                is_settled=posted(Reason.SETTLE),
                is_refunded=posted(Reason.REFUND),
            )
            .filter(held=True)
        )

    def has_adjust_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("ledger.add_adjustment"))

    @admin.display(boolean=True, description=_("Settled"))
    def settled(self, obj: Any) -> bool:
        return bool(obj.is_settled)

    @admin.display(boolean=True, description=_("Refunded"))
    def refunded(self, obj: Any) -> bool:
        return bool(obj.is_refunded)


class MismatchInline(ReadOnlyInline):
    model = Mismatch
    fields = ["problem", "account", "posting", "game", "expected", "found", "detail"]
    readonly_fields = fields


@admin.register(ReconciliationRun)
class ReconciliationRunAdmin(ReadOnlyAdmin):
    list_display = [
        "pk",
        "started_at",
        "finished_at",
        "accounts_checked",
        "postings_checked",
        "mismatch_count",
    ]
    inlines = [MismatchInline]


@admin.register(Mismatch)
class MismatchAdmin(ReadOnlyAdmin):
    list_display = ["run", "problem", "account", "posting", "game", "expected", "found", "detail"]
    list_filter = ["problem"]
