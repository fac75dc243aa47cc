"""Tournaments through the API: the events as the list page shows them, one event as its page
does (with the caller's own entry and buttons), the standings (an arena's frame, as the event's
socket sends it; a bracket's or Swiss event's rounds and matches), and registering,
withdrawing, checking in and answering a partner's invitation: the same services the pages
call (tournaments.services), so the same rules, the same fees through the ledger and the same
words. A draft is seen only by those who may manage it, as on the pages."""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from ninja import Body, Path, Router

from accounts.models import User
from api.access import ApiError, caller, needs
from api.refs import player_ref
from api.schemas import Problem
from api.schemas_social import (
    MOST_ID,
    MyEntry,
    PartnerAnswer,
    Register,
    Standings,
    TournamentLists,
)
from api.schemas_social import Tournament as TournamentShape
from tournaments import money, selectors, services
from tournaments.models import Entry, Match, Tournament

router = Router(tags=["Tournaments"])
REFUSALS: dict[int | str, Any] = {401: Problem, 403: Problem, 404: Problem, 429: Problem}
ACTS: dict[int | str, Any] = {**REFUSALS, 400: Problem, 409: Problem}
OptionalBody = Body(None)
EventId = Path(..., ge=1, le=MOST_ID, description="The event's id.")

#: TournamentError codes and the status they are answered with (anything else: 409, the
#: event's state refused it: not open, closed, started, full, already registered, ...).
STATUS = {
    "no_event": 404,
    "no_invitation": 404,
    "not_allowed": 403,
    "club_only": 403,
    "not_your_club": 400,
    "partner_needed": 400,
    "partner_self": 400,
    "no_partners": 400,
}


def _visible(user: Any, tournament_id: int) -> Tournament:
    """The event, as the pages show it: a draft only to whoever may manage it."""
    tournament = (
        Tournament.objects.select_related("organizer", "club").filter(pk=tournament_id).first()
    )
    if tournament is None or (
        tournament.status == Tournament.Status.DRAFT and not services.may_manage(user, tournament)
    ):
        raise ApiError(404, "no_event", _("There is no such event."))
    return tournament


def _do(call: Any, **kwargs: Any) -> Any:
    try:
        return call(**kwargs)
    except services.TournamentError as exc:
        raise ApiError(STATUS.get(exc.code, 409), exc.code, exc.message, field=exc.field) from exc


# --- answers -----------------------------------------------------------------------------------


def _club(club: Any) -> dict[str, Any] | None:
    if club is None:
        return None
    return {"id": club.pk, "name": club.name, "url": club.get_absolute_url()}


def line_json(t: Tournament, entrants: int, mine: bool) -> dict[str, Any]:
    return {
        "id": t.pk,
        "name": t.name,
        "status": t.status,
        "status_name": str(t.get_status_display()),
        "mode": t.mode,
        "mode_name": str(t.get_mode_display()),
        "partners": t.partners,
        "format": t.format,
        "format_name": str(t.get_format_display()),
        "starts_at": t.starts_at,
        "registration_opens": t.registration_opens,
        "registration_closes": t.registration_closes,
        "entrants": entrants,
        "max_entrants": t.max_entrants,
        "fee": str(money.fee_text(t)),
        "fee_kind": t.fee_kind,
        "club": _club(t.club) if t.club_id else None,
        "battle": t.is_battle,
        "mine": mine,
        "url": t.get_absolute_url(),
    }


