"""Puzzles and the games mined, read-only: the miner writes them."""

from __future__ import annotations

from django.contrib import admin

from dominoes_site.admin_base import ReadOnlyAdmin
from puzzles.models import MinedGame, Puzzle


@admin.register(Puzzle)
class PuzzleAdmin(ReadOnlyAdmin):
    list_display = ("pk", "mode", "players", "partners", "margin", "themes", "game", "created_at")
    list_filter = ("mode", "players", "partners")
    raw_id_fields = ("game",)


@admin.register(MinedGame)
class MinedGameAdmin(ReadOnlyAdmin):
    list_display = ("game", "decisions", "puzzles", "claimed_at", "finished_at", "error")
    raw_id_fields = ("game",)
