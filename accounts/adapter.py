"""allauth adapter: stores the sign-up's display name, date of birth and time zone."""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from django.http import HttpRequest

from accounts.age_block import retry_block_remaining


class AccountAdapter(DefaultAccountAdapter):  # type: ignore[misc]
    def is_open_for_signup(self, request: HttpRequest) -> bool:
        return retry_block_remaining(request) is None

    def pre_login(self, request: HttpRequest, user: Any, **kwargs: Any) -> Any:
        if getattr(user, "house_level", ""):
            # a house player (a bot) never logs in, whatever happened to its password
            from allauth.account.internal.stagekit import clear_login

            clear_login(request)
            return self.respond_user_inactive(request, user)
        return super().pre_login(request, user, **kwargs)

    def save_user(self, request: HttpRequest, user: Any, form: Any, commit: bool = True) -> Any:
        data = form.cleaned_data
        user.display_name = data["display_name"]
        user.date_of_birth = data["date_of_birth"]
        user.time_zone = data.get("time_zone") or "UTC"
        language = getattr(request, "LANGUAGE_CODE", "en")
        user.language = language if language in ("en", "es") else "en"
        return super().save_user(request, user, form, commit=commit)
