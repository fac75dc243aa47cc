"""Clubs in admin: read-only, searchable. Every change goes through the clubs' own pages
(clubs.services), where the rules are (the last leader, requests, the founding limit)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from clubs.models import Club, Membership
from dominoes_site.admin_base import ReadOnlyAdmin


class MembershipInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Membership
    extra = 0
    can_delete = False
    fields = ["user", "role", "status", "requested_at", "joined_at"]
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Club)
class ClubAdmin(ReadOnlyAdmin):
    list_display = ["name", "slug", "policy", "founded_by", "created_at"]
    list_filter = ["policy"]
    search_fields = ["name", "slug", "description", "founded_by__display_name"]
    list_select_related = ["founded_by"]
    date_hierarchy = "created_at"
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(ReadOnlyAdmin):
    list_display = ["club", "user", "role", "status", "requested_at", "joined_at"]
    list_filter = ["role", "status"]
    search_fields = ["club__name", "user__display_name", "user__email"]
    list_select_related = ["club", "user"]
