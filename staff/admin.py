"""Staff tools for tables: live and recent tables, who sits where, each game's status, and the
two acts (void a game, close a table), each behind a confirmation page that asks why.

The Tables admin is registered here, not in `tables/admin.py`: its acts are this app's services,
and the tables app never imports an app above it. It still shows under "Tables" in admin.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import F, OuterRef, Prefetch, QuerySet, Subquery
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from dominoes_site.admin_base import ReadOnlyAdmin
from ledger.admin import StakedGameAdmin as LedgerStakedGameAdmin
from ledger.models import StakedGame
from staff import services
from staff.models import StaffAction
from tables.models import Game, Seat, Table, TableEvent
from tables.services import TableError
from tournaments.models import Match

LIVE_GAMES = [Game.Status.WAITING, Game.Status.PLAYING]


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"),
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=1000,
        help_text=_("Required. Kept with your name and the time; players are not shown it."),
    )

    def __init__(self, *args: Any, kind: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["reason"].label = (
            _("Why is the game voided?") if kind == "void" else _("Why is the table closed?")
        )

    def clean_reason(self) -> str:
        reason = str(self.cleaned_data["reason"]).strip()
        if not reason:
            raise forms.ValidationError(_("Say why."))
        return reason


class ActivityFilter(admin.SimpleListFilter):
    title = _("activity")
    parameter_name = "activity"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("live", _("Live (waiting or playing)")), ("recent", _("Active in the last 24 h"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Table]) -> QuerySet[Table]:
        if self.value() == "live":
            return queryset.filter(status__in=[Table.Status.OPEN, Table.Status.PLAYING])
        if self.value() == "recent":
            return queryset.filter(last_activity__gte=timezone.now() - dt.timedelta(hours=24))
        return queryset


class _ShownInline(admin.TabularInline):  # type: ignore[type-arg]
    """Rows shown beside a table, never added, changed or deleted here."""

    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatInline(_ShownInline):
    model = Seat
    fields = ["number", "user", "ready", "away_since", "grace_until", "rematch"]
    readonly_fields = fields
    verbose_name_plural = _("Who sits where")


class GameInline(_ShownInline):
    model = Game
    fields = ["number", "status", "players_by_seat", "started_at", "finished_at", "act"]
    readonly_fields = fields
    ordering = ["-number"]
    verbose_name_plural = _("Games at this table")

    @admin.display(description=_("Players"))
    def players_by_seat(self, obj: Game) -> str:
        from accounts.models import User

        ids = [p for p in obj.players or [] if p is not None]
        names = dict(User.objects.filter(pk__in=ids).values_list("pk", "display_name"))
        return ", ".join(
            f"{seat}: {names.get(p, '—') if p else '—'}" for seat, p in enumerate(obj.players or [])
        )

    @admin.display(description=_("Staff"))
    def act(self, obj: Game) -> str:
        if obj.status not in LIVE_GAMES:
            url = reverse("history:game", args=[obj.pk])
            return format_html('<a href="{}">{}</a>', url, _("Game page"))
        url = reverse("admin:tables_table_void", args=[obj.table_id, obj.pk])
        return format_html('<a class="button" href="{}">{}</a>', url, _("Void this game…"))


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Tables, newest activity first. Read-only: staff act through "Void" and "Close"."""

    list_display = [
        "table_name",
        "status",
        "seats_now",
        "game_now",
        "stake_shown",
        "tournament",
        "private",
        "last_activity_shown",
    ]
    list_filter = [ActivityFilter, "status", "mode", "private"]
    search_fields = ["=id", "host__display_name", "host__email", "seats__user__display_name"]
    inlines = [SeatInline, GameInline]
    change_form_template = "admin/staff/table_change_form.html"
    actions = ["void_live_games", "close_tables"]
    list_per_page = 50

    def get_queryset(self, request: HttpRequest) -> QuerySet[Table]:
        latest = TableEvent.objects.filter(table=OuterRef("pk")).order_by("-seq")
        return (
            super()
            .get_queryset(request)
            .select_related("host", "stake")
            .prefetch_related(
                Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("number")),
                Prefetch("games", queryset=Game.objects.only(*GAME_FIELDS).order_by("-number")),
                Prefetch(
                    "tournament_matches",
                    queryset=Match.objects.select_related("tournament"),
                ),
            )
            .annotate(last_activity=Subquery(latest.values("created_at")[:1]))
            .order_by(F("last_activity").desc(nulls_last=True), "-pk")
        )

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [
            "mode",
            "status",
            "host",
            "private",
            "on_leave",
            "settings",
            "seq",
            "created_at",
            "stake_shown",
            "tournament",
        ]

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return self.get_readonly_fields(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_void_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("staff.void_game"))

    def has_close_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("staff.close_table"))

    # --- columns --------------------------------------------------------------------------

    @admin.display(description=_("Table"), ordering="pk")
    def table_name(self, obj: Table) -> str:
        return str(obj)

    @admin.display(description=_("Who sits where"))
    def seats_now(self, obj: Table) -> str:
        return format_html_join(
            ", ",
            "{}: {}{}",
            (
                (
                    seat.number,
                    seat.user.display_name if seat.user else "—",
                    " " + str(_("(away)")) if seat.away_since else "",
                )
                for seat in obj.seats.all()
            ),
        )

    @admin.display(description=_("Game"))
    def game_now(self, obj: Table) -> str:
        games = list(obj.games.all())
        if not games:
            return "—"
        game = next((g for g in games if g.status in LIVE_GAMES), games[0])
        return str(
            _("Game %(id)s (no. %(number)s): %(status)s")
            % {"id": game.pk, "number": game.number, "status": game.get_status_display()}
        )

    @admin.display(description=_("Stake"))
    def stake_shown(self, obj: Table) -> str:
        from ledger.models import StakeKind

        stake = getattr(obj, "stake", None)
        if stake is None:
            return "—"
        if stake.kind == StakeKind.DOLLARS:
            from ledger.services import DOLLARS, amount_text

            return amount_text(DOLLARS, stake.dollars)
        return str(stake.get_kind_display())

    @admin.display(description=_("Tournament"))
    def tournament(self, obj: Table) -> str:
        match = next(iter(obj.tournament_matches.all()), None)
        if match is None:
            return "—"
        return f"{match.tournament.name} ({match.key})"

    @admin.display(description=_("Last activity"), ordering="last_activity")
    def last_activity_shown(self, obj: Any) -> Any:
        return obj.last_activity or obj.created_at

    # --- acts -----------------------------------------------------------------------------

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<int:table_id>/void/<int:game_id>/",
                self.admin_site.admin_view(self.void_view),
                name="tables_table_void",
            ),
            path(
                "<int:table_id>/close/",
                self.admin_site.admin_view(self.close_view),
                name="tables_table_close",
            ),
        ]
        return own + super().get_urls()

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        table = self.get_object(request, object_id)
        extra = dict(extra_context or {})
        if table is not None:
            live = table.games.filter(status__in=LIVE_GAMES).first()
            extra["live_game"] = live
            extra["may_void"] = live is not None and self.has_void_permission(request)
            extra["may_close"] = (
                table.status != Table.Status.ABORTED or live is not None
            ) and self.has_close_permission(request)
        return super().change_view(request, object_id, form_url, extra)

    def void_view(self, request: HttpRequest, table_id: int, game_id: int) -> HttpResponse:
        if not self.has_void_permission(request):
            raise PermissionDenied
        game = get_object_or_404(Game.objects.select_related("table"), pk=game_id, table=table_id)
        items = [_item(game.table, game)]
        return confirm(
            self,
            request,
            kind="void",
            items=items,
            title=_("Void game %(game)s") % {"game": game.pk},
            done=lambda reason: void(self, request, [game.pk], reason),
            back=reverse("admin:tables_table_change", args=[table_id]),
        )

    def close_view(self, request: HttpRequest, table_id: int) -> HttpResponse:
        if not self.has_close_permission(request):
            raise PermissionDenied
        table = get_object_or_404(Table, pk=table_id)
        live = table.games.filter(status__in=LIVE_GAMES).first()
        return confirm(
            self,
            request,
            kind="close",
            items=[_item(table, live)],
            title=_("Close table %(table)s") % {"table": table.pk},
            done=lambda reason: close(self, request, [table.pk], reason),
            back=reverse("admin:tables_table_change", args=[table_id]),
        )

    @admin.action(
        description=_("Void the game in play at the selected tables…"), permissions=["void"]
    )
    def void_live_games(self, request: HttpRequest, queryset: QuerySet[Table]) -> Any:
        items = [
            _item(table, table.games.filter(status__in=LIVE_GAMES).first()) for table in queryset
        ]
        # The games shown on the page are the games voided: the page names them, so a rematch
        # started meanwhile is not voided in their place.
        posted = [int(g) for g in request.POST.getlist("game") if g.isdigit()]
        named = list(
            Game.objects.filter(pk__in=posted, table_id__in=[t.pk for t in queryset]).values_list(
                "pk", flat=True
            )
        )
        return confirm(
            self,
            request,
            kind="void",
            items=items,
            title=_("Void the game in play"),
            done=lambda reason: void(self, request, named, reason),
            action="void_live_games",
        )

    @admin.action(description=_("Close the selected tables…"), permissions=["close"])
    def close_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> Any:
        items = [
            _item(table, table.games.filter(status__in=LIVE_GAMES).first()) for table in queryset
        ]
        return confirm(
            self,
            request,
            kind="close",
            items=items,
            title=_("Close the selected tables"),
            done=lambda reason: close(self, request, [i["table"].pk for i in items], reason),
            action="close_tables",
        )


