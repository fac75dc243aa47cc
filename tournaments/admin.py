"""Tournaments in admin: read-only. Every change goes through the organizer's pages (services)."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from dominoes_site.admin_base import ReadOnlyAdmin
from tournaments.models import Entry, Match, Series, SeriesSkip, Tournament


class ReadOnly(ReadOnlyAdmin):
    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [f.name for f in self.model._meta.fields]


class EntryInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Entry
    extra = 0
    can_delete = False
    fields = ["player", "partner", "seed", "player_checked_in_at", "withdrawn_at", "withdrawal"]
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Tournament)
class TournamentAdmin(ReadOnly):
    list_display = ["name", "organizer", "mode", "format", "status", "starts_at"]
    list_filter = ["status", "format", "mode"]
    search_fields = ["name", "organizer__display_name"]
    date_hierarchy = "starts_at"
    inlines = [EntryInline]


@admin.register(Entry)
class EntryAdmin(ReadOnly):
    list_display = ["tournament", "player", "partner", "seed", "withdrawal", "disqualified_at"]
    search_fields = ["player__display_name", "tournament__name"]


@admin.register(Match)
class MatchAdmin(ReadOnly):
    list_display = [
        "tournament",
        "key",
        "round",
        "entry_a",
        "entry_b",
        "status",
        "winner",
        "outcome",
    ]
    list_filter = ["status", "outcome"]
    search_fields = ["tournament__name", "key"]


@admin.register(Series)
class SeriesAdmin(ReadOnly):
    list_display = ["name", "organizer", "repeats", "time_zone", "status", "problem"]
    list_filter = ["status", "repeats"]
    search_fields = ["name", "organizer__display_name"]


@admin.register(SeriesSkip)
class SeriesSkipAdmin(ReadOnly):
    list_display = ["series", "occurrence", "reason"]
    search_fields = ["series__name"]
