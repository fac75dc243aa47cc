"""The cells of the "Play now" grid: a mode, a shape and a stake. Each cell is one pool.

The shapes are those a table can take: one on one, Cut Throat for three or four, and Partners
(two against two). Fives and Threes are played one on one only. Stakes are a few fixed amounts
of Dominologist Dollars, for the modes played for Dollars (Citizen, Fives, Threes): Gym games
are played for a workout, and an Inmate canteen bet is a bundle of goods a player chooses at a
table of their own, so those cells are played for nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from engine import TableSettings

#: Dollars a quick game may be played for (0: for nothing).
STAKES = (0, 10, 50, 100)
DOLLAR_MODES = ("citizen", "fives", "threes")
HOUSE_MODES = ("citizen", "citizen_gym", "inmate", "inmate_gym")
MODES = (*HOUSE_MODES, "fives", "threes")

#: shape -> (players, partners)
SHAPES: dict[str, tuple[int, bool]] = {
    "1v1": (2, False),
    "ct3": (3, False),
    "ct4": (4, False),
    "partners": (4, True),
}
#: The shapes as a sentence names them ("Citizen, one on one, for $10").
SHAPE_NAMES = {
    "1v1": gettext_lazy("one on one"),
    "ct3": gettext_lazy("Cut Throat for 3"),
    "ct4": gettext_lazy("Cut Throat for 4"),
    "partners": gettext_lazy("Partners, 2 against 2"),
}
SHAPE_SHORT = {
    "1v1": gettext_lazy("1 on 1"),
    "ct3": gettext_lazy("Cut Throat 3"),
    "ct4": gettext_lazy("Cut Throat 4"),
    "partners": gettext_lazy("Partners"),
}


class CellError(ValueError):
    """A cell key that names no cell of the grid."""


@dataclass(frozen=True)
class Cell:
    mode: str
    shape: str
    stake: int

    @property
    def key(self) -> str:
        return f"{self.mode}:{self.shape}:{self.stake}"

    @property
    def players(self) -> int:
        return SHAPES[self.shape][0]

    @property
    def partners(self) -> bool:
        return SHAPES[self.shape][1]

    def table_options(self) -> dict[str, Any]:
        """What `tables.services.table_create` is given for this cell (besides the stake)."""
        if self.mode in HOUSE_MODES:
            return {"players": self.players, "partners": self.partners}
        return {}

    def settings(self) -> TableSettings:
        return TableSettings.build(self.mode, **self.table_options())

    def describe(self) -> str:
        """e.g. "Citizen, one on one, for $10"."""
        from tables.models import MODE_CHOICES

        mode = dict(MODE_CHOICES)[self.mode]
        shape = SHAPE_NAMES[self.shape]
        if self.stake:
            return _("%(mode)s, %(shape)s, for $%(stake)s") % {
                "mode": mode,
                "shape": shape,
                "stake": self.stake,
            }
        if self.mode in ("citizen_gym", "inmate_gym"):
            return _("%(mode)s, %(shape)s, for a workout") % {"mode": mode, "shape": shape}
        return _("%(mode)s, %(shape)s, for nothing") % {"mode": mode, "shape": shape}


def shapes_of(mode: str) -> tuple[str, ...]:
    return tuple(SHAPES) if mode in HOUSE_MODES else ("1v1",)


def cell_of(mode: object, shape: object, stake: object = 0) -> Cell:
    """The cell for a mode, shape and stake as a form sends them; a stake is kept only where the
    mode is played for Dollars. Raises CellError."""
    if mode not in MODES:
        raise CellError(_("Choose a game from the grid."))
    assert isinstance(mode, str)
    if shape not in shapes_of(mode):
        raise CellError(_("Choose a game from the grid."))
    assert isinstance(shape, str)
    try:
        amount = int(str(stake or 0))
    except ValueError:
        raise CellError(_("Choose a stake from the list.")) from None
    if amount not in STAKES:
        raise CellError(_("Choose a stake from the list."))
    return Cell(mode, shape, amount if mode in DOLLAR_MODES else 0)


def cell_parse(key: str) -> Cell:
    parts = key.split(":")
    if len(parts) != 3:
        raise CellError(_("Choose a game from the grid."))
    return cell_of(*parts)
