"""Workouts in the player's own words (the engine describes them in English only)."""

from __future__ import annotations

from django.utils.translation import gettext, ngettext


def workout_words(kind: str, amount: int) -> str:
    """'25 reps', '90 seconds', '1.5 miles': amounts of a run are kept in tenths of a mile."""
    if kind == "reps":
        return ngettext("%(n)d rep", "%(n)d reps", amount) % {"n": amount}
    if kind == "timed":
        return ngettext("%(n)d second", "%(n)d seconds", amount) % {"n": amount}
    miles, tenths = divmod(amount, 10)
    text = f"{miles}.{tenths}" if tenths else str(miles)
    if amount == 10:
        return gettext("1 mile")
    return gettext("%(miles)s miles") % {"miles": text}


def per_dumbbell_words(kind: str) -> str:
    """What one dumbbell adds to the workout of this kind."""
    return {
        "reps": gettext("5 reps"),
        "timed": gettext("30 seconds"),
        "run": gettext("half a mile"),
    }[kind]
