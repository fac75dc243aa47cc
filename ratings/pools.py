"""Rating pools: which games are rated together.

A player has one rating per pool. The four house modes (Citizen, Citizen Gym, Inmate, Inmate
Gym) share the All Fives pools: they score the same way (multiples of five off the ends, with a
spinner); the Gym clock and workouts change the stakes, not the skill measured. The shape of the
game splits them, because one on one, Cut Throat and Partners are different skills (and a
Partners result is half the partner's). Fives and Threes have a pool each: different counts,
different play. docs/ratings.md has the reasons at length.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import models
from django.utils.translation import gettext_lazy as _

from engine import TableSettings


class Pool(models.TextChoices):
    ALLFIVES_1V1 = "allfives-1v1", _("All Fives, one on one")
    ALLFIVES_CUTTHROAT = "allfives-cutthroat", _("All Fives, Cut Throat")
    ALLFIVES_PARTNERS = "allfives-partners", _("All Fives, Partners")
    FIVES = "fives", _("Fives")
    THREES = "threes", _("Threes")


HOUSE_MODES = frozenset({"citizen", "citizen_gym", "inmate", "inmate_gym"})


def pool_for(settings: TableSettings | Mapping[str, Any]) -> Pool:
    """The pool of a table with these settings (a `Table.settings` dict or TableSettings)."""
    if isinstance(settings, TableSettings):
        mode, players, partners = settings.mode.value, settings.players, settings.partners
    else:
        mode = str(settings["mode"])
        players = int(settings["players"])
        partners = bool(settings.get("partners", False))
    if mode == "fives":
        return Pool.FIVES
    if mode == "threes":
        return Pool.THREES
    if mode not in HOUSE_MODES:
        raise ValueError(f"no rating pool for mode {mode!r}")
    if partners:
        return Pool.ALLFIVES_PARTNERS
    if players == 2:
        return Pool.ALLFIVES_1V1
    return Pool.ALLFIVES_CUTTHROAT
