"""An event's organizer tools: a message to everyone in it (a notice each, and on the event's
page), and its entrants and results, and its games, as CSV files for a spreadsheet."""

from __future__ import annotations

import csv
import datetime as dt
import io
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from social.notices import notify_users
from tournaments import arenas
from tournaments.broadcast import tournament_changed
from tournaments.models import Entry, Match, Tournament, TournamentMessage
from tournaments.services import TournamentError, _ensure_manager, _locked

S = Tournament.Status

#: A message's longest text (characters), and how many an event may send in an hour.
MESSAGE_LENGTH = 500
MESSAGES_PER_HOUR = 5


def entrant_ids(tournament: Tournament) -> list[int]:
    """Everyone in the event now: each active entry's player and partner."""
    ids: list[int] = []
    for player, partner in tournament.entries.filter(
        withdrawn_at__isnull=True, disqualified_at__isnull=True
    ).values_list("player_id", "partner_id"):
        ids += [player] + ([partner] if partner else [])
    return sorted(set(ids))


def entrants_message(
    *, tournament_id: int, by: Any, text: str, now: dt.datetime | None = None
) -> TournamentMessage:
    """Tell everyone in the event `text`: each gets a notice (a card on whatever page they have
    open), and the event's page shows it. Refused, with nothing sent, for a blank or too long
    text, an event nobody is in, or past `MESSAGES_PER_HOUR` in the last hour."""
    now = now or timezone.now()
    text = (text or "").strip()
    if not text:
        raise TournamentError("no_text", _("Write the message."), field="text")
    if len(text) > MESSAGE_LENGTH:
        raise TournamentError(
            "too_long",
            _("A message has at most %(n)s characters.") % {"n": MESSAGE_LENGTH},
            field="text",
        )
    with transaction.atomic():
        tournament = _locked(tournament_id)  # one sender at a time: the hour's count holds
        _ensure_manager(by, tournament)
        if tournament.status in (S.DRAFT, S.CANCELLED):
            raise TournamentError("no_entrants", _("Nobody is in this event to tell."))
        recipients = entrant_ids(tournament)
        if not recipients:
            raise TournamentError("no_entrants", _("Nobody is in this event to tell."))
        sent = tournament.messages.filter(sent_at__gt=now - dt.timedelta(hours=1)).count()
        if sent >= MESSAGES_PER_HOUR:
            raise TournamentError(
                "too_many",
                _("At most %(n)s messages an hour: wait a little, or say it all in one.")
                % {"n": MESSAGES_PER_HOUR},
            )
        message = TournamentMessage.objects.create(
            tournament=tournament, sender=by, text=text, recipients=len(recipients), sent_at=now
        )
        card = reverse("tournaments:message_card", args=[tournament.pk, message.pk])
        notify_users(
            [
                (
                    user_id,
                    "tournament_message",
                    {"tournament": tournament.pk, "message": message.pk, "card_url": card},
                )
                for user_id in recipients
            ]
        )
        tournament_changed(tournament.pk)
    return message


def may_read(message: TournamentMessage, user: Any) -> bool:
    """An entrant (now or once: a withdrawn player was in it when it was sent, perhaps)."""
    return message.tournament.entries.filter(Q(player=user) | Q(partner=user)).exists()


# --- CSV files -----------------------------------------------------------------------------------


def _cell(value: object) -> str:
    """A cell a spreadsheet shows as text: one starting with = + - @ (a formula) is quoted."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _csv(header: list[str], rows: list[list[object]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    for row in rows:
        writer.writerow([_cell(v) for v in row])
    return out.getvalue()


def _when(moment: dt.datetime | None) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC") if moment else ""


def _status(entry: Entry) -> str:
    if entry.disqualified_at:
        return _("disqualified")
    if entry.withdrawn_at:
        return _("withdrawn")
    return _("in")


def _prize_words(won: dict[str, int]) -> str:
    from tournaments.selectors import _prize_text

    return _prize_text(won)


def entrants_csv(tournament: Tournament) -> str:
    """One row per entry, best placed first (then the rest by registration): its place, its
    players and club, when it registered and checked in, whether it is still in, its matches
    played and won (an arena's games, with its points), and its prize."""
    entries = list(
        tournament.entries.select_related("player", "partner", "club").order_by(
            "registered_at", "pk"
        )
    )
    place: dict[int, int] = {}
    at = 1
    for group in tournament.placings or []:
        for entry_id in group:
            place[entry_id] = at
        at += len(group)
    played: dict[int, int] = {}
    won: dict[int, int] = {}
    for a, b, winner in tournament.matches.filter(status=Match.Status.DONE).values_list(
        "entry_a_id", "entry_b_id", "winner_id"
    ):
        for entry_id in (a, b):
            if entry_id is not None and a is not None and b is not None:
                played[entry_id] = played.get(entry_id, 0) + 1
        if winner is not None:
            won[winner] = won.get(winner, 0) + 1
    is_arena = tournament.format == Tournament.Format.ARENA
    points = {}
    if is_arena:
        points = {row.player: row.score for row in arenas.standings(tournament)}
    prizes = tournament.prizes or {}
    entries.sort(key=lambda e: (place.get(e.pk, 10**6), e.registered_at, e.pk))
    header = [
        _("Place"),
        _("Entrant"),
        _("Player"),
        _("Partner"),
        _("Club"),
        _("Registered"),
        _("Checked in"),
        _("Status"),
        _("Seed"),
        _("Games played") if is_arena else _("Matches played"),
        _("Games won") if is_arena else _("Matches won"),
        *([_("Arena points")] if is_arena else []),
        _("Prize"),
    ]
    rows: list[list[object]] = []
    for e in entries:
        rows.append(
            [
                place.get(e.pk, ""),
                e.name,
                e.player.display_name,
                e.partner.display_name if e.partner else "",
                e.club.name if e.club else "",
                _when(e.registered_at),
                _when(e.player_checked_in_at),
                _status(e),
                e.seed or "",
                played.get(e.pk, 0),
                won.get(e.pk, 0),
                *([points.get(e.player_id, 0)] if is_arena else []),
                _prize_words(prizes.get(str(e.pk), {})),
            ]
        )
    return _csv(header, rows)


def games_csv(tournament: Tournament) -> str:
    """One row per match, in play order: its round, its two sides, the games' score, who won
    and how (played, a no-show, settled by an organizer), and when."""
    header = [
        _("Round"),
        _("Match"),
        _("Side A"),
        _("Side B"),
        _("Status"),
        _("Games won by A"),
        _("Games won by B"),
        _("Winner"),
        _("How it ended"),
        _("Started"),
        _("Finished"),
    ]
    matches = tournament.matches.select_related(
        "entry_a__player", "entry_a__partner", "entry_b__player", "entry_b__partner", "winner"
    ).order_by("round", "started_at", "pk")
    rows: list[list[object]] = []
    for m in matches:
        rows.append(
            [
                m.round,
                m.key,
                m.entry_a.name if m.entry_a else "",
                m.entry_b.name if m.entry_b else "",
                m.get_status_display(),
                m.wins_a,
                m.wins_b,
                m.winner.name if m.winner else "",
                m.get_outcome_display() if m.outcome else "",
                _when(m.started_at),
                _when(m.finished_at),
            ]
        )
    return _csv(header, rows)