def confirm(
    modeladmin: admin.ModelAdmin,  # type: ignore[type-arg]
    request: HttpRequest,
    *,
    kind: str,
    items: list[dict[str, Any]],
    title: Any,
    done: Callable[[str], None],
    back: str | None = None,
    action: str | None = None,
) -> HttpResponse:
    """The confirmation page of an act: what it acts on, and a reason. Sent back with a reason,
    `done(reason)` acts and the page redirects to `back` (the list, for an action)."""
    form = ReasonForm(request.POST if "apply" in request.POST else None, kind=kind)
    if form.is_valid():
        done(form.cleaned_data["reason"])
        return HttpResponseRedirect(back or request.get_full_path())
    return render(
        request,
        "admin/staff/confirm.html",
        {
            **modeladmin.admin_site.each_context(request),
            "title": title,
            "kind": kind,
            "items": items,
            "form": form,
            "action": action,
            "back": back or request.get_full_path(),
            "opts": modeladmin.model._meta,
        },
        status=400 if form.errors else 200,
    )


def void(
    modeladmin: admin.ModelAdmin,  # type: ignore[type-arg]
    request: HttpRequest,
    game_ids: list[int],
    reason: str,
) -> None:
    if not game_ids:
        modeladmin.message_user(
            request, _("No game was named: nothing was voided."), messages.WARNING
        )
    for game_id in game_ids:
        try:
            action = services.game_void(game_id=game_id, by=request.user, reason=reason)
        except TableError as exc:
            modeladmin.message_user(request, exc.message, messages.ERROR)
        else:
            modeladmin.message_user(request, _done_message(action), messages.SUCCESS)


