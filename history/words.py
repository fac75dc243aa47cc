"""A finished game in words, in the reader's language: each play, each deal, each count.

The event shapes are the engine's (`engine/events.py`, `to_dict()`); these words match the live
table's move log (the same messages), with the hidden parts shown, as every hand here is over.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext, pgettext

from engine import TableSettings


class Names:
    """Who sits where, and what each side is called."""

    def __init__(self, names: Sequence[str], settings: TableSettings) -> None:
        self.seats = list(names)
        self.settings = settings

    def seat(self, seat: int | None) -> str:
        if seat is None or not 0 <= seat < len(self.seats):
            return "?"
        return self.seats[seat]

    def side(self, side: int | None) -> str:
        if side is None:
            return "?"
        seats = self.settings.seats_of(side)
        if len(seats) == 2:
            return gettext("{a} & {b}").format(a=self.seat(seats[0]), b=self.seat(seats[1]))
        return self.seat(seats[0])


def end_word(end: str) -> str:
    return {
        "left": gettext("left"),
        "right": gettext("right"),
        "up": gettext("up"),
        "down": gettext("down"),
    }.get(end, end)


def wash_reason_words(reason: str) -> str:
    return {
        "first_hand": gettext("First hand: everyone washes."),
        "after_domino": gettext("After a domino: everyone but the rock washes."),
        "locked": gettext("After a locked board: everyone washes."),
        "blocked": gettext("After a blocked hand: everyone washes."),
        "redeal": gettext("Nobody held a double: everyone washes again."),
        "reshuffle": gettext("Five doubles reshuffled: everyone washes again."),
    }.get(reason, reason)


def _lead_words(event: dict[str, Any], names: Names) -> str:
    name = names.seat(event["seat"])
    text = {
        "rock": gettext("{name} has the rock and leads any bone."),
        "house_double": gettext("{name} holds the house double and leads it."),
        "next_double": gettext("{name} leads the next double in line."),
        "highest_double": gettext("{name} leads the highest double."),
    }.get(event["reason"], gettext("{name} leads."))
    return text.format(name=name)


def _scored_words(event: dict[str, Any], names: Names) -> str:
    text = {
        "ends": gettext("{side} scored {points} on the ends ({score} in all)."),
        "bonus": gettext("{side} scored a {points} doubles bonus ({score} in all)."),
        "count": gettext("{side} scored {points} for the count ({score} in all)."),
        "blocked": gettext("{side} scored {points} for the blocked hand ({score} in all)."),
    }.get(event["reason"], gettext("{side} scored {points} on the ends ({score} in all)."))
    return text.format(side=names.side(event["side"]), points=event["points"], score=event["score"])


def event_words(event: dict[str, Any], names: Names) -> str | None:
    """One event as a sentence (None: nothing worth a line of its own)."""
    kind = event["type"]
    if kind == "dealt":
        return gettext("Hand {deal} is dealt.").format(deal=event["deal"])
    if kind == "lead":
        return _lead_words(event, names)
    if kind == "doubles_to_choose":
        return gettext("{name} was dealt five doubles and is choosing.").format(
            name=names.seat(event["seat"])
        )
    if kind == "doubles_chosen":
        if event["choice"] == "play":
            text = gettext("{name} plays the doubles for +100.")
        else:
            text = gettext("{name} asks for a reshuffle.")
        return text.format(name=names.seat(event["seat"]))
    if kind == "bone_played":
        if event["end"] is None:
            return gettext("{name} led {bone}. Ends: {count}.").format(
                name=names.seat(event["seat"]), bone=event["bone"], count=event["count"]
            )
        return gettext("{name} played {bone} on the {end} end. Ends: {count}.").format(
            name=names.seat(event["seat"]),
            bone=event["bone"],
            end=end_word(event["end"]),
            count=event["count"],
        )
    if kind == "drew":
        return gettext("{name} drew {bone} from the yard ({yard} left).").format(
            name=names.seat(event["seat"]), bone=event.get("bone", "?"), yard=event["yard"]
        )
    if kind == "passed":
        return gettext("{name} passed.").format(name=names.seat(event["seat"]))
    if kind == "scored":
        return _scored_words(event, names)
    if kind == "bonus":
        return gettext("{name} completed the doubles bonus: +{points}.").format(
            name=names.seat(event["seat"]), points=event["points"]
        )
    if kind == "dumbbell":
        return gettext(
            "{name} ran out of time: a dumbbell ({in_turn} this turn, {in_game} this game)."
        ).format(name=names.seat(event["seat"]), in_turn=event["in_turn"], in_game=event["in_game"])
    if kind == "hand_over":
        return " ".join(hand_over_words(event, names))
    if kind == "game_over":
        return gettext("Game over: {side} wins.").format(side=names.side(event["winner"]))
    return None  # wash: the next hand's deal says it


def events_words(events: Sequence[dict[str, Any]], names: Names, skip: Sequence[str] = ()) -> str:
    """The events as sentences, leaving out the event types in `skip`."""
    words = (event_words(e, names) for e in events if e["type"] not in skip)
    return " ".join(w for w in words if w)


def hand_over_words(event: dict[str, Any], names: Names) -> list[str]:
    """The count of a hand: who dominoed or whether it locked, the pips, the rounding, the
    points."""
    result = event["result"]
    settings = names.settings
    lines: list[str] = []
    if result == "domino":
        lines.append(gettext("{name} dominoed!").format(name=names.seat(event["seat"])))
        if event["pips"] == 0:
            lines.append(gettext("Nothing left to count: no points."))
            return lines
        unit = settings.count_by if settings.house else settings.unit
        lines.append(count_words(event["pips"], event["rounded"], unit))
        if event["points"]:
            lines.append(
                gettext("{side} +{points}.").format(
                    side=names.side(event["side"]), points=event["points"]
                )
            )
        else:
            lines.append(
                gettext(
                    "{side} scores nothing: the count does not reach the get-on number."
                ).format(side=names.side(event["side"]))
            )
    elif result == "locked":
        lines.append(gettext("The board is locked."))
        lines.append(gettext("Nobody can play: no count. End scores already made stand."))
    elif result == "blocked":
        if event["seat"] is None:
            lines.append(gettext("Blocked with equal pips: nobody scores."))
        else:
            lines.append(
                gettext("Blocked: {name} has the fewest pips.").format(
                    name=names.seat(event["seat"])
                )
            )
            lines.append(count_words(event["pips"], event["rounded"], settings.unit))
            if event["points"]:
                lines.append(
                    gettext("{side} +{points}.").format(
                        side=names.side(event["side"]), points=event["points"]
                    )
                )
    elif result == "redeal":
        lines.append(gettext("Redeal."))
    elif result == "forfeit":
        lines.append(gettext("The hand ends by forfeit."))
    elif result == "abandoned":
        lines.append(gettext("The hand ends: a player left the game."))
    else:
        lines.append(gettext("The hand is over."))
    return lines


def count_words(pips: int, rounded: int, unit: int) -> str:
    return gettext("The count: {pips} pips → {rounded}.").format(pips=pips, rounded=rounded) + (
        " " + gettext("(Rounded once to the nearest {unit}, halves up.)").format(unit=unit)
    )


def result_words(result: dict[str, Any] | None, names: Names) -> list[str]:
    """The game's result: who won and how, who was skunked."""
    if result is None:
        return []
    lines = [gettext("{side} wins the game!").format(side=names.side(result["winner"]))]
    if result.get("reason") == "forfeit" and result.get("forfeit") is not None:
        lines.append(
            gettext("{name} forfeited with five dumbbells in one turn.").format(
                name=names.seat(result["forfeit"])
            )
        )
    if result.get("reason") == "abandoned" and result.get("forfeit") is not None:
        lines.append(
            gettext("{name} left the game and lost it.").format(name=names.seat(result["forfeit"]))
        )
    for side in result.get("skunked") or []:
        lines.append(pgettext("a side", "{side}: skunked.").format(side=names.side(side)))
    return lines


