"""Sign-up and profile forms. Every refusal is a field error a player can read."""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from typing import Any

from allauth.account.forms import AddEmailForm as AllauthAddEmailForm
from allauth.account.forms import LoginForm as AllauthLoginForm
from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.conf import settings
from django.utils import formats, timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from accounts.services import OLDEST_PLAUSIBLE_AGE, age_on, email_blocked_until, local_today

DISPLAY_NAME_RE = re.compile(r"^[\w][\w \-]{1,22}[\w]$")
RESERVED_PREFIXES = ("house", "admin", "staff", "dominologist")


def clean_display_name_value(value: str, *, exclude_pk: int | None = None) -> str:
    name = " ".join((value or "").split())
    if not DISPLAY_NAME_RE.match(name):
        raise forms.ValidationError(
            _(
                "Use 3 to 24 letters, digits, spaces, - or _, "
                "starting and ending with a letter or digit."
            )
        )
    if name.lower().startswith(RESERVED_PREFIXES):
        raise forms.ValidationError(_("That name is reserved for the house. Please pick another."))
    taken = User.objects.filter(display_name__iexact=name)
    if exclude_pk is not None:
        taken = taken.exclude(pk=exclude_pk)
    if taken.exists():
        raise forms.ValidationError(_("That display name is taken. Please pick another."))
    return name


def clean_time_zone_value(value: str) -> str:
    value = (value or "").strip() or "UTC"
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return "UTC"
    return value


def refuse_closed_email(value: str) -> None:
    """An e-mail address of an account closed less than `CLOSED_EMAIL_WAIT_DAYS` ago is
    refused, saying from when it is welcome again (docs/privacy.md)."""
    until = email_blocked_until(value) if value else None
    if until is not None:
        raise forms.ValidationError(
            _(
                "An account with this e-mail address was closed less than %(days)d days ago. "
                "The address can be used to sign up again from %(date)s."
            )
            % {
                "days": settings.CLOSED_EMAIL_WAIT_DAYS,
                "date": formats.date_format(timezone.localtime(until), "DATE_FORMAT"),
            },
            code="closed_recently",
        )


class DateOfBirthInput(forms.DateInput):
    input_type = "date"

    def __init__(self) -> None:
        super().__init__(format="%Y-%m-%d", attrs={"autocomplete": "bday"})


class SignupForm(AllauthSignupForm):
    """allauth's sign-up plus a display name, a date of birth and the 18+ confirmation."""

    display_name = forms.CharField(
        label=_("Display name"),
        max_length=24,
        help_text=_("What other players see at the table."),
        widget=forms.TextInput(attrs={"autocomplete": "nickname"}),
    )
    date_of_birth = forms.DateField(
        label=_("Date of birth"),
        widget=DateOfBirthInput(),
        input_formats=["%Y-%m-%d"],
        help_text=_("You must be 18 or older to play."),
        error_messages={"invalid": _("Enter a real date, like 1990-04-25.")},
    )
    confirm_adult = forms.BooleanField(
        label=_("I confirm that I am 18 or older and that I play for play money only."),
        error_messages={"required": _("Please confirm that you are 18 or older.")},
    )
    time_zone = forms.CharField(required=False, widget=forms.HiddenInput())

    field_order = [
        "email",
        "display_name",
        "date_of_birth",
        "password1",
        "password2",
        "confirm_adult",
        "time_zone",
    ]

    #: Set when the date of birth says the person is under 18 (the view then blocks retries).
    under_age = False

    def clean_display_name(self) -> str:
        return clean_display_name_value(self.cleaned_data.get("display_name", ""))

    def clean_email(self) -> str:
        value: str = super().clean_email()
        refuse_closed_email(value)
        return value

    def clean_time_zone(self) -> str:
        return clean_time_zone_value(self.cleaned_data.get("time_zone", ""))

    def clean_date_of_birth(self) -> dt.date:
        born: dt.date = self.cleaned_data["date_of_birth"]
        today = local_today(clean_time_zone_value(self.data.get("time_zone", "")))
        if born > today:
            raise forms.ValidationError(_("That date is in the future."))
        if age_on(born, today) > OLDEST_PLAUSIBLE_AGE:
            raise forms.ValidationError(_("Please enter your real date of birth."))
        if age_on(born, today) < settings.MINIMUM_AGE:
            self.under_age = True
            raise forms.ValidationError(_("You must be 18 or older to join."), code="under_age")
        return born


class LoginForm(AllauthLoginForm):  # type: ignore[misc]
    """allauth's log-in form in the site's words; the page links to the password reset."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["login"].label = _("Email")
        self.fields["password"].help_text = ""
        if "remember" in self.fields:
            self.fields["remember"].label = _("Keep me logged in on this device")


class AddEmailForm(AllauthAddEmailForm):  # type: ignore[misc]
    """allauth's "add an e-mail address", refusing a recently closed account's address too."""

    def clean_email(self) -> str:
        value: str = super().clean_email()
        refuse_closed_email(value)
        return value


class ProfileForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = User
        fields = ["display_name", "time_zone", "language", "profile_visibility"]
        widgets = {"time_zone": forms.Select(), "profile_visibility": forms.RadioSelect()}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        zones = sorted(zoneinfo.available_timezones())
        self.fields["time_zone"].widget.choices = [(z, z) for z in zones]
        self.fields["language"].required = True
        # Left out of a form sent without it, the choice stays as it was.
        self.fields["profile_visibility"].required = False

    def clean_profile_visibility(self) -> str:
        return str(self.cleaned_data.get("profile_visibility") or self.instance.profile_visibility)

    def clean_display_name(self) -> str:
        return clean_display_name_value(
            self.cleaned_data.get("display_name", ""), exclude_pk=self.instance.pk
        )

    def clean_time_zone(self) -> str:
        value = self.cleaned_data.get("time_zone", "")
        try:
            zoneinfo.ZoneInfo(value)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
            raise forms.ValidationError(_("Pick a time zone from the list.")) from exc
        return str(value)


class AgeActionForm(forms.Form):
    """The reason a staff member gives for an age-status change in admin."""

    reason = forms.CharField(
        label=_("Reason"),
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=1000,
        help_text=_("Recorded with your name and the time."),
    )
