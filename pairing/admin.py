"""Quick pairing in admin: read-only. Pools change only through pairing.services."""

from __future__ import annotations

from django.contrib import admin

from dominoes_site.admin_base import ReadOnlyAdmin
from pairing.models import Match, PoolEntry


@admin.register(PoolEntry)
class PoolEntryAdmin(ReadOnlyAdmin):
    list_display = ["user", "cell", "status", "rating", "joined_at", "seated_at", "match"]
    list_filter = ["status", "cell"]
    search_fields = ["user__display_name", "user__email"]
    list_select_related = ["user", "match"]


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ["table", "cell", "status", "house_filled", "created_at", "confirm_by"]
    list_filter = ["status", "cell", "house_filled"]
