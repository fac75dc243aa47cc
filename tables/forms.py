"""The create-table form. Every refusal lands on its field, in the player's language.

The form checks what a player can get wrong against the mode's rules (engine.MODE_RULES) with
its own words, then the engine validates the whole; an engine refusal the form did not foresee
still lands on its field, translated. The page's script only hides what the chosen mode does not
allow (data from `mode_rules_data`); without it every field shows, grouped under the modes it
applies to, and the server explains any refusal.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.forms.boundfield import BoundField
from django.utils.translation import gettext_lazy as _

from engine import SettingsError, TableSettings
from engine.rules import MODE_RULES, Mode
from tables import stakes
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

#: The form's fields, by the modes they apply to (the page groups them under these headings).
HOUSE_FIELDS = ("deal", "target", "get_on", "count_by")
HEAD_TO_HEAD_FIELDS = ("bone_set", "limit", "spinner")
GYM_FIELDS = ("clock", "clock_off", "workout_kind", "workout_amount")
SHAPE_PLAYERS = {shape: int(settings["players"]) for shape, settings in SHAPE_SETTINGS.items()}

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
    shape = forms.ChoiceField(
        label=_("Players"),
        choices=SHAPES,
        initial="one_on_one",
        help_text=_("Fives and Threes are one on one."),
    )
    deal = forms.TypedChoiceField(
        label=_("Bones each"),
        choices=[(7, "7"), (9, "9")],
        coerce=int,
        empty_value=None,
        required=False,
        initial=7,
        help_text=_("9 each only with 2 or 3 players."),
    )
    target = forms.TypedChoiceField(
        label=_("Game to"),
        choices=[(150, "150"), (250, "250")],
        coerce=int,
        empty_value=None,
        required=False,
        initial=150,
    )
    limit = forms.IntegerField(
        label=_("Game limit"),
        min_value=50,
        max_value=500,
        initial=150,
        required=False,
        help_text=_("The first to reach it wins (50 to 500)."),
    )
    bone_set = forms.ChoiceField(
        label=_("Set"),
        choices=[
            ("double-six", _("Double-six (7 each)")),
            ("double-nine", _("Double-nine (9 each)")),
        ],
        initial="double-six",
        required=False,
    )
    spinner = forms.BooleanField(label=_("Play with a spinner"), required=False)
    get_on = forms.TypedChoiceField(
        label=_("Get on with"),
        choices=[("", _("The mode's default")), (0, "0"), (10, "10"), (15, "15"), (20, "20")],
        coerce=int,
        empty_value=None,
        required=False,
        help_text=_("Points a side must score at once to get on the board."),
        widget=forms.Select(attrs={"data-default-label": _("The mode's default ({n})")}),
    )
    count_by = forms.TypedChoiceField(
        label=_("Count rounds to"),
        choices=[("", _("The mode's default")), (5, "5"), (10, "10")],
        coerce=int,
        empty_value=None,
        required=False,
        help_text=_("How the pips left in the other hands are rounded when someone dominoes."),
        widget=forms.Select(attrs={"data-default-label": _("The mode's default ({n})")}),
    )
    clock = forms.IntegerField(
        label=_("Turn clock (seconds)"),
        min_value=3,
        max_value=60,
        required=False,
        help_text=_(
            "3 to 60 seconds; empty for the mode's default (10 at Citizen Gym, 20 at Inmate Gym)."
        ),
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
        help_text=_("What a loser owes, before dumbbells."),
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
            "than the grace (60 seconds, 20 if they closed the page)."
        ),
    )
    private = forms.BooleanField(label=_("Private table (invite link and code)"), required=False)
    casual = forms.BooleanField(
        label=_("Casual: not rated"),
        required=False,
        help_text=_(
            "Rated by default: games change the players' ratings. A casual table's games never do."
        ),
    )

    settings: TableSettings | None = None
    #: What the table is played for, from the stake keeper's part of the form (after clean()).
    stake_spec: Any = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The stake's fields ("stake", a canteen bet's goods) are the stake keeper's
        # (tables/stakes.py): the ledger's, which tables does not import.
        self.stake_form = stakes.keeper().stake_form()
        self.fields.update(self.stake_form.fields())

    def fields_named(self, names: tuple[str, ...]) -> list[BoundField]:
        return [self[name] for name in names]

    @property
    def house_fields(self) -> list[BoundField]:
        return self.fields_named(HOUSE_FIELDS)

    @property
    def head_to_head_fields(self) -> list[BoundField]:
        return self.fields_named(HEAD_TO_HEAD_FIELDS)

    @property
    def gym_fields(self) -> list[BoundField]:
        return self.fields_named(GYM_FIELDS)

    @property
    def canteen_fields(self) -> list[BoundField]:
        return [self[name] for name in self.stake_form.canteen_names]

    def add_stake_refusal(self, refusal: stakes.StakeRefused) -> None:
        """Put the stake keeper's refusal on the field it is about."""
        name = self.stake_form.field_for(refusal.field)
        self.add_error(name if name in self.fields else None, refusal.message)

    def options(self) -> dict[str, Any]:
        data = self.cleaned_data
        mode = data["mode"]
        options: dict[str, Any] = dict(SHAPE_SETTINGS[data["shape"]])
        # A field the mode does not use may be missing (the page disables what it hides): the
        # mode's own default then.
        if mode in HEAD_TO_HEAD:
            bone_set = data.get("bone_set") or "double-six"
            options["set"] = bone_set
            options["spinner"] = bool(data.get("spinner"))
            if data.get("limit") is not None:
                options["limit"] = data["limit"]
            options["deal"] = 9 if bone_set == "double-nine" else 7
        else:
            options["deal"] = data.get("deal") or 7
            options["target"] = data.get("target") or 150
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
        return options

    def check_rules(self) -> None:
        """The mode's rules a player can break with this form, refused in the player's words
        before the engine sees them."""
        data = self.cleaned_data
        mode = data["mode"]
        rules = MODE_RULES[Mode(mode)]
        mode_name = dict(MODE_CHOICES)[mode]
        if mode in HEAD_TO_HEAD:
            if data["shape"] != "one_on_one":
                self.add_error(
                    "shape", _("Fives and Threes are played one on one, by two players.")
                )
            return
        if data.get("deal") == 9 and SHAPE_PLAYERS[data["shape"]] == 4:
            self.add_error(
                "deal", _("Four players can't be dealt 9 bones each: the set has only 28.")
            )
        get_on = data.get("get_on")
        if get_on is not None and get_on not in rules.get_on_allowed:
            self.add_error(
                "get_on",
                _("%(mode)s tables get on with %(allowed)s.")
                % {"mode": mode_name, "allowed": either(rules.get_on_allowed)},
            )
        count_by = data.get("count_by")
        if count_by is not None and count_by not in rules.count_by_allowed:
            self.add_error(
                "count_by",
                _("%(mode)s tables count rounds to %(allowed)s.")
                % {"mode": mode_name, "allowed": either(rules.count_by_allowed)},
            )
        clock_given = data.get("clock") is not None
        if mode not in GYM and (clock_given or data.get("clock_off")):
            self.add_error("clock", _("Only Gym tables play on the clock."))
        elif clock_given and data.get("clock_off"):
            self.add_error("clock", _("Choose a turn clock or “No clock”, not both."))

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        self.stake_spec = self.stake_form.spec(self.cleaned_data)
        if self.errors:
            return data
        self.check_rules()
        if self.errors:
            return data
        options = self.options()
        try:
            self.settings = TableSettings.build(data["mode"], **options)
        except SettingsError as exc:  # not foreseen above: still on its field, in words
            field = FIELD_FOR_SETTING.get(exc.field)
            self.add_error(
                field if field in self.fields else None,
                _("%(mode)s tables can't be set up this way: check this setting.")
                % {"mode": dict(MODE_CHOICES)[data["mode"]]},
            )
        self.cleaned_options = options
        return data


def either(values: tuple[int, ...]) -> str:
    """ "10, 15 or 20" in the reader's language."""
    words = [str(v) for v in values]
    if len(words) == 1:
        return words[0]
    return _("%(some)s or %(last)s") % {"some": ", ".join(words[:-1]), "last": words[-1]}


def mode_rules_data() -> dict[str, dict[str, Any]]:
    """What the page's script needs to offer only the choices each mode allows."""
    keeper = stakes.keeper()
    return {
        mode.value: {
            "head_to_head": not rules.house,
            "gym": rules.gym,
            "get_on": list(rules.get_on_allowed),
            "get_on_default": rules.get_on_default,
            "count_by": list(rules.count_by_allowed),
            "count_by_default": rules.count_by_default,
            "clock_default": rules.clock_default,
            "stake": keeper.stake_kind(mode.value),  # "dollars", "canteen" or "workout"
        }
        for mode, rules in MODE_RULES.items()
    }
