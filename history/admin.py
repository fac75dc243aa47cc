"""Players' game records, read-only: `history.services` writes them from each game's replay."""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from history.models import PlayerGame


@admin.register(PlayerGame)
class PlayerGameAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("game", "user", "seat", "mode", "won", "score", "hands", "points", "dominoes")
    list_filter = ("mode", "won", "private", "skunked")
    search_fields = ("user__display_name", "user__email")
    raw_id_fields = ("game", "user")
    date_hierarchy = "finished_at"

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False