def entry_ref(entry: Entry | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    players = [entry.player] + ([entry.partner] if entry.partner_id else [])
    return {
        "id": entry.pk,
        "name": entry.name,
        "seed": entry.seed,
        "players": [player_ref(p) for p in players],
        "active": entry.active,
    }


def my_entry(tournament: Tournament, user: Any) -> dict[str, Any]:
    """The caller's part of the event page: their entry and what they may do now."""
    viewer = selectors.viewer_state(tournament, user)
    entry: Entry | None = viewer["entry"]
    state = None
    if entry is not None:
        rows = {r.entry.pk: r for r in selectors.entrant_rows(tournament, user)}
        state = str(rows[entry.pk].state) if entry.pk in rows else None
    partner = None
    if entry is not None and entry.partner_id:
        partner = entry.partner if entry.player_id == user.pk else entry.player
    notice = viewer["notice"]
    match = None
    if notice is not None and "match" in notice:
        match = {
            "table": notice["match"].table_id,
            "url": notice["url"],
            "waiting": notice["waiting"],
            "deadline": notice["deadline"],
            "game": notice["game"],
            "opponent": str(notice["opponent"]),
        }
    invitation = viewer["invitation"]
    return {
        "entry": entry.pk if entry is not None else None,
        "active": viewer["active"],
        "state": state,
        "partner": player_ref(partner) if partner is not None else None,
        "partner_confirmed": bool(entry and entry.partner_confirmed),
        "invitation": invitation.pk if invitation is not None else None,
        "checked_in": viewer["checked_in"],
        "paused": bool(entry and entry.active and entry.paused),
        "club": _club(entry.club) if entry is not None and entry.club_id else None,
        "who_registers": viewer["gate"]["kind"],
        "may_register": viewer["may_register"],
        "may_withdraw": viewer["may_withdraw"],
        "withdraw_refunds": viewer["withdraw_refunds"],
        "may_check_in": viewer["may_check_in"],
        "checkin_opens": viewer["checkin_opens"],
        "full": viewer["full"],
        "match": match,
    }


def tournament_json(tournament: Tournament, user: Any) -> dict[str, Any]:
    t = tournament
    mine = (  # as the list page has it: an entry not withdrawn
        t.entries.filter(Q(player=user) | Q(partner=user), withdrawn_at__isnull=True).exists()
    )
    prizes = selectors.prize_rows(t)
    placings = []
    if t.placings:
        entries = {e.pk: e for e in t.entries.select_related("player", "partner")}
        won = t.prizes or {}
        place = 1
        for group in t.placings:
            for entry_id in group:
                placings.append(
                    {
                        "place": place,
                        "shared": len(group) > 1,
                        "entry": entry_id,
                        "name": entries[entry_id].name,
                        "prize": selectors._prize_text(won.get(str(entry_id), {})),
                    }
                )
            place += len(group)
    return {
        **line_json(t, services.active_entries(t).count(), mine),
        "description": t.description,
        "rules_text": t.rules_text,
        "organizer": player_ref(t.organizer),
        "format_words": str(selectors.format_words(t)),
        "match_words": str(selectors.match_words(t)),
        "table_words": [str(w) for w in selectors.table_words(t)],
        "table_settings": t.table_settings,
        "best_of": t.best_of,
        "swiss_rounds": t.swiss_rounds,
        "arena_minutes": t.arena_minutes,
        "checkin_minutes": t.checkin_minutes,
        "round_minutes": t.round_minutes,
        "noshow_minutes": t.noshow_minutes,
        "seeding": t.seeding,
        "bots_welcome": t.bots_welcome,
        "current_round": t.current_round,
        "rounds_total": t.rounds_total,
        "prizes": {
            "fee": str(prizes["fee"]),
            "pool": str(prizes["pool"]) if prizes["pool"] else None,
            "rows": [
                {
                    "place": r["place"],
                    "percent": r["percent"],
                    "amount": str(r["amount"]) if r["amount"] else None,
                }
                for r in prizes["rows"]
            ],
        },
        "placings": placings,
        "end_note": t.end_note,
        "me": my_entry(t, user),
    }


def match_json(match: Match) -> dict[str, Any]:
    return {
        "id": match.pk,
        "key": match.key,
        "round": match.round,
        "bracket": match.bracket,
        "bracket_name": str(match.get_bracket_display()),
        "stage": match.stage,
        "number": match.number,
        "status": match.status,
        "status_words": str(selectors.status_words(match)),
        "a": entry_ref(match.entry_a),
        "b": entry_ref(match.entry_b),
        "wins_a": match.wins_a,
        "wins_b": match.wins_b,
        "winner": match.winner_id,
        "outcome": match.outcome,
        "table": match.table_id,
        "url": getattr(match, "link", None),
        "finished_at": match.finished_at,
    }


# --- reads -------------------------------------------------------------------------------------


@router.get(
    "",
    response={200: TournamentLists, **REFUSALS},
    auth=needs("read"),
    summary=gettext_noop("Tournaments"),
    description=gettext_noop(
        "Upcoming, running and lately finished events, as the tournaments page lists them (and "
        "your drafts, if you organize)."
    ),
)
def tournament_list(request: HttpRequest) -> dict[str, Any]:
    lists = selectors.tournament_lists(caller(request).user)
    return {
        key: [line_json(t, t.entrant_count, t.mine) for t in lists[key]]
        for key in ("upcoming", "running", "finished", "drafts")
    }


@router.get(
    "/{tournament_id}",
    response={200: TournamentShape, **REFUSALS},
    auth=needs("read"),
    summary=gettext_noop("A tournament"),
    description=gettext_noop(
        "One event as its page shows it: its settings, rules, fee and prizes, how many are in, "
        "and your own entry with what you may do now."
    ),
)
def tournament_one(request: HttpRequest, tournament_id: int = EventId) -> dict[str, Any]:
    user = caller(request).user
    return tournament_json(_visible(user, tournament_id), user)


@router.get(
    "/{tournament_id}/standings",
    response={200: Standings, **REFUSALS},
    auth=needs("read"),
    summary=gettext_noop("A tournament's standings"),
    description=gettext_noop(
        "An arena: its standings frame, as the event's socket sends it (the top rows in full, "
        "every player's rank and score). A bracket or Swiss event: its rounds and matches, "
        "with their winners (and a Swiss event's standings)."
    ),
)
def standings(request: HttpRequest, tournament_id: int = EventId) -> dict[str, Any]:
    from tournaments import arenas

    user = caller(request).user
    tournament = _visible(user, tournament_id)
    is_arena = tournament.format == Tournament.Format.ARENA
    swiss = []
    for row in [] if is_arena else selectors.swiss_table(tournament):
        swiss.append(
            {
                "rank": row["rank"],
                "entry": entry_ref(row["entry"]),
                "points": row["points"],
                "buchholz": row["buchholz"],
                "sonneborn": row["sonneborn"],
                "wins": row["wins"],
                "losses": row["losses"],
                "byes": row["byes"],
            }
        )
    rounds = [
        {
            "number": r["number"],
            "current": r["current"],
            "matches": [match_json(m) for m in r["matches"]],
        }
        for r in ([] if is_arena else selectors.rounds(tournament))
    ]
    return {
        "tournament": tournament.pk,
        "format": tournament.format,
        "status": tournament.status,
        "current_round": tournament.current_round,
        "arena": arenas.standings_frame(tournament) if is_arena else None,
        "swiss": swiss,
        "rounds": rounds,
    }


# --- the player's buttons ----------------------------------------------------------------------


@router.post(
    "/{tournament_id}/register",
    response={200: MyEntry, **ACTS},
    auth=needs("tournaments"),
    summary=gettext_noop("Register for a tournament"),
    description=gettext_noop(
        "The entry fee is taken now (given back if you withdraw before the start). A Partners "
        "event: name your partner, who must then accept. A club battle: the club you play for. "
        "Refused in words: not open, closed, full, already registered, a fee you can't pay, "
        "not in the event's club."
    ),
)
def register(
    request: HttpRequest, tournament_id: int = EventId, body: Register | None = OptionalBody
) -> dict[str, Any]:
    body = body or Register()  # no body: alone, for no club
    user = caller(request).user
    tournament = _visible(user, tournament_id)
    partner = None
    if body.partner is not None:
        partner = User.objects.filter(pk=body.partner, is_active=True).first()
        if partner is None:
            raise ApiError(400, "no_such_player", _("There is no such player."), field="partner")
    _do(
        services.entry_register,
        tournament_id=tournament.pk,
        user=user,
        partner=partner,
        club=body.club,
    )
    return my_entry(_visible(user, tournament_id), user)


@router.post(
    "/{tournament_id}/withdraw",
    response={200: MyEntry, **ACTS},
    auth=needs("tournaments"),
    summary=gettext_noop("Withdraw from a tournament"),
    description=gettext_noop(
        "Before the start the entry fee comes back; after it, your matches are forfeited and "
        "the fee stays in the prize pool. In a running arena, pause on its page instead."
    ),
)
def withdraw(request: HttpRequest, tournament_id: int = EventId) -> dict[str, Any]:
    return _entry_button(request, tournament_id, services.entry_withdraw)


@router.post(
    "/{tournament_id}/check-in",
    response={200: MyEntry, **ACTS},
    auth=needs("tournaments"),
    summary=gettext_noop("Check in"),
    description=gettext_noop(
        "In the check-in window before the start (an arena has none): only entries checked in play."
    ),
)
def check_in(request: HttpRequest, tournament_id: int = EventId) -> dict[str, Any]:
    return _entry_button(request, tournament_id, services.entry_check_in)


def _entry_button(request: HttpRequest, tournament_id: int, service: Any) -> dict[str, Any]:
    """A button of the caller's own entry (`service(tournament_id=, user=)`): the entry after."""
    user = caller(request).user
    tournament = _visible(user, tournament_id)
    _do(service, tournament_id=tournament.pk, user=user)
    return my_entry(_visible(user, tournament_id), user)


@router.post(
    "/{tournament_id}/invitations/{entry_id}",
    response={200: MyEntry, **ACTS},
    auth=needs("tournaments"),
    summary=gettext_noop("Answer a partner's invitation"),
    description=gettext_noop(
        "A player registered with you as their partner: accept (your entry fee is taken) or "
        "decline (the entry is withdrawn and their fee given back)."
    ),
)
def partner_answer(
    request: HttpRequest,
    body: PartnerAnswer,
    tournament_id: int = EventId,
    entry_id: int = Path(..., ge=1, le=MOST_ID, description="The entry naming you."),
) -> dict[str, Any]:
    user = caller(request).user
    tournament = _visible(user, tournament_id)
    if not Entry.objects.filter(pk=entry_id, tournament=tournament).exists():
        raise ApiError(404, "no_invitation", _("There is no such invitation."))
    _do(services.entry_partner_answer, entry_id=entry_id, user=user, accept=body.accept)
    return my_entry(_visible(user, tournament_id), user)
