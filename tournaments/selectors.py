"""Read models of tournaments: the lists, an event as each viewer sees it, the bracket's
drawing (an SVG laid out here, drawn by a template), and Swiss standings."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from clubs import selectors as clubs
from engine import TableSettings
from tables.views import _differences
from tournaments import brackets, money, services
from tournaments.models import Entry, Match, Tournament

S = Tournament.Status
MS = Match.Status

UPCOMING = (S.PUBLISHED, S.REGISTRATION, S.CHECKIN)


def tournament_lists(user: Any) -> dict[str, Any]:
    visible = Tournament.objects.select_related("organizer", "club")
    lists = {
        "upcoming": list(visible.filter(status__in=UPCOMING).order_by("starts_at", "pk")[:50]),
        "running": list(visible.filter(status=S.RUNNING).order_by("starts_at", "pk")[:50]),
        "finished": list(
            visible.filter(status__in=[S.FINISHED, S.CANCELLED]).order_by("-starts_at", "-pk")[:30]
        ),
        "drafts": [],
        "is_organizer": services.is_organizer(user),
        "clubs_led": services.clubs_led(user),
    }
    if lists["is_organizer"] or lists["clubs_led"]:
        drafts = visible.filter(status=S.DRAFT)
        if not user.is_superuser:
            drafts = drafts.filter(Q(organizer=user) | Q(club__in=lists["clubs_led"]))
        lists["drafts"] = list(drafts.order_by("starts_at", "pk"))
    mine = set(
        Entry.objects.filter(
            Q(player=user) | Q(partner=user), withdrawn_at__isnull=True
        ).values_list("tournament_id", flat=True)
    )
    for key in ("upcoming", "running", "finished", "drafts"):
        for t in lists[key]:
            t.mine = t.pk in mine
            t.entrant_count = services.active_entries(t).count()
    return lists


# --- an event as one viewer sees it ------------------------------------------------------------


def format_words(tournament: Tournament) -> str:
    words = tournament.get_format_display()
    if tournament.format == Tournament.Format.SWISS:
        rounds = tournament.rounds_total or tournament.swiss_rounds or 0
        words += " · " + ngettext("%(n)s round", "%(n)s rounds", rounds) % {"n": rounds}
    if tournament.format == Tournament.Format.ARENA:
        minutes = tournament.arena_minutes or 0
        words += " · " + ngettext("%(n)s minute", "%(n)s minutes", minutes) % {"n": minutes}
    return str(words)


def match_words(tournament: Tournament) -> str:
    if tournament.best_of == 1:
        return _("One game per match")
    return _("Best of %(n)s games (first to %(wins)s)") % {
        "n": tournament.best_of,
        "wins": tournament.wins_needed,
    }


def table_words(tournament: Tournament) -> list[str]:
    """The table settings in words: the shape, the game's length, what differs from the mode's
    defaults."""
    settings = TableSettings.from_dict(tournament.table_settings)
    words = [str(_("Partners (2 against 2)") if settings.partners else _("One on one"))]
    if settings.house:
        words.append(_("game to %(n)s") % {"n": settings.target})
    else:
        words.append(_("game limit %(n)s") % {"n": settings.target})

    class _Shim:  # what tables.views._differences reads of a table
        mode = tournament.mode
        settings = tournament.table_settings

    said = {str(_("game to %(n)s") % {"n": settings.target})}
    words += [w for w in _differences(_Shim) if str(w) not in said]  # type: ignore[arg-type]
    if settings.workout is not None:
        words.append(_("base workout: %(w)s") % {"w": settings.workout.describe()})
    return words


def prize_rows(tournament: Tournament) -> dict[str, Any]:
    """Each paid place: its share of the pool, and what that is now (or was paid)."""
    units = money.fee_units(tournament)
    pool = money.pool(tournament=tournament) if units else {}
    rows = []
    for place, percent in enumerate(tournament.prize_split, start=1):
        amount = None
        if pool:
            shares = {
                unit: brackets.prize_amounts(
                    n, tournament.prize_split, [[i] for i in range(len(tournament.prize_split))]
                )[place - 1]
                for unit, n in pool.items()
            }
            amount = money.amounts_text(shares)
        rows.append({"place": place, "percent": percent, "amount": amount})
    return {
        "fee": money.fee_text(tournament),
        "paid_event": bool(units),
        "pool": money.amounts_text(pool) if pool else None,
        "rows": rows,
        "winner_takes_all": tournament.prize_split == [100],
    }


@dataclass
class EntryRow:
    entry: Entry
    name: str
    seed: int | None
    checked_in: bool
    state: str
    note: str = ""
    mine: bool = False


def entrant_rows(tournament: Tournament, user: Any = None) -> list[EntryRow]:
    rows = []
    for entry in tournament.entries.select_related("player", "partner").order_by(
        F("withdrawn_at").asc(nulls_first=True),
        F("seed").asc(nulls_last=True),
        "registered_at",
        "pk",
    ):
        if entry.withdrawn_at is not None:
            state = str(entry.get_withdrawal_display())
        elif entry.disqualified_at is not None:
            state = _("Disqualified")
        elif entry.partner_id and not entry.partner_confirmed:
            state = _("Waiting for the partner to accept")
        elif entry.checked_in:
            state = _("Checked in")
        else:
            state = _("Registered")
        rows.append(
            EntryRow(
                entry=entry,
                name=entry.name,
                seed=entry.seed,
                checked_in=entry.checked_in,
                state=state,
                note=entry.disqualified_reason,
                mine=user is not None and user.pk in entry.user_ids,
            )
        )
    return rows


def table_link(match: Match) -> str | None:
    """The match table's address, with its invite code (tournament tables are private: off the
    lobby, open to anyone who follows the event)."""
    if match.table is None:
        return None
    return f"{reverse('tables:table', args=[match.table_id])}?code={match.table.invite_code}"


def club_gate(tournament: Tournament, user: Any) -> dict[str, Any]:
    """Who may register, for a club's own event (its members) or a club battle (members of its
    clubs, each for one of them: `mine`, the viewer's clubs in it). `ok`: this viewer may."""
    if tournament.club_id is not None:
        return {
            "kind": "club",
            "club": tournament.club,
            "ok": clubs.is_member(tournament.club_id, user),
        }
    if tournament.is_battle:
        theirs = clubs.club_ids_of(user)
        battle = list(tournament.battle_clubs.order_by("name"))
        mine = [c for c in battle if c.pk in theirs]
        return {"kind": "battle", "clubs": battle, "mine": mine, "ok": bool(mine)}
    return {"kind": "open", "ok": True}