def page_strings() -> dict[str, str]:
    """The game page's words for static/js/game.js and board.js, in the reader's language."""
    return {
        # board.js (the replay's board: its end markers describe, they invite no play)
        "ends_total": gettext("Ends: {n}"),
        "ends_total_help": gettext(
            "Ends total: the open ends added up ({n}). A multiple of {unit} scores."
        ),
        "end_left": gettext("left"),
        "end_right": gettext("right"),
        "end_up": gettext("up"),
        "end_down": gettext("down"),
        "end_target": gettext("The {end} end shows {value}"),
        "end_target_empty": gettext("The {end} end shows {value} (it adds nothing yet)"),
        "end_counts": gettext("The {end} end shows {value} and counts {counts}"),
        "board_label": gettext("The board: {n} bones, ends total {total}"),
        "board_empty": gettext("The board is empty: waiting for the lead"),
        "last_play": gettext("Last play"),
        "spinner": gettext("Spinner"),
        # the replay
        "position": gettext("Hand {hand}, step {step} of {steps} · {i} of {n} in all"),
        "seat_bones_one": gettext("{n} bone in hand"),
        "seat_bones_other": gettext("{n} bones in hand"),
        "seat_pips": gettext("{n} pips"),
        "seat_pips_help": gettext("Pips: the spots on the bones still in this hand"),
        "seat_score": gettext("{side}: {score}"),
        "seat_score_help": gettext("The score of this player's side after this step"),
        "to_play": gettext("(to play)"),
        "yard": gettext("Yard: {n}"),
        "yard_help": gettext("Face-down bones left in the yard to draw from"),
        "dumbbells": gettext("Dumbbells: {n}"),
        "dumbbells_help": gettext(
            "Dumbbells: turns where the clock ran out. Each adds to the workout a loser owes; "
            "five in one turn forfeit the game."
        ),
        "no_bones": gettext("No bones left"),
        # the deal check
        "checking": gettext("Checking…"),
        "commitment_ok": gettext(
            "SHA-256 of the seed is {hash}: the commitment published before the wash."
        ),
        "commitment_bad": gettext(
            "SHA-256 of the seed is {hash}, not the commitment published before the wash."
        ),
        "seat_ok_sent": gettext("{name}: {bones}. The same bones the table sent {name}."),
        "seat_ok_replayed": gettext("{name}: {bones}. The same bones the replay deals {name}."),
        "seat_bad": gettext("{name}: {bones}. Not the bones {name} was dealt ({expected})."),
        "yard_order": gettext("The yard, in order: {bones}"),
        "verified": gettext("This deal checks out."),
        "not_verified": gettext("This deal does not check out with these values."),
        "check_error": gettext("The check could not run: {error}"),
        "copied": gettext("Link copied."),
        "copy_failed": gettext("Select the link and copy it."),
    }
