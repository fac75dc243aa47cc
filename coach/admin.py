"""Reviews and hints, read-only: the coach writes them (a review's task, a player's Hint)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from coach.models import Hint, Review


class ReadOnly(admin.ModelAdmin):  # type: ignore[type-arg]
    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(Review)
class ReviewAdmin(ReadOnly):
    list_display = ("game", "user", "seat", "status", "done", "total", "created_at", "finished_at")
    list_filter = ("status",)
    search_fields = ("user__display_name", "user__email")
    raw_id_fields = ("game", "user")


@admin.register(Hint)
class HintAdmin(ReadOnly):
    list_display = ("game", "version", "user", "seat", "created_at")
    search_fields = ("user__display_name", "user__email")
    raw_id_fields = ("game", "user")
