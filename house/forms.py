"""The lobby's Practice form: a mode, the table's shape and the house players' level."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import HouseLevel
from tables.forms import HEAD_TO_HEAD, SHAPE_SETTINGS, SHAPES
from tables.models import MODE_CHOICES

GYM_MODES = ("citizen_gym", "inmate_gym")


class PracticeForm(forms.Form):
    mode = forms.ChoiceField(label=_("Mode"), choices=MODE_CHOICES, initial="citizen")
    shape = forms.ChoiceField(
        label=_("Seats"),
        choices=SHAPES,
        initial="one_on_one",
        help_text=_("Fives and Threes are one on one."),
    )
    level = forms.ChoiceField(
        label=_("Level"),
        choices=HouseLevel.choices,
        initial=HouseLevel.REGULAR,
        help_text=_(
            "How well the house players play: Rookie at random, Regular for the most points now, "
            "Shark looking ahead."
        ),
    )

    clock = forms.ChoiceField(
        label=_("Turn clock (Gym modes)"),
        choices=[
            ("", _("The mode's own: 10 seconds at Citizen Gym, 20 at Inmate Gym")),
            ("20", _("20 seconds")),
            ("30", _("30 seconds")),
            ("60", _("60 seconds")),
            ("off", _("No clock: practise without time")),
        ],
        required=False,
        help_text=_(
            "How long each turn may take; when it runs out you take a dumbbell. The other modes "
            "have no clock."
        ),
    )

    @staticmethod
    def for_lobby() -> dict[str, object]:
        """The lobby's empty Practice form (tables.views.LOBBY_FORMS)."""
        return {"practice_form": PracticeForm(prefix="practice")}

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("mode") in HEAD_TO_HEAD and data.get("shape") not in (None, "one_on_one"):
            self.add_error("shape", _("Fives and Threes are played one on one."))
        return data

    @property
    def clock_settings(self) -> dict[str, Any]:
        """The chosen clock, at a Gym mode only (nothing: the mode's own)."""
        choice = self.cleaned_data.get("clock") or ""
        if self.cleaned_data["mode"] not in GYM_MODES or not choice:
            return {}
        return {"clock": None if choice == "off" else int(choice)}

    @property
    def shape_settings(self) -> dict[str, Any]:
        return dict(SHAPE_SETTINGS[self.cleaned_data["shape"]])
