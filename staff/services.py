"""Staff acts on tables, each recorded with who, when and why in the transaction of its effect.

The effects are the tables' own services (abort, refund through the ledger, broadcast after
commit); a refused act raises `tables.services.TableError` and records nothing.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from ledger import services as ledger
from ledger.models import Posting
from staff.models import StaffAction
from tables import services as tables
from tables.models import Game
from tournaments.models import Match
from tournaments.services import tournament_advance

log = logging.getLogger(__name__)


def game_void(*, game_id: int, by: Any, reason: str) -> StaffAction:
    """Void the game `game_id` itself (never whatever game its table has now): aborted, every
    stake refunded exactly once, the sockets at the table told. A tournament's game is then
    replayed at a new table. Refused for a game that is over (settled, finished or aborted)."""
    with transaction.atomic():
        game = tables.game_void(game_id=game_id, by=by, reason=reason)
        action = StaffAction.objects.create(
            kind=StaffAction.Kind.GAME_VOID,
            by=by,
            table_id=game.table_id,
            game=game,
            reason=reason.strip(),
            detail=_what_followed(game),
        )
    _tournament_replay(action)
    return action


def table_close(*, table_id: int, by: Any, reason: str) -> StaffAction:
    """Close a stuck table: its live game (if any) voided and refunded, the table aborted so that
    nobody sits, starts or rematches there, the sockets told. A tournament's game is replayed at
    a new table, as after a void."""
    with transaction.atomic():
        game = tables.table_close(table_id=table_id, by=by, reason=reason)
        action = StaffAction.objects.create(
            kind=StaffAction.Kind.TABLE_CLOSE,
            by=by,
            table_id=table_id,
            game=game,
            reason=reason.strip(),
            detail=_what_followed(game) if game is not None else {},
        )
    _tournament_replay(action)
    return action


def _what_followed(game: Game) -> dict[str, Any]:
    detail: dict[str, Any] = {"game_number": game.number}
    refund = Posting.objects.filter(key=ledger.refund_key(game.pk)).values_list("key", flat=True)
    detail["refund"] = refund.first()
    match = Match.objects.filter(table_id=game.table_id).select_related("tournament").first()
    if match is not None:
        detail["tournament"] = match.tournament_id
        detail["match"] = match.key
    return detail


def _tournament_replay(action: StaffAction) -> None:
    """After commit, a tournament's match whose game was voided opens its new table at once (the
    tournament sweep would within seconds; both claim the step, so only one opens it), and the
    record names that table."""
    tournament_id = action.detail.get("tournament")
    if tournament_id is None:
        return

    def replay() -> None:
        try:
            tournament_advance(tournament_id=tournament_id)
        except Exception:  # the sweep retries; the void itself is done and recorded
            log.exception("tournament %s: could not advance after a void", tournament_id)
            return
        match = Match.objects.filter(tournament_id=tournament_id, key=action.detail["match"])
        table_id = match.values_list("table_id", flat=True).first()
        if table_id is not None and table_id != action.table_id:
            StaffAction.objects.filter(pk=action.pk).update(
                detail={**action.detail, "replay_table": table_id}
            )

    transaction.on_commit(replay)
