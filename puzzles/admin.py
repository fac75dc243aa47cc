"""Puzzles and the games mined, read-only: the miner writes them."""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from puzzles.models import MinedGame, Puzzle


class ReadOnly(admin.ModelAdmin):  # type: ignore[type-arg]
    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(Puzzle)
class PuzzleAdmin(ReadOnly):
    list_display = ("pk", "mode", "players", "partners", "margin", "themes", "game", "created_at")
    list_filter = ("mode", "players", "partners")
    raw_id_fields = ("game",)


@admin.register(MinedGame)
class MinedGameAdmin(ReadOnly):
    list_display = ("game", "decisions", "puzzles", "claimed_at", "finished_at", "error")
    raw_id_fields = ("game",)
