"""Rules as data: the modes, one validated settings object per table, and Gym workouts.

Each mode is a :class:`ModeRules` row looked up by name (the rule book's tables, as data); a
table's :class:`TableSettings` starts from its mode's defaults and refuses, with a
:class:`~engine.errors.SettingsError` naming the field, any setting the mode does not allow.

>>> t = TableSettings.build("inmate", players=4, partners=True)
>>> t.get_on, t.count_by, t.smallest_score, t.target, t.sides, t.lead_order[:3]
(15, 10, 10, 150, 2, (0, 1, 2))
>>> TableSettings.build("inmate", get_on=0)
Traceback (most recent call last):
...
engine.errors.SettingsError: get_on: Inmate tables get on with 10, 15 or 20, not 0
>>> TableSettings.build("fives", set="double-nine").deal
9
>>> workout_owed(Workout("reps", 20), dumbbells=2, skunked=True)
Workout(kind='reps', amount=60)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Literal

from .bones import set_name, set_size
from .errors import SettingsError, shorten

__all__ = [
    "MODE_RULES",
    "Mode",
    "ModeRules",
    "TableSettings",
    "Workout",
    "WorkoutKind",
    "round_half_up",
    "workout_owed",
]


class Mode(StrEnum):
    """The six modes a table can play."""

    CITIZEN = "citizen"
    CITIZEN_GYM = "citizen_gym"
    INMATE = "inmate"
    INMATE_GYM = "inmate_gym"
    FIVES = "fives"
    THREES = "threes"


@dataclass(frozen=True, slots=True)
class ModeRules:
    """What a mode fixes and what it lets a table choose (RULES.md, as data)."""

    mode: Mode
    title: str
    house: bool
    """House modes: double-six, spinner, get-on, doubles bonus, skunks, 150 or 250."""
    gym: bool
    """Gym modes: a turn clock, dumbbells and workouts."""
    unit: int
    """An ends total scores when it is a positive multiple of this (5, or 3 at Threes)."""
    smallest_score: int
    """The smallest end score (Inmate: 10; elsewhere the unit)."""
    lead_doubles: tuple[int, ...]
    """House: the house double, then the next doubles in line. Head-to-head: empty (highest
    double first)."""
    get_on_default: int
    get_on_allowed: tuple[int, ...]
    count_by_default: int
    count_by_allowed: tuple[int, ...]
    clock_default: int | None
    clock_name: str | None
    played_for: str


_CITIZEN_LINE: Final = (6, 5, 4, 3, 2, 1, 0)
_INMATE_LINE: Final = (0, 1, 2, 3, 4, 5, 6)  # decided: 1-1, 2-2, ... 6-6 after the 0-0

MODE_RULES: Final[dict[Mode, ModeRules]] = {
    Mode.CITIZEN: ModeRules(
        Mode.CITIZEN, "Citizen", True, False, 5, 5, _CITIZEN_LINE,
        10, (0, 10, 15, 20), 10, (5, 10), None, None, "Dominologist Dollars",
    ),
    Mode.CITIZEN_GYM: ModeRules(
        Mode.CITIZEN_GYM, "Citizen Gym", True, True, 5, 5, _CITIZEN_LINE,
        10, (0, 10, 15, 20), 5, (5, 10), 10, "Community Service", "a workout",
    ),
    Mode.INMATE: ModeRules(
        Mode.INMATE, "Inmate", True, False, 5, 10, _INMATE_LINE,
        15, (10, 15, 20), 10, (5, 10), None, None, "a canteen bet",
    ),
    Mode.INMATE_GYM: ModeRules(
        Mode.INMATE_GYM, "Inmate Gym", True, True, 5, 10, _INMATE_LINE,
        0, (0, 10, 15, 20), 10, (5, 10), 20, "Hard Time", "a workout",
    ),
    Mode.FIVES: ModeRules(
        Mode.FIVES, "Fives", False, False, 5, 5, (), 0, (0,), 5, (5,), None, None,
        "Dominologist Dollars",
    ),
    Mode.THREES: ModeRules(
        Mode.THREES, "Threes", False, False, 3, 3, (), 0, (0,), 3, (3,), None, None,
        "Dominologist Dollars",
    ),
}  # fmt: skip

HOUSE_TARGETS: Final = (150, 250)
SKUNK_LINE: Final = {150: 80, 250: 130}
LIMIT_RANGE: Final = (50, 500)
CLOCK_RANGE: Final = (3, 60)
SETS: Final = {"double-six": 6, "double-nine": 9}


def round_half_up(pips: int, unit: int) -> int:
    """Round ``pips`` to the nearest multiple of ``unit``, halves up, in integers only.

    >>> [round_half_up(p, 10) for p in (4, 5, 14, 15, 25)]
    [0, 10, 10, 20, 30]
    >>> [round_half_up(p, 5) for p in (2, 3, 12, 13)]
    [0, 5, 10, 15]
    >>> [round_half_up(p, 3) for p in (1, 2, 4, 5)]
    [0, 3, 3, 6]
    """
    return (2 * pips + unit) // (2 * unit) * unit


# ---------------------------------------------------------------- workouts

WorkoutKind = Literal["reps", "timed", "run"]
WORKOUT_KINDS: Final = ("reps", "timed", "run")
PER_DUMBBELL: Final = {"reps": 5, "timed": 30, "run": 5}
"""What one dumbbell adds: 5 reps, 30 seconds, half a mile (5 tenths)."""
WORKOUT_MAX: Final = 100_000


@dataclass(frozen=True, slots=True)
class Workout:
    """A Gym workout. ``amount`` is reps, seconds (timed hold), or tenths of a mile (run or walk).

    Runs are kept in tenths of a mile so that every amount is an exact integer: 15 is 1.5 miles.

    >>> Workout("run", 15).describe(), Workout("timed", 90).describe()
    ('1.5 miles', '90 seconds')
    """

    kind: WorkoutKind
    amount: int

    def __post_init__(self) -> None:
        if self.kind not in WORKOUT_KINDS:
            raise SettingsError("workout.kind", f"a workout is reps, timed or run, not "
                                f"{shorten(self.kind)}")  # fmt: skip
        if type(self.amount) is not int or not 1 <= self.amount <= WORKOUT_MAX:
            raise SettingsError(
                "workout.amount", f"a workout amount is a whole number 1 to {WORKOUT_MAX}"
            )

    def describe(self) -> str:
        """The workout in words."""
        if self.kind == "reps":
            return f"{self.amount} rep{'s' if self.amount != 1 else ''}"
        if self.kind == "timed":
            return f"{self.amount} seconds"
        miles, tenths = divmod(self.amount, 10)
        text = f"{miles}.{tenths}" if tenths else str(miles)
        return f"{text} mile{'' if self.amount == 10 else 's'}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "amount": self.amount}

    @classmethod
    def from_dict(cls, data: object) -> Workout:
        if isinstance(data, Workout):
            return data
        if not isinstance(data, Mapping) or set(data) != {"kind", "amount"}:
            raise SettingsError("workout", 'a workout is {"kind": ..., "amount": ...}')
        return cls(data["kind"], data["amount"])


DEFAULT_WORKOUT: Final = Workout("reps", 20)


def workout_owed(base: Workout, dumbbells: int, skunked: bool) -> Workout:
    """What a losing player owes: the base, plus per dumbbell 5 reps / 30 s / half a mile; doubled
    when skunked.

    >>> workout_owed(Workout("run", 10), dumbbells=3, skunked=False)
    Workout(kind='run', amount=25)
    >>> workout_owed(Workout("timed", 60), dumbbells=1, skunked=True)
    Workout(kind='timed', amount=180)
    """
    amount = base.amount + PER_DUMBBELL[base.kind] * dumbbells
    if skunked:
        amount *= 2
    return Workout(base.kind, amount)


# ---------------------------------------------------------------- settings


def _words(values: tuple[int, ...]) -> str:
    text = [str(v) for v in values]
    return text[0] if len(text) == 1 else ", ".join(text[:-1]) + " or " + text[-1]


def _int(name: str, value: object) -> int:
    if type(value) is not int:
        raise SettingsError(name, f"must be a whole number, not {shorten(value)}")
    return value


def _bool(name: str, value: object) -> bool:
    if type(value) is not bool:
        raise SettingsError(name, f"must be true or false, not {shorten(value)}")
    return value


_MODE_NAMES: Final = frozenset(m.value for m in Mode)
_KEYS: Final = frozenset(
    {"players", "partners", "deal", "set", "get_on", "count_by", "target", "limit", "spinner"}
    | {"clock", "workout"}
)


@dataclass(frozen=True, slots=True)
class TableSettings:
    """One table's rules. Build it with :meth:`build`; the constructor does not validate."""

    mode: Mode
    players: int
    partners: bool
    deal: int
    max_pip: int
    get_on: int
    count_by: int
    target: int
    spinner: bool
    clock: int | None
    workout: Workout | None

    # -- derived -------------------------------------------------------------

    @property
    def rules(self) -> ModeRules:
        return MODE_RULES[self.mode]

    @property
    def house(self) -> bool:
        return MODE_RULES[self.mode].house

    @property
    def gym(self) -> bool:
        return MODE_RULES[self.mode].gym

    @property
    def unit(self) -> int:
        return MODE_RULES[self.mode].unit

    @property
    def smallest_score(self) -> int:
        return MODE_RULES[self.mode].smallest_score

    @property
    def sides(self) -> int:
        """Number of sides that own a score: 2 for Partners, else one per seat."""
        return 2 if self.partners else self.players

    def side_of(self, seat: int) -> int:
        """The side a seat plays for (Partners: seats 0+2 are side 0, 1+3 side 1)."""
        return seat % 2 if self.partners else seat

    def seats_of(self, side: int) -> tuple[int, ...]:
        return (side, side + 2) if self.partners else (side,)

    @property
    def set_name(self) -> str:
        return set_name(self.max_pip)

    @property
    def set_size(self) -> int:
        return set_size(self.max_pip)

    @property
    def yard_size(self) -> int:
        """Bones left in the yard after the deal (0 for four players with 7)."""
        return self.set_size - self.players * self.deal

    @property
    def lead_order(self) -> tuple[int, ...]:
        """Doubles that lead a first hand, in order: the house double first (head-to-head: the
        highest double of the set first)."""
        line = MODE_RULES[self.mode].lead_doubles
        return line if line else tuple(range(self.max_pip, -1, -1))

    @property
    def skunk_line(self) -> int | None:
        """A losing side under this is skunked (house modes only)."""
        return SKUNK_LINE.get(self.target) if self.house else None

    # -- building ------------------------------------------------------------

    @classmethod
    def build(cls, mode: object, **overrides: object) -> TableSettings:
        """The mode's defaults with ``overrides`` applied, every one validated.

        Keys: ``players``, ``partners``, ``deal``, ``set``, ``get_on``, ``count_by``, ``target``,
        ``limit``, ``spinner``, ``clock``, ``workout``. A value a mode fixes may be given only as
        that value (``spinner=True`` at a house table is fine, ``spinner=False`` is refused).
        """
        if not isinstance(mode, str) or mode not in _MODE_NAMES:
            names = ", ".join(x.value for x in Mode)
            raise SettingsError("mode", f"unknown mode {shorten(mode)}: choose {names}")
        m = Mode(mode)
        rules = MODE_RULES[m]
        for key in overrides:
            if key not in _KEYS:
                raise SettingsError(key, f"{rules.title} tables have no setting {shorten(key)}")
        get = overrides.get
        title = rules.title

        # players and partners
        players = _int("players", get("players", 4 if rules.house else 2))
        if rules.house and not 2 <= players <= 4:
            raise SettingsError("players", f"a table seats 2 to 4 players, not {players}")
        if not rules.house and players != 2:
            raise SettingsError("players", f"{title} is played by two players, not {players}")
        partners = _bool("partners", get("partners", False))
        if partners and players != 4:
            raise SettingsError("partners", f"Partners needs 4 players, not {players}")

        # the set and the deal
        set_text = get("set", None)
        if set_text is not None and set_text not in SETS:
            raise SettingsError("set", f"the set is double-six or double-nine, not "
                                f"{shorten(set_text)}")  # fmt: skip
        deal_value = get("deal", None)
        deal = None if deal_value is None else _int("deal", deal_value)
        if deal is not None and deal not in (7, 9):
            raise SettingsError("deal", f"the deal is 7 or 9 bones each, not {deal}")
        if rules.house:
            if set_text not in (None, "double-six"):
                raise SettingsError("set", f"{title} plays with the double-six set")
            max_pip = 6
            deal = 7 if deal is None else deal
            if deal == 9 and players == 4:
                raise SettingsError(
                    "deal", "four players cannot be dealt 9 each: the set has 28 bones"
                )
        else:
            default_pip = 9 if deal == 9 else 6
            max_pip = default_pip if set_text is None else SETS[set_text]
            fixed = 9 if max_pip == 9 else 7
            if deal is not None and deal != fixed:
                raise SettingsError(
                    "deal", f"the {set_name(max_pip)} set deals {fixed} each, not {deal}"
                )
            deal = fixed

        # scoring
        get_on = _int("get_on", get("get_on", rules.get_on_default))
        if get_on not in rules.get_on_allowed:
            if rules.house:
                msg = f"{title} tables get on with {_words(rules.get_on_allowed)}, not {get_on}"
            else:
                msg = f"{title} has no get-on number"
            raise SettingsError("get_on", msg)
        count_by = _int("count_by", get("count_by", rules.count_by_default))
        if count_by not in rules.count_by_allowed:
            allowed = _words(rules.count_by_allowed)
            raise SettingsError("count_by", f"{title} counts round to {allowed}, not {count_by}")

        # the game's length
        if rules.house:
            if "limit" in overrides:
                raise SettingsError("limit", f"{title} games go to a target of 150 or 250")
            target = _int("target", get("target", 150))
            if target not in HOUSE_TARGETS:
                raise SettingsError("target", f"house games go to 150 or 250, not {target}")
        else:
            limit = get("limit", None)
            target_value = get("target", None)
            if limit is None:
                limit = 150 if target_value is None else target_value
                name = "limit" if target_value is None else "target"
            else:
                name = "limit"
                if target_value is not None and target_value != limit:
                    raise SettingsError("target", "give the game limit once (limit)")
            target = _int(name, limit)
            low, high = LIMIT_RANGE
            if not low <= target <= high:
                raise SettingsError(name, f"the game limit is {low} to {high}, not {target}")

        # the spinner
        spinner = _bool("spinner", get("spinner", rules.house))
        if rules.house and not spinner:
            raise SettingsError("spinner", f"{title} always plays with a spinner")

        # the clock
        clock_value = get("clock", rules.clock_default)
        clock: int | None
        if clock_value is None:
            clock = None
        else:
            clock = _int("clock", clock_value)
            if not rules.gym:
                raise SettingsError("clock", f"{title} tables have no turn clock")
            low, high = CLOCK_RANGE
            if not low <= clock <= high:
                raise SettingsError(
                    "clock", f"the turn clock runs {low} to {high} seconds, not {clock}"
                )

        # the workout
        workout_value = get("workout", DEFAULT_WORKOUT if rules.gym else None)
        workout: Workout | None
        if workout_value is None:
            if rules.gym:
                raise SettingsError("workout", "a Gym table plays for a workout: set one")
            workout = None
        else:
            if not rules.gym:
                raise SettingsError("workout", f"{title} tables do not play for a workout")
            workout = Workout.from_dict(workout_value)

        return cls(
            mode=m,
            players=players,
            partners=partners,
            deal=deal,
            max_pip=max_pip,
            get_on=get_on,
            count_by=count_by,
            target=target,
            spinner=spinner,
            clock=clock,
            workout=workout,
        )

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON; :meth:`from_dict` reads it back.

        >>> TableSettings.from_dict(TableSettings.build("threes").to_dict()).unit
        3
        """
        data: dict[str, Any] = {
            "mode": self.mode.value,
            "players": self.players,
            "partners": self.partners,
            "deal": self.deal,
            "set": self.set_name,
            "get_on": self.get_on,
            "count_by": self.count_by,
            "target": self.target,
            "spinner": self.spinner,
            "clock": self.clock,
            "workout": None if self.workout is None else self.workout.to_dict(),
        }
        if not self.house:
            data["limit"] = self.target
        return data

    @classmethod
    def from_dict(cls, data: object) -> TableSettings:
        """Build settings from JSON (``{"mode": ..., **settings}``), validating every key."""
        if not isinstance(data, Mapping):
            raise SettingsError("table", "table settings are a JSON object")
        if "mode" not in data:
            raise SettingsError("mode", "the table needs a mode")
        rest = {k: v for k, v in data.items() if k != "mode"}
        for key in rest:
            if not isinstance(key, str):
                raise SettingsError(str(key), "setting names are strings")
        return cls.build(data["mode"], **rest)

    def describe(self) -> dict[str, Any]:
        """The derived rules a client may want to show beside the settings."""
        rules = self.rules
        return {
            "title": rules.title,
            "unit": rules.unit,
            "smallest_score": rules.smallest_score,
            "sides": self.sides,
            "yard": self.yard_size,
            "lead_doubles": list(self.lead_order),
            "skunk_under": self.skunk_line,
            "doubles_bonus": rules.house,
            "clock_name": rules.clock_name if self.clock is not None else None,
            "played_for": rules.played_for,
        }
