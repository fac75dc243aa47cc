"""A game as JSON for the API: the same reads, and the same rule on hidden information, as the
game page and its text export (history.selectors): a hand's seed, deal and plays only once it
is over; of the hand in play, its commitment alone."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from api.refs import player_ref
from engine import TableSettings
from history.selectors import current_commitment, game_replay, sides_scored
from history.words import Names, events_words
from tables.models import Game


def game_json(game: Game) -> dict[str, Any]:
    from accounts.models import User
    from ratings.models import RatedGame

    settings = TableSettings.from_dict(game.state["settings"])
    seat_users = list(game.players or [])
    users = User.objects.in_bulk(seat_users)
    names = Names([users[u].shown_name if u in users else "" for u in seat_users], settings)
    replay = game_replay(game)
    hands = []
    for hand in replay.hands:
        hands.append(
            {
                "number": hand.number,
                "seed": hand.deal.seed,
                "commitment": hand.deal.commitment,
                "washes": {str(k): v for k, v in hand.deal.contributions.items()},
                "dealt": hand.dealt,
                "yard": hand.yard,
                "plays": [
                    {
                        "n": i,
                        "seat": step.seat,
                        "kind": step.kind,
                        "action": step.action,
                        "events": step.events,
                        "text": events_words(step.events, names, skip=("hand_over", "game_over")),
                        "version": step.version,
                    }
                    for i, step in enumerate(hand.steps, start=1)
                ],
                "scores": hand.scores_after,
                "result": hand.result,
            }
        )
    result = game.result if game.status == Game.Status.FINISHED else None
    return {
        "id": game.pk,
        "table": game.table_id,
        "mode": settings.mode.value,
        "players": settings.players,
        "partners": settings.partners,
        "target": settings.target,
        "max_pip": settings.max_pip,
        "rated": RatedGame.objects.filter(game=game, rated=True).exists(),
        "status": game.status,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
        "seats": [
            {
                "seat": i,
                "side": settings.side_of(i),
                "player": player_ref(users[u]) if u in users else None,
            }
            for i, u in enumerate(seat_users)
        ],
        "sides": sides_scored(game, settings, replay),
        "winner": None if result is None else result["winner"],
        "hands": hands,
        "current": current_commitment(game),
        "url": reverse("history:game", args=[game.pk]),
    }
