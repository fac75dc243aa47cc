"""Log-in limits: wrong passwords are counted per account and per address, not log-ins.

One rule for both doors: the site's log-in (allauth, through `accounts.adapter`) and the admin's
(`AdminLoginForm`, installed in `AccountsConfig.ready`), on the same counters, so that guesses
cannot be split between the two. The limits are allauth rate-limit strings in
`ACCOUNT_RATE_LIMITS` (`login_failed_account`, `login_failed_address`), kept in the cache by
allauth's rate-limit code.

- **Per address**, only wrong passwords count: players logging in together from one network (a
  club) are never refused for logging in. An attempt is refused only when the address already
  has its limit of wrong passwords; a wrong one is recorded when it is found wrong.
- **Per account** (the address typed, lower-cased), each attempt holds a place while its password
  is checked: a right password gives it back, a wrong one keeps it. So at most the limit of
  guesses at one account can ever be in flight, however many are sent at once, and a person
  logging in is refused only after that many wrong passwords for their account.

allauth's own `login_failed` limit counted every log-in until it succeeded (and so refused a
club logging in at once); it is switched off in the settings and replaced by this.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from allauth.core.internal import ratelimit
from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.sites.shortcuts import get_current_site
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.translation import ngettext

APP = "allauth.account"
PER_ACCOUNT = "login_failed_account"
PER_ADDRESS = "login_failed_address"


class LoginLimited(Exception):
    """Too many wrong passwords: `message` says for what and how long to wait."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def account_key(request: HttpRequest, login: str) -> str:
    """The per-account counter's key: the site and the address typed, lower-cased (the same
    key as allauth's, so a password reset clears it)."""
    return f"{get_current_site(request).domain}:{login.strip().lower()}"


def _wait_seconds(request: HttpRequest, action: str, key: str | None) -> float:
    """How long until the limit that refused `action` lets an attempt through again."""
    now = time.time()
    wait = 0.0
    for rate in ratelimit.get_rates(app=APP, action=action):
        cache_key = ratelimit.get_cache_key(request, app=APP, action=action, rate=rate, key=key)
        history = [t for t in cache.get(cache_key, []) if t > now - rate.duration]
        if len(history) >= rate.amount:  # newest first: the amount-th newest must expire
            wait = max(wait, history[rate.amount - 1] + rate.duration - now)
    return wait


def _minutes(seconds: float) -> int:
    return max(1, math.ceil(seconds / 60))


def _account_refusal(request: HttpRequest, key: str) -> LoginLimited:
    minutes = _minutes(_wait_seconds(request, PER_ACCOUNT, key))
    return LoginLimited(
        ngettext(
            "Too many wrong passwords were tried for this account, so its log-in is paused. "
            "Try again in %(minutes)d minute, or reset your password.",
            "Too many wrong passwords were tried for this account, so its log-in is paused. "
            "Try again in %(minutes)d minutes, or reset your password.",
            minutes,
        )
        % {"minutes": minutes}
    )


def _address_refusal(request: HttpRequest) -> LoginLimited:
    minutes = _minutes(_wait_seconds(request, PER_ADDRESS, None))
    return LoginLimited(
        ngettext(
            "Too many wrong passwords were tried from your network. Try again in %(minutes)d "
            "minute.",
            "Too many wrong passwords were tried from your network. Try again in %(minutes)d "
            "minutes.",
            minutes,
        )
        % {"minutes": minutes}
    )


@dataclass
class LoginAttempt:
    """One log-in between its limit check and its password check."""

    request: HttpRequest
    key: str
    held: Any  # allauth's usage of the per-account limit: given back on success
    done: bool = False

    def succeeded(self) -> None:
        """The password was right: this attempt was never a wrong password."""
        if not self.done:
            self.done = True
            self.held.rollback()

    def failed(self) -> None:
        """The password was wrong: it counts, for the account (kept) and the address."""
        if not self.done:
            self.done = True
            ratelimit.consume(self.request, app=APP, action=PER_ADDRESS)


def attempt_begin(request: HttpRequest, login: str) -> LoginAttempt:
    """Before a password is checked: raise `LoginLimited` when the address or the account has
    had too many wrong passwords, else hold this attempt's place on the account's counter."""
    if not ratelimit.consume(request, app=APP, action=PER_ADDRESS, dry_run=True):
        raise _address_refusal(request)
    key = account_key(request, login)
    held = ratelimit.consume(request, app=APP, action=PER_ACCOUNT, key=key)
    if not held:
        raise _account_refusal(request, key)
    return LoginAttempt(request=request, key=key, held=held)


def account_clear(request: HttpRequest, login: str) -> None:
    """Forget an account's wrong passwords (its password was just reset by e-mail)."""
    ratelimit.clear(request, app=APP, action=PER_ACCOUNT, key=account_key(request, login))


class AdminLoginForm(AdminAuthenticationForm):
    """The admin's log-in, under the same limits as the site's."""

    def clean(self) -> dict[str, Any]:
        login = self.cleaned_data.get("username")
        if not login or not self.cleaned_data.get("password") or self.request is None:
            return super().clean()  # type: ignore[no-any-return]
        try:
            attempt = attempt_begin(self.request, login)
        except LoginLimited as exc:
            raise forms.ValidationError(exc.message, code="too_many_attempts") from exc
        try:
            cleaned = super().clean()
        except forms.ValidationError:
            # A right password for an account that may not use the admin is not a guess.
            if self.user_cache is None:
                attempt.failed()
            else:
                attempt.succeeded()
            raise
        attempt.succeeded()
        return cleaned  # type: ignore[no-any-return]
