"""What the coach shows: a review's status and result, in the reader's language."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils.translation import gettext

from coach import services, words
from coach.models import Review
from tables.models import Game


def seat_names(game: Game) -> list[str]:
    users = get_user_model().objects.in_bulk([p for p in game.players if p is not None])
    return [
        users[p].shown_name if p in users else gettext("Seat {n}").format(n=i)
        for i, p in enumerate(game.players)
    ]


def review_of(game: Game, user: Any) -> Review | None:
    if user is None or not user.is_authenticated:
        return None
    return Review.objects.filter(game=game, user=user).first()


def played_boards(review: Review) -> dict[int, dict[str, Any] | None]:
    """The board after each of the seat's moves, by the game version the move produced, from
    the game's log: for a review stored before it kept them (`played_board`). Empty when the
    log no longer replays."""
    try:
        return {
            d.version: services.played_board(d.view, d.played)
            for d in services.seat_decisions(review.game, review.seat)
        }
    except ValueError:
        return {}


def review_payload(review: Review, names: list[str] | None = None) -> dict[str, Any]:
    """The review's status (and, once done, every decision and the summary in words): what the
    status endpoint answers and what the game page embeds."""
    data: dict[str, Any] = {
        "status": review.status,
        "done": review.done,
        "total": review.total,
        "url": reverse("coach:review", args=[review.game_id]),
    }
    if review.status == Review.Status.FAILED:
        data["error"] = gettext("The review could not be worked out. Ask again to retry.")
    if review.status != Review.Status.DONE or not review.result:
        return data
    names = names if names is not None else seat_names(review.game)
    result = review.result
    boards = (
        played_boards(review) if any("played_board" not in d for d in result["decisions"]) else {}
    )
    decisions = []
    for d in result["decisions"]:
        options = d["options"]
        best, mine = options[d["best"]], options[d["played"]]
        decisions.append(
            {
                "hand": d["hand"],
                "step": d["step"],
                "mark": d["mark"],
                "mark_label": words.mark_words(d["mark"]),
                "mark_help": words.mark_help(d["mark"]),
                "cost": d["cost"],
                "gap": d.get("gap", d["cost"]),  # method 1 kept no gap: its cost was the gap
                "cost_text": words.points_text(-d["cost"]) if d["cost"] else "0.0",
                "hinted": d.get("hinted", False),
                "played": words.action_words(mine["action"]),
                "best": words.action_words(best["action"]),
                "best_bone": best["action"].get("bone"),
                "best_end": best["action"].get("end"),
                "played_bone": mine["action"].get("bone"),
                "played_end": mine["action"].get("end"),
                "same": d["best"] == d["played"],
                "points_now": d["points_now"],
                "missed_now": d["missed_now"],
                "reason": words.decision_reason(d, names),
                "board": d["board"],
                "played_board": d["played_board"]
                if "played_board" in d
                else boards.get(d["version"]),
            }
        )
    summary = result["summary"]
    data["summary"] = {**summary, "lines": words.summary_words(summary)}
    data["marks"] = [
        {
            "mark": m,
            "label": words.mark_words(m),
            "help": words.mark_help(m),
            "n": summary["marks"][m],
        }
        for m in summary["marks"]
    ]
    data["decisions"] = decisions
    return data
