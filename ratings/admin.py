"""Ratings in admin: read-only. Ratings change only through rated games (ratings.services)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from dominoes_site.admin_base import ReadOnlyAdmin
from ratings.models import RatedGame, Rating, RatingChange


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ["user", "pool", "rating", "deviation", "volatility", "games", "last_game_at"]
    list_filter = ["pool"]
    search_fields = ["user__display_name", "user__email"]


class RatingChangeInline(admin.TabularInline):  # type: ignore[type-arg]
    model = RatingChange
    extra = 0
    can_delete = False
    fields = ["seat", "user", "rating_before", "rating_after", "deviation_after"]
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(RatedGame)
class RatedGameAdmin(ReadOnlyAdmin):
    list_display = ["game", "pool", "rated", "why_not", "at"]
    list_filter = ["pool", "rated", "why_not"]
    inlines = [RatingChangeInline]