def close(
    modeladmin: admin.ModelAdmin,  # type: ignore[type-arg]
    request: HttpRequest,
    table_ids: list[int],
    reason: str,
) -> None:
    for table_id in table_ids:
        try:
            action = services.table_close(table_id=table_id, by=request.user, reason=reason)
        except TableError as exc:
            modeladmin.message_user(
                request,
                _("Table %(table)s: %(why)s") % {"table": table_id, "why": exc.message},
                messages.ERROR,
            )
        else:
            modeladmin.message_user(request, _done_message(action), messages.SUCCESS)


GAME_FIELDS = ["id", "table_id", "number", "status", "players", "started_at", "finished_at"]


def _item(table: Table, game: Game | None) -> dict[str, Any]:
    """One line of a confirmation page: the table, its live game (or None), what it holds."""
    from ledger.models import Posting, Reason

    held = game is not None and Posting.objects.filter(game=game, reason=Reason.HOLD).exists()
    match = Match.objects.filter(table=table).select_related("tournament").first()
    live = game is not None and game.status in LIVE_GAMES
    return {"table": table, "game": game, "live": live, "staked": held, "match": match}


def _done_message(action: StaffAction) -> str:
    if action.kind == StaffAction.Kind.TABLE_CLOSE and action.game_id is None:
        return str(_("Table %(table)s closed.") % {"table": action.table_id})
    words = _("Game %(game)s at table %(table)s voided.") % {
        "game": action.game_id,
        "table": action.table_id,
    }
    if action.kind == StaffAction.Kind.TABLE_CLOSE:
        words = _("Table %(table)s closed; its game %(game)s voided.") % {
            "game": action.game_id,
            "table": action.table_id,
        }
    extra = []
    if action.detail.get("refund"):
        extra.append(str(_("Every stake was refunded.")))
    if action.detail.get("tournament"):
        extra.append(str(_("The tournament replays the game at a new table.")))
    return " ".join([str(words), *extra])


