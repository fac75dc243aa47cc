"""Quick pairing in admin: read-only. Pools change only through pairing.services."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from pairing.models import Match, PoolEntry


class ReadOnly(admin.ModelAdmin):  # type: ignore[type-arg]
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(PoolEntry)
class PoolEntryAdmin(ReadOnly):
    list_display = ["user", "cell", "status", "rating", "joined_at", "seated_at", "match"]
    list_filter = ["status", "cell"]
    search_fields = ["user__display_name", "user__email"]
    list_select_related = ["user", "match"]


@admin.register(Match)
class MatchAdmin(ReadOnly):
    list_display = ["table", "cell", "status", "house_filled", "created_at", "confirm_by"]
    list_filter = ["status", "cell", "house_filled"]
