"""Staff close a player's account on the player's request, from the player list in admin.

The action asks for a reason (how the player asked) on a page that says what closing does, and
each closing is recorded as a staff action with who and when (House office > Staff actions).
The players' admin is registered by accounts; this app adds its action to it (accounts never
imports an app above it).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _

from accounts.admin import UserAdmin
from accounts.models import User
from privacy import services


class CloseReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("How did the player ask for it?"),
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=1000,
        help_text=_("Required. Kept with your name and the time in the staff actions."),
    )

    def clean_reason(self) -> str:
        reason = str(self.cleaned_data["reason"]).strip()
        if not reason:
            raise forms.ValidationError(_("Say why."))
        return reason


admin.site.unregister(User)


@admin.register(User)
class PlayerAdmin(UserAdmin):
    actions = [*UserAdmin.actions, "close_accounts"]
    readonly_fields = [*UserAdmin.readonly_fields, "closed_at"]
    fieldsets = (
        *UserAdmin.fieldsets[:-1],
        (_("Dates"), {"fields": ("last_login", "date_joined", "closed_at")}),
    )

    def has_close_account_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("staff.close_account"))

    @admin.action(
        description=_("Close the account on the player's request…"),
        permissions=["close_account"],
    )
    def close_accounts(self, request: HttpRequest, queryset: QuerySet[User]) -> Any:
        users = list(queryset.order_by("pk"))
        form = CloseReasonForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            for user in users:
                try:
                    services.account_close(
                        user=user, by=request.user, reason=form.cleaned_data["reason"]
                    )
                except services.CloseRefused as exc:
                    self.message_user(
                        request,
                        _("%(account)s: %(why)s") % {"account": user.email, "why": exc.message},
                        messages.ERROR,
                    )
                else:
                    self.message_user(
                        request,
                        _("Account %(number)s closed.") % {"number": user.pk},
                        messages.SUCCESS,
                    )
            return None
        rows = [(u, services.close_refusal(u, by=request.user)) for u in users]
        return render(
            request,
            "admin/privacy/close_accounts.html",
            {
                **self.admin_site.each_context(request),
                "title": _("Close accounts on the player's request"),
                "rows": rows,
                "form": form,
                "action": "close_accounts",
                "opts": self.model._meta,
                "wait_days": settings.CLOSED_EMAIL_WAIT_DAYS,
            },
            status=400 if form.errors else 200,
        )
