"""The coach's findings in words, in the reader's language, written from the facts the review
computed (points, the ends total, open numbers nobody else can match, the next player's best
reply, the Shark's estimates): nothing here is guessed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext, ngettext, pgettext

from history.words import end_word


def mark_words(mark: str) -> str:
    return {
        "best": pgettext("review mark", "Best"),
        "good": pgettext("review mark", "Good"),
        "inaccuracy": pgettext("review mark", "Inaccuracy"),
        "mistake": pgettext("review mark", "Mistake"),
        "blunder": pgettext("review mark", "Blunder"),
    }.get(mark, mark)


def mark_help(mark: str) -> str:
    return {
        "best": gettext("The Shark's own choice, or within 1 point of it."),
        "good": gettext("Costs 3 points or less against the Shark's choice."),
        "inaccuracy": gettext("Costs more than 3 points, up to 7."),
        "mistake": gettext("Costs more than 7 points, up to 15."),
        "blunder": gettext("Costs more than 15 points."),
    }.get(mark, "")


def points_text(value: float) -> str:
    """A signed estimate, one decimal: "+4.5", or "-2.0" written with a real minus sign."""
    text = f"{abs(value):.1f}"
    return ("+" if value >= 0 else "\u2212") + text


def action_words(action: dict[str, Any]) -> str:
    """A move in a few words: "6-4 on the left end", "6-4 to lead", "play the doubles"."""
    kind = action.get("type")
    if kind == "doubles":
        if action.get("choice") == "play":
            return gettext("play the five doubles for +100")
        return gettext("reshuffle")
    if kind == "draw":
        return gettext("draw from the yard")
    if kind == "pass":
        return gettext("pass")
    bone = action.get("bone", "?")
    end = action.get("end")
    if end is None:
        return gettext("{bone} to lead").format(bone=bone)
    return gettext("{bone} on the {end} end").format(bone=bone, end=end_word(end))


def _number_list(values: Sequence[int]) -> str:
    return gettext(" or ").join(str(v) for v in values)


def option_facts(option: dict[str, Any], next_name: str, target: int) -> list[str]:
    """What one choice does, in sentences."""
    out: list[str] = []
    if option["action"].get("type") != "play":
        return out
    points = option["points"]
    if points:
        out.append(gettext("It scores {n} at once.").format(n=points))
    else:
        out.append(gettext("It scores nothing at once."))
    if option.get("wins"):
        out.append(gettext("It reaches {target}: the game is won.").format(target=target))
    dead = option.get("dead") or []
    if dead:
        out.append(
            ngettext(
                "It leaves a {numbers} nobody else can match.",
                "It leaves a {numbers} nobody else can match.",
                len(dead),
            ).format(numbers=_number_list(dead))
        )
    threat = option.get("threat")
    count = option.get("count")
    if threat and count is not None:
        out.append(
            gettext(
                "It leaves the ends at {count}: the {bone} on the {end} end makes {total} for "
                "{name}."
            ).format(
                count=count,
                bone=threat["bone"],
                end=end_word(threat["end"]),
                total=threat["total"],
                name=next_name,
            )
        )
    elif count is not None:
        out.append(
            gettext(
                "It leaves the ends at {count}, and no bone {name} may hold scores on it."
            ).format(count=count, name=next_name)
        )
    return out


def runner_up(options: Sequence[dict[str, Any]], best: int) -> dict[str, Any] | None:
    """The best of the other choices: another bone, or the other doubles choice (the same bone
    on the mirror end is the same move)."""
    chosen = options[best]["action"]
    others = [
        o
        for i, o in enumerate(options)
        if i != best
        and (o["action"].get("bone") != chosen.get("bone") or o["action"].get("type") != "play")
    ]
    return max(others, key=lambda o: o["estimate"]) if others else None


def _percent(share: float) -> str:
    return f"{100 * share:.0f}"


def outcome_words(best: dict[str, Any], mine: dict[str, Any]) -> list[str]:
    """What the two moves lead to on average, split: points for and against to the end of the
    hand, and the game won or lost where that differs (it counts 200 in the estimate)."""
    out = [
        gettext(
            "On average to the end of the hand, after the Shark's move your side scores "
            "{gained} and the others {conceded}; after yours, {mine_gained} and {mine_conceded}."
        ).format(
            gained=f"{best['gained']:.1f}",
            conceded=f"{best['conceded']:.1f}",
            mine_gained=f"{mine['gained']:.1f}",
            mine_conceded=f"{mine['conceded']:.1f}",
        )
    ]
    if abs(best["won"] - mine["won"]) >= 0.05 or abs(best["lost"] - mine["lost"]) >= 0.05:
        out.append(
            gettext(
                "Your side wins the game in {won} deals out of 100 after the Shark's move and in "
                "{mine_won} after yours, and loses it in {lost} and {mine_lost} (a game counts 200 "
                "in the estimate)."
            ).format(
                won=_percent(best["won"]),
                mine_won=_percent(mine["won"]),
                lost=_percent(best["lost"]),
                mine_lost=_percent(mine["lost"]),
            )
        )
    return out


def decision_reason(decision: dict[str, Any], names: Sequence[str]) -> list[str]:
    """Why the Shark prefers its move (or agrees with yours), as sentences built from the facts:
    the points at once, the game won, numbers nobody can match, what the next player can score,
    own bones kept playable, and the estimates themselves."""
    options = decision["options"]
    best = options[decision["best"]]
    mine = options[decision["played"]]
    next_seat = decision["next_seat"]
    next_name = names[next_seat] if 0 <= next_seat < len(names) else gettext("the next player")
    target = decision["target"]
    worlds = decision["worlds"]
    out: list[str] = []
    if decision["kind"] == "doubles":
        if best["action"].get("choice") == "play":
            out.append(gettext("Playing the five doubles puts +100 at stake for your side."))
        else:
            out.append(
                gettext(
                    "Here the Shark reshuffles: what the hand holds is worth less than a new deal."
                )
            )
    if decision["played"] == decision["best"]:
        out.insert(0, gettext("You played the Shark's move."))
    else:
        best_words = action_words(best["action"])
        if best["action"].get("type") == "play" and best["points"] < mine["points"]:
            out.append(
                gettext(
                    "The Shark gives up {n} at once ({best} against your {mine}) for what comes "
                    "after."
                ).format(
                    n=mine["points"] - best["points"], best=best["points"], mine=mine["points"]
                )
            )
        if best["action"].get("type") == "play":
            bits = []
            if best["points"]:
                bits.append(gettext("scores {n}").format(n=best["points"]))
            if best.get("wins"):
                bits.append(gettext("reaches {target} and wins the game").format(target=target))
            if best.get("dead"):
                bits.append(
                    gettext("leaves a {numbers} nobody else can match").format(
                        numbers=_number_list(best["dead"])
                    )
                )
            threat = best.get("threat")
            mine_threat = mine.get("threat")
            if not threat and mine_threat:
                bits.append(
                    gettext("leaves {name} nothing to score at once").format(name=next_name)
                )
            elif threat and mine_threat and threat["points"] < mine_threat["points"]:
                bits.append(
                    gettext("leaves {name} at most {n} at once").format(
                        name=next_name, n=threat["points"]
                    )
                )
            if best["keeps"] > mine["keeps"]:
                bits.append(
                    ngettext(
                        "keeps {n} of your bones playable",
                        "keeps {n} of your bones playable",
                        best["keeps"],
                    ).format(n=best["keeps"])
                )
            if bits:
                out.append(
                    gettext("{move} {facts}.").format(
                        move=best_words[:1].upper() + best_words[1:],
                        facts=gettext(", ").join(bits)
                        if len(bits) < 2
                        else gettext("{first} and {last}").format(
                            first=gettext(", ").join(bits[:-1]), last=bits[-1]
                        ),
                    )
                )
            else:
                out.append(gettext("The Shark would play {move}.").format(move=best_words))
        mine_threat = mine.get("threat")
        if (
            mine_threat
            and mine.get("count") is not None
            and (not best.get("threat") or best["threat"]["points"] < mine_threat["points"])
        ):
            out.append(
                gettext(
                    "You left the ends at {count}: the {bone} on the {end} end makes {total} "
                    "for {name}."
                ).format(
                    count=mine["count"],
                    bone=mine_threat["bone"],
                    end=end_word(mine_threat["end"]),
                    total=mine_threat["total"],
                    name=next_name,
                )
            )
    if decision["played"] != decision["best"] and "gained" in best:
        out.extend(outcome_words(best, mine))
    if decision["missed_now"] > 0:
        # exact, and always said, even when the Shark too gives the points up for what follows
        out.append(
            gettext(
                "Your move scored {mine} where {best} was there at once: {n} left on the board."
            ).format(mine=mine["points"], best=decision["best_now"], n=decision["missed_now"])
        )
    if decision["played"] == decision["best"]:
        runner = runner_up(options, decision["best"])
        if runner is None:
            out.append(
                ngettext(
                    "Over {worlds} deal of the bones you could not see, the Shark expects {best} "
                    "for your side after it (points for, less against, to the end of the hand).",
                    "Over {worlds} deals of the bones you could not see, the Shark expects {best} "
                    "for your side after it (points for, less against, to the end of the hand).",
                    worlds,
                ).format(worlds=worlds, best=points_text(best["estimate"]))
            )
            return out
        out.append(
            ngettext(
                "Over {worlds} deal of the bones you could not see, the Shark expects {best} for "
                "your side after it (points for, less against, to the end of the hand); the next "
                "best, {other}, {value}.",
                "Over {worlds} deals of the bones you could not see, the Shark expects {best} for "
                "your side after it (points for, less against, to the end of the hand); the next "
                "best, {other}, {value}.",
                worlds,
            ).format(
                worlds=worlds,
                best=points_text(best["estimate"]),
                other=action_words(runner["action"]),
                value=points_text(runner["estimate"]),
            )
        )
        return out
    out.append(
        ngettext(
            "Over {worlds} deal of the bones you could not see, the Shark expects {best} for "
            "your side after its move and {mine} after yours (points for, less against, to the "
            "end of the hand).",
            "Over {worlds} deals of the bones you could not see, the Shark expects {best} for "
            "your side after its move and {mine} after yours (points for, less against, to the "
            "end of the hand).",
            worlds,
        ).format(
            worlds=worlds, best=points_text(best["estimate"]), mine=points_text(mine["estimate"])
        )
    )
    return out


def hint_words(facts: dict[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """A hint as the table page shows it: the move, and why."""
    if facts.get("kind") == "forced":
        only = facts["only"]
        if only.get("type") == "draw":
            reason = [gettext("No bone of yours fits: draw from the yard.")]
        elif only.get("type") == "pass":
            reason = [gettext("No bone fits and the yard is empty: you pass.")]
        else:
            reason = [gettext("This is your only move.")]
        return {"move": action_words(only), "reason": reason}
    best = facts["options"][facts["best"]]
    next_seat = facts["next_seat"]
    next_name = names[next_seat] if 0 <= next_seat < len(names) else gettext("the next player")
    reason = option_facts(best, next_name, facts["target"])
    if facts["kind"] == "doubles" and best["action"].get("choice") == "play":
        reason.append(gettext("Playing the five doubles puts +100 at stake for your side."))
    runner = runner_up(facts["options"], facts["best"])
    if runner is not None:
        reason.append(
            ngettext(
                "Over {worlds} deal of the bones you cannot see, the Shark expects {best} for your "
                "side after it; the next best, {other}, {value}.",
                "Over {worlds} deals of the bones you cannot see, the Shark expects {best} for "
                "your side after it; the next best, {other}, {value}.",
                facts["worlds"],
            ).format(
                worlds=facts["worlds"],
                best=points_text(best["estimate"]),
                other=action_words(runner["action"]),
                value=points_text(runner["estimate"]),
            )
        )
    return {"move": action_words(best["action"]), "reason": reason}


def summary_words(summary: dict[str, Any]) -> list[str]:
    out = [
        ngettext(
            "{n} decision reviewed (forced draws and passes, and moves with one way to play, are "
            "left out).",
            "{n} decisions reviewed (forced draws and passes, and moves with one way to play, are "
            "left out).",
            summary["decisions"],
        ).format(n=summary["decisions"])
    ]
    if summary["accuracy"] is not None:
        out.append(
            gettext(
                "Accuracy {accuracy}%: of what your choices could swing (the Shark's best less its "
                "worst, added up over the game), your moves kept this much."
            ).format(accuracy=f"{summary['accuracy']:.1f}")
        )
    out.append(
        ngettext(
            "Points left on the board: {n} (scored at once by a better play than yours; exact).",
            "Points left on the board: {n} (scored at once by a better play than yours; exact).",
            summary["points_left"],
        ).format(n=summary["points_left"])
    )
    out.append(
        gettext(
            "Estimated cost of every move against the Shark's, added up: {cost} points."
        ).format(cost=f"{summary['cost']:.1f}")
    )
    if summary.get("hinted"):
        out.append(
            ngettext(
                "{n} move was played after a hint.",
                "{n} moves were played after a hint.",
                summary["hinted"],
            ).format(n=summary["hinted"])
        )
    return out


def not_a_player_words() -> str:
    return gettext("Only a player of this game can see its review.")


def review_strings() -> dict[str, str]:
    """What the review's script writes itself, in the reader's language."""
    return {
        "progress": gettext("{done} of {total} decisions"),
        "progress_waiting": gettext("Waiting for a worker…"),
        "where": gettext("Decision {i} of {n}"),
        "where_none": gettext("{n} decisions: step to one with the buttons or ↑ and ↓"),
        "at": gettext("Hand {hand}, move {step}"),
        "you_played": gettext("You played {move}."),
        "shark_plays": gettext("The Shark: {move}."),
        "cost": gettext(
            "Cost: {cost} points against the Shark's move: the two estimates differ by {gap},"
            " scaled to what such a gap is worth when the hand is really played out."
        ),
        "hinted": gettext("Played after a hint."),
        "no_decision": gettext(
            "No decision of yours at this step. Step to one with Previous and Next decision."
        ),
        "board_yours": gettext("Your play: {move}"),
        "board_sharks": gettext("The Shark's play: {move}"),
        "board_same": gettext("Your play, and the Shark's too: {move}"),
        "mark_count": gettext("{label}: {n}"),
        "error": gettext("The review could not be asked for. Try again."),
    }
