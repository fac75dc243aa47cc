"""Log-in limits: wrong passwords are counted per account and per address, not log-ins.

One rule for both doors: the site's log-in (allauth, through `accounts.adapter`) and the admin's
(`AdminLoginForm`, installed in `AccountsConfig.ready`), on the same counters, so that guesses
cannot be split between the two. The limits are allauth rate-limit strings in
`ACCOUNT_RATE_LIMITS` (`login_failed_account`, `login_failed_address`); the counters are ours.

A limit of N wrong passwords in a window is N *places* in the cache, one key each. An attempt
takes a free place with `cache.add` (atomic: Redis' SET NX, locmem's lock) *before* its password
is checked, in every limit it falls under (its address, its account): so however many are sent
at once, at most N passwords are ever being checked or found wrong in one window. A right
password gives its places back at once; a wrong one turns them into a mark that lasts the window
(the place expires with it). So:

- only wrong passwords count: players logging in together from one network (a club), or one
  player's tabs logging in at once, are never refused for logging in;
- an attempt that finds every place taken by wrong passwords is refused at once, saying how long
  to wait; one that finds some places held by attempts still being checked waits for them (up to
  `LOGIN_PLACE_WAIT_SECONDS`), because those may prove right and give their places back.

allauth's own `login_failed` limit counted every log-in until it succeeded (and so refused a
club logging in at once); it is switched off in the settings and replaced by this.
"""

from __future__ import annotations

import math
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from allauth.core.internal import ratelimit
from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.sites.shortcuts import get_current_site
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.translation import gettext, ngettext

APP = "allauth.account"
PER_ACCOUNT = "login_failed_account"
PER_ADDRESS = "login_failed_address"
HELD = "held"  # a place taken by an attempt whose password is being checked
WRONG = "wrong"  # a place kept by a wrong password until its window ends
POLL_SECONDS = 0.02


class LoginLimited(Exception):
    """Too many wrong passwords: `message` says for what and how long to wait."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def account_key(request: HttpRequest, login: str) -> str:
    """The per-account counter's key: the site and the address typed, lower-cased."""
    return f"{get_current_site(request).domain}:{login.strip().lower()}"


@dataclass(frozen=True)
class _Limit:
    """One rate of one limit for one address or account: its places' keys."""

    prefix: str
    rate: ratelimit.Rate

    @property
    def keys(self) -> list[str]:
        return [f"{self.prefix}:place:{n}" for n in range(self.rate.amount)]


def _limits(request: HttpRequest, action: str, key: str | None = None) -> list[_Limit]:
    return [
        _Limit(ratelimit.get_cache_key(request, app=APP, action=action, rate=rate, key=key), rate)
        for rate in ratelimit.get_rates(app=APP, action=action)
    ]


@dataclass(frozen=True)
class _Place:
    key: str
    token: str
    duration: float


def _take(limit: _Limit) -> _Place | str:
    """Take a free place: the place, or `WRONG` when every place holds a wrong password, or
    `HELD` when some are held by attempts still being checked (one may free its place)."""
    token = secrets.token_hex(8)
    for key in limit.keys:
        if cache.add(key, (HELD, token, time.time()), timeout=limit.rate.duration):
            return _Place(key, token, limit.rate.duration)
    values = cache.get_many(limit.keys)
    if len(values) == len(limit.keys) and all(v[0] == WRONG for v in values.values()):
        return WRONG
    return HELD


def _give_back(place: _Place) -> None:
    value = cache.get(place.key)
    if value is not None and value[1] == place.token:
        cache.delete(place.key)


def _wait_seconds(limits: list[_Limit]) -> float:
    """How long until a place of these limits frees itself (the oldest wrong password's window
    ends)."""
    now = time.time()
    wait = 0.0
    for limit in limits:
        marks = [v[2] for v in cache.get_many(limit.keys).values() if v[0] == WRONG]
        if len(marks) >= limit.rate.amount:
            wait = max(wait, min(marks) + limit.rate.duration - now)
    return wait


def _minutes(seconds: float) -> int:
    return max(1, math.ceil(seconds / 60))


def _account_refusal(limits: list[_Limit]) -> LoginLimited:
    minutes = _minutes(_wait_seconds(limits))
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


def _address_refusal(limits: list[_Limit]) -> LoginLimited:
    minutes = _minutes(_wait_seconds(limits))
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
    """One log-in between its limit check and its password check, holding its places."""

    places: list[_Place] = field(default_factory=list)
    done: bool = False

    def succeeded(self) -> None:
        """The password was right: this attempt was never a wrong password."""
        if not self.done:
            self.done = True
            for place in self.places:
                _give_back(place)

    def failed(self) -> None:
        """The password was wrong: it counts, for the account and the address, for the window."""
        if not self.done:
            self.done = True
            now = time.time()
            for place in self.places:
                cache.set(place.key, (WRONG, place.token, now), timeout=place.duration)


def attempt_begin(request: HttpRequest, login: str) -> LoginAttempt:
    """Before a password is checked: raise `LoginLimited` when the address or the account has
    had too many wrong passwords, else hold this attempt's places until it is told the result."""
    kinds = [
        (_limits(request, PER_ADDRESS), _address_refusal),
        (_limits(request, PER_ACCOUNT, account_key(request, login)), _account_refusal),
    ]
    deadline = time.monotonic() + settings.LOGIN_PLACE_WAIT_SECONDS
    while True:
        attempt = LoginAttempt()
        refusal: LoginLimited | str | None = None
        for limits, refuse in kinds:
            for limit in limits:
                taken = _take(limit)
                if not isinstance(taken, _Place):
                    refusal = refuse(limits) if taken == WRONG else HELD
                    break
                attempt.places.append(taken)
            if refusal is not None:
                break
        if refusal is None:
            return attempt
        attempt.succeeded()  # nothing was checked: every place taken is given back
        if isinstance(refusal, LoginLimited):
            raise refusal
        if time.monotonic() >= deadline:
            raise LoginLimited(
                gettext("Too many log-ins are being checked at this moment. Try again shortly.")
            )
        time.sleep(POLL_SECONDS)


def account_clear(request: HttpRequest, login: str) -> None:
    """Forget an account's wrong passwords (its password was just reset by e-mail)."""
    for limit in _limits(request, PER_ACCOUNT, account_key(request, login)):
        cache.delete_many(limit.keys)


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
