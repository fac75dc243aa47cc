"""The create-table form. The engine validates the rules; every refusal lands on its field."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from engine import SettingsError, TableSettings
from tables.models import MODE_CHOICES

SHAPES = [
    ("one_on_one", _("One on one (2 players)")),
    ("cut_throat_3", _("Cut Throat, 3 players")),
    ("cut_throat_4", _("Cut Throat, 4 players")),
    ("partners", _("Partners (2 against 2)")),
]
SHAPE_SETTINGS: dict[str, dict[str, Any]] = {
    "one_on_one": {"players": 2, "partners": False},
    "cut_throat_3": {"players": 3, "partners": False},
    "cut_throat_4": {"players": 4, "partners": False},
    "partners": {"players": 4, "partners": True},
}
HEAD_TO_HEAD = {"fives", "threes"}
GYM = {"citizen_gym", "inmate_gym"}

# Which engine setting each form field feeds (the engine names the setting it refuses).
FIELD_FOR_SETTING = {
    "players": "shape",
    "partners": "shape",
    "deal": "deal",
    "target": "target",
    "limit": "limit",
    "set": "bone_set",
    "spinner": "spinner",
    "get_on": "get_on",
    "count_by": "count_by",
    "clock": "clock",
    "workout": "workout_amount",
    "workout.kind": "workout_kind",
    "workout.amount": "workout_amount",
    "mode": "mode",
}


class TableForm(forms.Form):
    mode = forms.ChoiceField(label=_("Mode"), choices=MODE_CHOICES, initial="citizen")
    shape = forms.ChoiceField(label=_("Players"), choices=SHAPES, initial="one_on_one")
    deal = forms.TypedChoiceField(
        label=_("Bones each"),
        choices=[(7, "7"), (9, "9")],
        coerce=int,
        initial=7,
        help_text=_("9 only with 2 or 3 players at house tables; the double-nine set deals 9."),
    )
    target = forms.TypedChoiceField(
        label=_("Game to"),
        choices=[(150, "150"), (250, "250")],
        coerce=int,
        initial=150,
        help_text=_("House modes."),
    )
    limit = forms.IntegerField(
        label=_("Game limit"),
        min_value=50,
        max_value=500,
        initial=150,
        required=False,
        help_text=_("Fives and Threes: the first to reach it wins (50 to 500)."),
    )
    bone_set = forms.ChoiceField(
        label=_("Set"),
        choices=[
            ("double-six", _("Double-six (7 each)")),
            ("double-nine", _("Double-nine (9 each)")),
        ],
        initial="double-six",
        help_text=_("Fives and Threes only."),
    )
    spinner = forms.BooleanField(
        label=_("Play with a spinner"), required=False, help_text=_("Fives and Threes only.")
    )
    get_on = forms.TypedChoiceField(
        label=_("Get on with"),
        choices=[("", _("The mode's default")), (0, "0"), (10, "10"), (15, "15"), (20, "20")],
        coerce=int,
        empty_value=None,
        required=False,
        help_text=_("Points a side must score at once to get on the board (house modes)."),
    )
    count_by = forms.TypedChoiceField(
        label=_("Count rounds to"),
        choices=[("", _("The mode's default")), (5, "5"), (10, "10")],
        coerce=int,
        empty_value=None,
        required=False,
        help_text=_("How the pips left in the other hands are rounded when someone dominoes."),
    )
    clock = forms.IntegerField(
        label=_("Turn clock (seconds)"),
        min_value=3,
        max_value=60,
        required=False,
        help_text=_("Gym modes only: 3 to 60 seconds, empty for the mode's default."),
    )
    clock_off = forms.BooleanField(label=_("No clock"), required=False)
    workout_kind = forms.ChoiceField(
        label=_("Base workout"),
        choices=[
            ("reps", _("Reps")),
            ("timed", _("Timed hold (seconds)")),
            ("run", _("Run or walk (tenths of a mile)")),
        ],
        initial="reps",
        required=False,
        help_text=_("Gym modes only: what a loser owes, before dumbbells."),
    )
    workout_amount = forms.IntegerField(
        label=_("Workout amount"), min_value=1, max_value=1000, initial=20, required=False
    )
    on_leave = forms.ChoiceField(
        label=_("When a player leaves for good"),
        choices=[
            ("wait", _("Wait for them to come back")),
            ("forfeit", _("They forfeit: their side loses")),
        ],
        initial="wait",
        required=False,
        help_text=_(
            "Cut Throat and Partners: what happens once a player who left has been away longer "
            "than the grace (60 seconds, 20 if they closed the page). One on one, the other "
            "player may claim the game."
        ),
    )
    private = forms.BooleanField(label=_("Private table (invite link and code)"), required=False)

    settings: TableSettings | None = None

    def options(self) -> dict[str, Any]:
        data = self.cleaned_data
        mode = data["mode"]
        options: dict[str, Any] = dict(SHAPE_SETTINGS[data["shape"]])
        if mode in HEAD_TO_HEAD:
            options["set"] = data["bone_set"]
            options["spinner"] = bool(data.get("spinner"))
            if data.get("limit") is not None:
                options["limit"] = data["limit"]
            options["deal"] = 9 if data["bone_set"] == "double-nine" else 7
        else:
            options["deal"] = data["deal"]
            options["target"] = data["target"]
            if data.get("get_on") is not None:
                options["get_on"] = data["get_on"]
            if data.get("count_by") is not None:
                options["count_by"] = data["count_by"]
            if mode in GYM:
                if data.get("clock_off"):
                    options["clock"] = None
                elif data.get("clock") is not None:
                    options["clock"] = data["clock"]
                options["workout"] = {
                    "kind": data.get("workout_kind") or "reps",
                    "amount": data.get("workout_amount") or 20,
                }
            elif data.get("clock") is not None or data.get("clock_off"):
                self.add_error("clock", _("Only Gym tables play on the clock."))
        return options

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        options = self.options()
        if self.errors:
            return data
        try:
            self.settings = TableSettings.build(data["mode"], **options)
        except SettingsError as exc:
            message = str(exc).removeprefix(f"{exc.field}: ")
            self.add_error(FIELD_FOR_SETTING.get(exc.field), message[:1].upper() + message[1:])
        self.cleaned_options = options
        return data
