"""The close-account form: the password again, and a confirmation that it is for good."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from accounts import login_limits


class CloseAccountForm(forms.Form):
    password = forms.CharField(
        label=_("Your password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text=_("To make sure it is you."),
    )
    confirm = forms.BooleanField(
        label=_("I understand that closing my account is for good and cannot be undone."),
        error_messages={"required": _("Tick this box to confirm.")},
    )

    def __init__(self, *args: Any, request: HttpRequest, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.request = request
        self.user = request.user

    def clean_password(self) -> str:
        """A wrong password counts against the account like a wrong log-in
        (accounts/login_limits.py), so the form is no way round that limit."""
        password: str = self.cleaned_data["password"]
        try:
            attempt = login_limits.attempt_begin(self.request, self.user.email)
        except login_limits.LoginLimited as exc:
            raise forms.ValidationError(exc.message, code="too_many_attempts") from exc
        if not self.user.check_password(password):
            attempt.failed()
            raise forms.ValidationError(_("That is not your password."), code="wrong_password")
        attempt.succeeded()
        return password
