"""Reads for the Gym: a player's workouts as their profile shows them."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q

from gym.models import WorkoutOwed
from gym.words import per_dumbbell_words, workout_words

#: How many workouts a profile lists (newest first).
PROFILE_WORKOUTS = 20


def workouts_for_profile(player: Any, viewer: Any) -> dict[str, Any]:
    """Counts for anyone; the list with its "mark done" buttons only for the player."""
    counts = WorkoutOwed.objects.filter(user=player).aggregate(
        owed=Count("pk", filter=Q(done_at=None)), done=Count("pk", filter=~Q(done_at=None))
    )
    rows: list[dict[str, Any]] = []
    if viewer.is_authenticated and viewer.pk == player.pk:
        for w in WorkoutOwed.objects.filter(user=player).select_related("game")[:PROFILE_WORKOUTS]:
            rows.append(
                {
                    "id": w.pk,
                    "words": workout_words(w.kind, w.amount),
                    "base": workout_words(w.kind, w.base_amount),
                    "per_dumbbell": per_dumbbell_words(w.kind),
                    "dumbbells": w.dumbbells,
                    "skunked": w.skunked,
                    "table_id": w.game.table_id,
                    "created_at": w.created_at,
                    "done_at": w.done_at,
                }
            )
    return {"owed": counts["owed"], "done": counts["done"], "rows": rows}
