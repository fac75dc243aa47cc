"""The only code of the tournaments app that talks to the channel layer, always after commit.

Every visible change to an event raises its `seq` and tells the group `tournament.<id>` (a
notice of kind `tournament_changed`, received by the pages watching it on their notices socket:
apps.py registers the groups as watch topics); the event's pages fetch their live part again
(rendered for each viewer, in their language), so the message itself carries nothing private:
only the event's id and its new seq.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import F, Sum

from dominoes_site.layer import group_send
from social.notices import notice_message

log = logging.getLogger(__name__)


def group_name(tournament_id: int) -> str:
    return f"tournament.{tournament_id}"


LIST_GROUP = "tournaments"


def event_version(tournament_id: int | None) -> int:
    """The event's version now (0 for none): its `seq` plus its `standings_seq` (an arena's
    standings change without a `tournament_changed`). Its pages render it, and the notices
    socket's `watching` answer carries it, so a page that missed a change (or a standings
    frame) before it watched fetches its live part."""
    from tournaments.models import Tournament

    row = (
        Tournament.objects.filter(pk=tournament_id or 0).values_list("seq", "standings_seq").first()
    )
    return sum(row) if row else 0


def list_version(_none: int | None = None) -> int:
    """The list's version: the sum of every event's seq, which every `tournament_changed`
    raises (the list's group hears them all)."""
    from tournaments.models import Tournament

    return int(Tournament.objects.aggregate(total=Sum("seq"))["total"] or 0)


def tournament_changed(tournament_id: int) -> None:
    """Raise the event's seq and, once the transaction commits, tell its pages and the list."""
    from tournaments.models import Tournament

    Tournament.objects.filter(pk=tournament_id).update(seq=F("seq") + 1)

    def send() -> None:
        seq = Tournament.objects.filter(pk=tournament_id).values_list("seq", flat=True).first()
        message = notice_message(
            "tournament_changed", {"tournament": tournament_id, "seq": seq or 0}
        )
        try:
            group_send(group_name(tournament_id), message)
            group_send(LIST_GROUP, message)
        except Exception:  # a page that misses it catches up on its next poll
            log.exception("tournament %s: could not broadcast", tournament_id)

    transaction.on_commit(send)
