"""allauth adapter: stores the sign-up's display name, date of birth and time zone."""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from django import forms
from django.http import HttpRequest

from accounts import login_limits
from accounts.age_block import retry_block_remaining


class AccountAdapter(DefaultAccountAdapter):  # type: ignore[misc]
    _login_attempt: login_limits.LoginAttempt | None = None

    def is_open_for_signup(self, request: HttpRequest) -> bool:
        return retry_block_remaining(request) is None

    def pre_login(self, request: HttpRequest, user: Any, **kwargs: Any) -> Any:
        if getattr(user, "house_level", ""):
            # a house player (a bot) never logs in, whatever happened to its password
            from allauth.account.internal.stagekit import clear_login

            clear_login(request)
            return self.respond_user_inactive(request, user)
        return super().pre_login(request, user, **kwargs)

    # --- log-in limits: wrong passwords count, log-ins do not (accounts/login_limits.py) ---

    def pre_authenticate(self, request: HttpRequest, **credentials: Any) -> None:
        login = str(credentials.get("email", credentials.get("username", "")) or "")
        try:
            self._login_attempt = login_limits.attempt_begin(request, login)
        except login_limits.LoginLimited as exc:
            raise forms.ValidationError(exc.message, code="too_many_login_attempts") from exc

    def _rollback_login_failed_rl_usage(self) -> None:
        """allauth calls this when the password was right."""
        if self._login_attempt is not None:
            self._login_attempt.succeeded()

    def authentication_failed(self, request: HttpRequest, **credentials: Any) -> None:
        if self._login_attempt is not None:
            self._login_attempt.failed()

    def _delete_login_attempts_cached_email(self, request: HttpRequest, **credentials: Any) -> None:
        """After a password reset by e-mail: the account's wrong passwords are forgotten."""
        login = str(credentials.get("email", credentials.get("username", "")) or "")
        login_limits.account_clear(request, login)

    def set_password(self, user: Any, password: str) -> None:
        """A player changing their own password: their session is marked as changing it before
        the new one is saved (and announced), so that its sockets stay open while Django gives
        the session a new key and hash (`accounts.signals.password_changed`)."""
        from allauth.core import context

        from dominoes_site.user_sockets import password_changing

        request = self.request or context.request
        session = getattr(request, "session", None)
        key = getattr(session, "session_key", None)
        if key and getattr(getattr(request, "user", None), "pk", None) == user.pk:
            password_changing(key)
            request._session_before_password = key
        super().set_password(user, password)

    def save_user(self, request: HttpRequest, user: Any, form: Any, commit: bool = True) -> Any:
        data = form.cleaned_data
        user.display_name = data["display_name"]
        user.date_of_birth = data["date_of_birth"]
        user.time_zone = data.get("time_zone") or "UTC"
        language = getattr(request, "LANGUAGE_CODE", "en")
        user.language = language if language in ("en", "es") else "en"
        return super().save_user(request, user, form, commit=commit)
