"""The tournaments' part of a club's page (a `clubs.panels` panel): the club's own events and
series to come and running, the club battles it is in, and for its leaders the buttons that make
the club's own event or series."""

from __future__ import annotations

from django.db.models import Q
from django.http import HttpRequest
from django.template.loader import render_to_string

from clubs import selectors as clubs
from clubs.models import Club
from tournaments.models import Entry, Series, Tournament
from tournaments.series_selectors import schedule_words
from tournaments.services import active_entries

S = Tournament.Status
#: The most events the panel lists (the soonest first).
EVENTS_SHOWN = 10


def club_events(club: Club) -> list[Tournament]:
    """The club's own events and the battles it is in, to come or running, soonest first."""
    return list(
        Tournament.objects.filter(Q(club=club) | Q(battle_clubs=club))
        .filter(status__in=[S.PUBLISHED, S.REGISTRATION, S.CHECKIN, S.RUNNING])
        .select_related("club")
        .distinct()
        .order_by("starts_at", "pk")[:EVENTS_SHOWN]
    )


def club_series(club: Club) -> list[Series]:
    rows = list(Series.objects.filter(club=club).exclude(status=Series.Status.ENDED))
    for row in rows:
        row.words = schedule_words(row)
    return rows


def club_panel(request: HttpRequest, club: Club) -> str:
    leading = clubs.is_leader(club.pk, request.user)
    events = club_events(club)
    mine = set(
        Entry.objects.filter(
            Q(player_id=request.user.pk) | Q(partner_id=request.user.pk),
            tournament__in=events,
            withdrawn_at__isnull=True,
        ).values_list("tournament_id", flat=True)
    )
    for event in events:
        event.mine = event.pk in mine
        event.entrant_count = active_entries(event).count()
    series = club_series(club)
    if not (events or series or leading):
        return ""
    return render_to_string(
        "tournaments/_club_panel.html",
        {"club": club, "events": events, "series_rows": series, "leading": leading},
        request=request,
    )