def viewer_state(
    tournament: Tournament, user: Any, now: dt.datetime | None = None
) -> dict[str, Any]:
    """What this viewer may do now, and their notice (their match table is ready...)."""
    now = now or timezone.now()
    entry = (
        tournament.entries.filter(Q(player=user) | Q(partner=user))
        .select_related("player", "partner")
        .order_by(F("withdrawn_at").asc(nulls_first=True), "-registered_at")
        .first()
    )
    active = entry is not None and entry.active
    invitation = (
        entry
        if active
        and entry is not None
        and entry.partner_id == user.pk
        and not entry.partner_confirmed
        else None
    )
    my_checked_in = False
    if active and entry is not None:
        my_checked_in = (
            entry.player_checked_in_at
            if entry.player_id == user.pk
            else entry.partner_checked_in_at
        ) is not None
    match = None
    if active and entry is not None and tournament.status == S.RUNNING:
        match = (
            tournament.matches.filter(
                Q(entry_a=entry) | Q(entry_b=entry),
                status__in=[MS.WAITING, MS.PLAYING],
            )
            .select_related(
                "table",
                "entry_a__player",
                "entry_b__player",
                "entry_a__partner",
                "entry_b__partner",
            )
            .first()
        )
    notice = None
    if (
        active
        and entry is not None
        and not my_checked_in
        and tournament.status == S.CHECKIN
        and (not entry.partner_id or entry.partner_confirmed)
    ):
        notice = {"checkin": True, "starts": tournament.starts_at}
    if match is not None:
        opponent = match.entry_b if match.entry_a_id == entry.pk else match.entry_a  # type: ignore[union-attr]
        notice = {
            "match": match,
            "opponent": opponent.name if opponent else "",
            "url": table_link(match),
            "waiting": match.status == MS.WAITING,
            "deadline": match.noshow_deadline,
            "game": len(match.games) + 1,
        }
    open_now = services.registration_open(tournament, now) or _arena_open(tournament, now)
    gate = club_gate(tournament, user)
    return {
        "entry": entry,
        "active": active,
        "invitation": invitation,
        "gate": gate,
        "may_register": not active
        and open_now
        and gate["ok"]
        and services.refusal_reason(user) is None
        and (tournament.bots_welcome or not user.bot),
        "gate_closed": not active and open_now and not gate["ok"],
        "may_withdraw": active
        and tournament.status in (S.PUBLISHED, S.REGISTRATION, S.CHECKIN, S.RUNNING)
        and not (tournament.format == Tournament.Format.ARENA and tournament.status == S.RUNNING),
        "withdraw_refunds": tournament.status != S.RUNNING and bool(money.fee_units(tournament)),
        "may_check_in": active
        and tournament.format != Tournament.Format.ARENA  # an arena has no check-in
        and not my_checked_in
        and services.checkin_open(tournament, now)
        and (entry is None or not entry.partner_id or entry.partner_confirmed),
        "checked_in": my_checked_in,
        "checkin_opens": tournament.starts_at - dt.timedelta(minutes=tournament.checkin_minutes),
        "full": services.active_entries(tournament).count() >= tournament.max_entrants,
        "notice": notice,
    }