@admin.register(StaffAction)
class StaffActionAdmin(ReadOnlyAdmin):
    """The record of staff acts on tables: read-only."""

    list_display = [
        "created_at",
        "kind",
        "table_link",
        "game",
        "player",
        "by",
        "reason",
        "followed",
    ]
    list_filter = ["kind", "created_at"]
    search_fields = ["reason", "by__display_name", "by__email", "=table__id", "=player__id"]
    date_hierarchy = "created_at"
    list_select_related = ["by", "table", "game", "player"]
    readonly_fields = ["created_at", "kind", "by", "table", "game", "player", "reason", "detail"]

    @admin.display(description=_("Table"), ordering="table")
    def table_link(self, obj: StaffAction) -> str:
        if obj.table_id is None:
            return "—"
        url = reverse("admin:tables_table_change", args=[obj.table_id])
        return format_html('<a href="{}">{}</a>', url, obj.table)

    @admin.display(description=_("What followed"))
    def followed(self, obj: StaffAction) -> str:
        parts = []
        if obj.detail.get("refund"):
            parts.append(str(_("stakes refunded")))
        for what, items in sorted((obj.detail.get("withdrawn") or {}).items()):
            parts.append(
                str(_("withdrawn: %(what)s (%(count)d)") % {"what": what, "count": len(items)})
            )
        if obj.detail.get("match"):
            parts.append(str(_("tournament match %(match)s") % {"match": obj.detail["match"]}))
        if obj.detail.get("replay_table"):
            parts.append(
                str(_("replayed at table %(table)s") % {"table": obj.detail["replay_table"]})
            )
        return ", ".join(parts) or "—"


# The ledger's staked games get the void action (the ledger never imports the house office).
admin.site.unregister(StakedGame)


@admin.register(StakedGame)
class StakedGameAdmin(LedgerStakedGameAdmin):
    actions = ["void_games", *LedgerStakedGameAdmin.actions]

    def has_void_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("staff.void_game"))

    @admin.action(description=_("Void the game and refund every stake…"), permissions=["void"])
    def void_games(self, request: HttpRequest, queryset: QuerySet[Game]) -> HttpResponse:
        games = list(queryset.select_related("table"))
        return confirm(
            self,
            request,
            kind="void",
            items=[_item(game.table, game) for game in games],
            title=_("Void the game and refund every stake"),
            done=lambda reason: void(self, request, [g.pk for g in games], reason),
            action="void_games",
        )
