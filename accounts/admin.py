"""Admin for players: accounts, age checks (with who, when and why) and the age-review queue."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _

from accounts.forms import AgeActionForm
from accounts.models import AgeReview, AgeStatus, AgeStatusChange, User
from accounts.services import age_status_set, report_underage
from dominoes_site.admin_base import ReadOnlyAdmin


class AgeStatusChangeInline(admin.TabularInline):  # type: ignore[type-arg]
    model = AgeStatusChange
    fk_name = "user"
    extra = 0
    can_delete = False
    fields = ["created_at", "old_status", "new_status", "changed_by", "reason"]
    readonly_fields = fields
    verbose_name_plural = _("Age status history (who, when, why)")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def _age_action(status: str | None, title: str) -> Any:
    """An admin action that asks for a reason, then changes the age status of each account."""

    def action(
        modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[User]
    ) -> HttpResponse | None:
        if "apply" in request.POST:
            form = AgeActionForm(request.POST)
            if form.is_valid():
                reason = form.cleaned_data["reason"]
                done = 0
                for user in queryset:
                    if status is None:
                        report_underage(user=user, reported_by=request.user, reason=reason)
                        done += 1
                    elif age_status_set(
                        user=user, status=status, reason=reason, changed_by=request.user
                    ).changed:
                        done += 1
                modeladmin.message_user(
                    request, _("%(title)s: %(n)d account(s).") % {"title": title, "n": done}
                )
                return None
        else:
            form = AgeActionForm()
        return render(
            request,
            "admin/accounts/age_action.html",
            {
                **modeladmin.admin_site.each_context(request),
                "title": title,
                "queryset": queryset,
                "form": form,
                "action": request.POST.get("action"),
                "opts": modeladmin.model._meta,
            },
        )

    action.short_description = title  # type: ignore[attr-defined]
    action.__name__ = f"age_{status or 'report'}"
    return action


mark_verified = _age_action(AgeStatus.VERIFIED, _("Mark age verified"))
suspend = _age_action(AgeStatus.SUSPENDED, _("Suspend (age check)"))
restore = _age_action(AgeStatus.DECLARED, _("Restore to declared"))
flag_underage = _age_action(None, _("Report as underage"))


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    ordering = ["email"]
    list_display = [
        "email",
        "display_name",
        "date_of_birth",
        "age_status",
        "reported_underage",
        "is_staff",
        "date_joined",
    ]
    list_filter = [
        "age_status",
        "reported_underage",
        "needs_age_review",
        "is_staff",
        "is_active",
        "bot",
    ]
    search_fields = ["email", "display_name"]
    # A bot account is one for good (docs/api.md, "Bot accounts"): only the API makes one, and
    # nothing on the site, the admin included, turns it back.
    readonly_fields = [
        "age_status",
        "age_status_changed_at",
        "last_login",
        "date_joined",
        "bot",
        "bot_since",
    ]
    fieldsets = (
        (None, {"fields": ("email", "password")}),
        (_("Player"), {"fields": ("display_name", "date_of_birth", "time_zone", "language")}),
        (
            _("Bot account"),
            {
                "fields": ("bot", "bot_since"),
                "description": _(
                    "A player makes their account a bot through the API, for good: it can't "
                    "be changed here."
                ),
            },
        ),
        (
            _("Age check"),
            {
                "fields": (
                    "age_status",
                    "age_status_changed_at",
                    "reported_underage",
                    "needs_age_review",
                ),
                "description": _(
                    "Change the age status with the actions on the player list; each change "
                    "asks for a reason and records who made it."
                ),
            },
        ),
        (
            _("Permissions"),
            {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")},
        ),
        (_("Dates"), {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = (
        (
            None,
            {
                "classes": ("wide",),
                "fields": ("email", "display_name", "date_of_birth", "password1", "password2"),
            },
        ),
    )
    inlines = [AgeStatusChangeInline]
    actions = [mark_verified, suspend, restore, flag_underage]

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        """The house's own actions first; Django's "Delete" last, not the list's first choice."""
        actions = dict(super().get_actions(request))
        delete = actions.pop("delete_selected", None)
        if delete is not None:
            actions["delete_selected"] = delete
        return actions


@admin.register(AgeReview)
class AgeReviewAdmin(UserAdmin):
    """Accounts waiting for a staff member: reported, suspended by the job, or unverified."""

    list_display = [
        "email",
        "display_name",
        "date_of_birth",
        "age_status",
        "reported_underage",
        "latest_reason",
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[User]:
        return (
            super()
            .get_queryset(request)
            .filter(Q(needs_age_review=True) | Q(reported_underage=True))
            .order_by("age_status_changed_at", "pk")
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description=_("Latest reason"))
    def latest_reason(self, obj: User) -> str:
        change = obj.age_changes.first()
        return change.reason if change else "—"


@admin.register(AgeStatusChange)
class AgeStatusChangeAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "user", "old_status", "new_status", "changed_by", "reason"]
    list_filter = ["new_status"]
    search_fields = ["user__email", "user__display_name", "reason"]
    readonly_fields = ["user", "old_status", "new_status", "changed_by", "reason", "created_at"]