# --- the bracket as a picture -----------------------------------------------------------------

BOX_W = 184
BOX_H = 52
ROW_H = BOX_H // 2
GAP_X = 36
UNIT_Y = 68
HEAD_Y = 30
SECTION_GAP = 44


@dataclass
class Box:
    key: str
    x: int
    y: int
    title: str
    rows: list[dict[str, Any]]
    status: str
    status_text: str
    href: str | None = None
    live: bool = False
    mine: bool = False


@dataclass
class Picture:
    width: int
    height: int
    boxes: list[Box] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    headings: list[dict[str, Any]] = field(default_factory=list)
    box_w: int = BOX_W
    box_h: int = BOX_H
    row_h: int = ROW_H


def _source_words(source: brackets.Source) -> str:
    kind, ref = source
    if kind == "winner":
        return _("Winner of %(match)s") % {"match": ref}
    if kind == "loser":
        return _("Loser of %(match)s") % {"match": ref}
    return _("Seed %(n)s") % {"n": ref}


def bracket_picture(tournament: Tournament, user: Any = None) -> Picture | None:
    """The elimination bracket laid out for an SVG: a box per match (two rows: the entrants,
    with their game wins; the winner marked), the lines that carry winners on, and headings."""
    if tournament.format == Tournament.Format.SWISS:
        return None
    seeded = list(tournament.entries.filter(seed__isnull=False).order_by("seed"))
    if len(seeded) < 2:
        return None
    bracket = services._bracket(tournament, len(seeded))
    rows = {
        m.key: m
        for m in tournament.matches.select_related(
            "entry_a__player", "entry_a__partner", "entry_b__player", "entry_b__partner", "table"
        )
    }
    results = {k: m.winner_id for k, m in rows.items() if m.status == MS.DONE}
    try:
        states = brackets.resolve(bracket, [e.pk for e in seeded], results)
    except brackets.BracketError:  # pragma: no cover - the services keep results consistent
        states = {}
    mine = set()
    if user is not None:
        mine = {e.pk for e in seeded if user.pk in e.user_ids}
    size = bracket.size
    stages = size.bit_length() - 1
    centers: dict[str, tuple[int, int]] = {}
    boxes: list[Box] = []
    headings: list[dict[str, Any]] = []
    wb_height = HEAD_Y + (size // 2) * UNIT_Y
    lb_top = wb_height + SECTION_GAP
    lb_unit = size // 4
    columns = 0
    for spec in bracket.matches:
        if spec.bracket == "W":
            col = spec.stage - 1
            slot = UNIT_Y * 2 ** (spec.stage - 1)
            cy = HEAD_Y + int((spec.number - 0.5) * slot)
        elif spec.bracket == "L":
            col = spec.stage - 1
            count = size // 2 ** ((spec.stage + 1) // 2 + 1)
            slot = UNIT_Y * lb_unit // max(count, 1)
            cy = lb_top + HEAD_Y + int((spec.number - 0.5) * slot)
        else:
            col = max(stages, 2 * (stages - 1)) + spec.stage - 1
            cy = HEAD_Y + (size // 2) * UNIT_Y // 2
        columns = max(columns, col + 1)
        x = col * (BOX_W + GAP_X)
        centers[spec.key] = (x, cy)
        boxes.append(
            _box(tournament, spec, rows[spec.key], states.get(spec.key), x, cy - BOX_H // 2, mine)
        )
    lines = []
    for spec in bracket.matches:
        x, cy = centers[spec.key]
        for kind, ref in spec.sources:
            if kind != "winner" or not isinstance(ref, str) or spec.reset:
                continue
            sx, sy = centers[ref]
            if spec.bracket != "F" and bracket.match(ref).bracket != spec.bracket:
                continue
            start_x = sx + BOX_W
            mid = start_x + GAP_X // 2 if spec.bracket != "F" else x - GAP_X // 2
            lines.append(f"M{start_x},{sy} H{mid} V{cy} H{x}")
    if bracket.format == "double":
        gf1_x, gf_y = centers["GF1"]
        gf2_x, _gy = centers["GF2"]
        lines.append(f"M{gf1_x + BOX_W},{gf_y} H{gf2_x}")
    for stage in range(1, stages + 1):
        if bracket.format == "single":
            label = (
                _("Final")
                if stage == stages
                else (_("Semi-finals") if stage == stages - 1 else _("Round %(n)s") % {"n": stage})
            )
        else:
            label = _("Winners round %(n)s") % {"n": stage}
        headings.append({"x": (stage - 1) * (BOX_W + GAP_X), "y": 18, "text": label})
    height = wb_height
    if bracket.format == "double":
        for stage in range(1, 2 * (stages - 1) + 1):
            headings.append(
                {
                    "x": (stage - 1) * (BOX_W + GAP_X),
                    "y": lb_top + 18,
                    "text": _("Losers round %(n)s") % {"n": stage},
                }
            )
        gf_col = max(stages, 2 * (stages - 1))
        headings.append({"x": gf_col * (BOX_W + GAP_X), "y": 18, "text": _("Grand final")})
        headings.append({"x": (gf_col + 1) * (BOX_W + GAP_X), "y": 18, "text": _("Reset")})
        if stages >= 2:
            height = lb_top + HEAD_Y + lb_unit * UNIT_Y
    width = columns * (BOX_W + GAP_X) - GAP_X + 2
    return Picture(width=width, height=height + 4, boxes=boxes, lines=lines, headings=headings)


def _entry_label(entry: Entry | None) -> str:
    return entry.name if entry is not None else ""


def _box(
    tournament: Tournament,
    spec: brackets.BracketMatch,
    match: Match,
    state: brackets.MatchState | None,
    x: int,
    y: int,
    mine: set[int],
) -> Box:
    sides = []
    for i, entry in enumerate((match.entry_a, match.entry_b)):
        if entry is not None:
            name = entry.name
            if entry.seed:
                name = f"{entry.seed}. {name}"
            empty = False
        else:
            source = spec.sources[i]
            nobody = state is not None and state.sides[i] is brackets.EMPTY
            empty = nobody or match.status in (MS.WALKOVER, MS.EMPTY)
            nameless = _("bye") if source[0] == "seed" else "—"
            name = nameless if empty else _source_words(source)
        wins = (match.wins_a, match.wins_b)[i]
        won = match.winner_id is not None and entry is not None and match.winner_id == entry.pk
        sides.append(
            {
                "name": name,
                "wins": wins if tournament.best_of > 1 and match.games else None,
                "won": won,
                "lost": match.is_final and entry is not None and not won,
                "empty": entry is None,
                "out": entry is not None and not entry.active,
            }
        )
    live = match.status in (MS.WAITING, MS.PLAYING)
    return Box(
        key=spec.key,
        x=x,
        y=y,
        title=_match_title(spec),
        rows=sides,
        status=match.status,
        status_text=status_words(match),
        href=table_link(match) if live else None,
        live=live,
        mine=bool({match.entry_a_id, match.entry_b_id} & mine),
    )


def _match_title(spec: brackets.BracketMatch) -> str:
    if spec.key == "GF1":
        return _("Grand final")
    if spec.key == "GF2":
        return _("Grand final reset")
    return spec.key


def status_words(match: Match) -> str:
    if match.status == MS.DONE:
        if match.outcome == Match.Outcome.SETTLED:
            return _("Settled by the organizer")
        if match.outcome == Match.Outcome.BOTH_ABSENT:
            return _("Both absent: both out")
        if match.outcome == Match.Outcome.FORFEIT:
            return _("Won by forfeit (absent opponent)")
        if match.outcome == Match.Outcome.OUT:
            return _("Won by forfeit (opponent out of the event)")
        return _("Finished")
    return str(match.get_status_display())


# --- Swiss --------------------------------------------------------------------------------------


def swiss_table(tournament: Tournament) -> list[dict[str, Any]]:
    if tournament.format != Tournament.Format.SWISS:
        return []
    seeded = list(
        tournament.entries.filter(seed__isnull=False)
        .select_related("player", "partner")
        .order_by("seed")
    )
    if not seeded:
        return []
    by_id = {e.pk: e for e in seeded}
    games = services._swiss_games(tournament)
    rows = []
    for rank, s in enumerate(brackets.swiss_standings([e.pk for e in seeded], games), start=1):
        entry = by_id[s.entrant]
        rows.append(
            {
                "rank": rank,
                "entry": entry,
                "name": entry.name,
                "points": s.points,
                "buchholz": s.buchholz,
                "sonneborn": s.sonneborn_berger,
                "wins": s.wins,
                "losses": s.losses,
                "byes": s.byes,
                "active": entry.active,
            }
        )
    return rows


def rounds(tournament: Tournament) -> list[dict[str, Any]]:
    """Every match by round, as a list (what the bracket picture shows, readable as text)."""
    matches = tournament.matches.select_related(
        "entry_a__player",
        "entry_a__partner",
        "entry_b__player",
        "entry_b__partner",
        "table",
        "winner__player",
        "winner__partner",
        "settled_by",
    ).order_by("round", "bracket", "stage", "number")
    out: dict[int, list[Match]] = {}
    for match in matches:
        match.link = table_link(match) if match.status in (MS.WAITING, MS.PLAYING) else None  # type: ignore[attr-defined]
        match.words = status_words(match)  # type: ignore[attr-defined]
        match.bracket_name = match.get_bracket_display()  # type: ignore[attr-defined]
        out.setdefault(match.round, []).append(match)
    return [
        {"number": n, "matches": ms, "current": n == tournament.current_round}
        for n, ms in sorted(out.items())
    ]


def _arena_open(tournament: Tournament, now: dt.datetime) -> bool:
    """A running arena takes players until it ends."""
    from tournaments import arenas

    return (
        tournament.format == Tournament.Format.ARENA
        and tournament.status == S.RUNNING
        and now < arenas.ends_at(tournament)
    )


def arena_context(tournament: Tournament, user: Any) -> dict[str, Any] | None:
    """An arena's part of its page: its times, the standings (as the frames send them), and
    the viewer's own place, game and buttons."""
    from tournaments import arena, arenas

    if tournament.format != Tournament.Format.ARENA:
        return None
    frame = arenas.standings_frame(tournament)
    mine = next((r for r in frame["ranks"] if r[0] == user.pk), None)
    entry = tournament.entries.filter(player=user, withdrawn_at__isnull=True).first()
    game = arenas.live_game_of(tournament, user) if entry is not None else None
    clock = arenas.clock_of(tournament)
    return {
        "ends_at": arenas.ends_at(tournament),
        "pairing_until": arenas.pairing_stops_at(tournament),
        "pairing_open": tournament.status == S.RUNNING
        and arenas.pairing_open(tournament, timezone.now()),
        "frame": frame,
        "my_rank": mine[1] if mine else None,
        "my_score": mine[2] if mine else None,
        "entry": entry,
        "game": game,
        "game_url": table_link(game) if game is not None else None,
        "berserk_possible": arena.berserk_allowed(tournament.mode, clock, moved=False),
        "berserked": bool(game and entry and entry.pk in game.berserk),
        "half_clock": arena.berserk_clock_ms(clock) // 1000 if clock else None,
        "expected_minutes": round(
            arena.expected_game_seconds(tournament.mode, arenas.target_of(tournament), clock) / 60
        ),
    }


def live_context(tournament: Tournament, user: Any) -> dict[str, Any]:
    """Everything the event's live part shows (the page fetches it again on every change)."""
    placings = []
    if tournament.placings:
        entries = {e.pk: e for e in tournament.entries.select_related("player", "partner")}
        prizes = tournament.prizes or {}
        place = 1
        for group in tournament.placings:
            for entry_id in group:
                won = prizes.get(str(entry_id), {})
                placings.append(
                    {
                        "place": place,
                        "shared": len(group) > 1,
                        "last_place": place + len(group) - 1,
                        "name": entries[entry_id].name,
                        "entry": entries[entry_id],  # its players' names link to their profiles
                        "prize": _prize_text(won),
                    }
                )
            place += len(group)
    is_arena = tournament.format == Tournament.Format.ARENA  # its standings are its own
    return {
        "tournament": tournament,
        "viewer": viewer_state(tournament, user),
        "picture": None if is_arena else bracket_picture(tournament, user),
        "standings": [] if is_arena else swiss_table(tournament),
        "rounds": [] if is_arena else rounds(tournament),
        "entrants": entrant_rows(tournament, user),
        "final_placings": placings,
        "prizes": prize_rows(tournament),
        "format_words": format_words(tournament),
        "match_words": match_words(tournament),
        "table_words": table_words(tournament),
        "may_manage": services.may_manage(user, tournament),
        "arena": arena_context(tournament, user),
        "event_messages": list(tournament.messages.select_related("sender")[:5]),
    }


def _prize_text(won: dict[str, int]) -> str:
    if not won:
        return ""
    amounts = {}
    for key, n in won.items():
        unit = ("goods", int(key.split(":")[1])) if key.startswith("good:") else (key, None)
        amounts[unit] = n
    return money.amounts_text(amounts)  # type: ignore[arg-type]
