"""Arena events on the site: joining, pausing, berserk, pairing waves, the standings and their
frames. The rules themselves are `tournaments.arena` (pure); the tables, no-shows, results and
prizes are the tournaments' own machinery (`tournaments.services`), which calls in here for an
event whose format is "arena".

How an arena runs (docs/tournaments.md, "Arenas"):
- Registration opens as for any event; once the arena runs, players still join (and pay the fee)
  until it ends. Everyone who joined is paired unless they pause; pausing keeps their points and
  their streak, and "Come back" puts them in the next wave.
- The sweep (every few seconds) pairs a wave at most every `WAVE_SECONDS` among the players
  waiting (joined, not paused, not in a game), while `arena.pairing_open` says a game still fits
  before the end. Each pairing is a match of one game at a table of its own, with the no-show
  time of any match; a player who does not come loses that game and is paused (they come back
  with a click).
- A game still on when the arena ends is played out and counts; the arena finishes when the last
  one has, and pays its prizes by the standings (only to players who played a game).
- Standings frames: after a change, each viewer of the event gets one `arena_standings` frame on
  their notices socket, at most one per event every `FRAME_SECONDS`, whatever the number of
  viewers or games (one group message, built once).
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from dominoes_site.layer import group_send
from social.notices import notice_message
from tournaments import arena
from tournaments.broadcast import group_name
from tournaments.models import Entry, Match, Tournament

log = logging.getLogger(__name__)

S = Tournament.Status
MS = Match.Status

#: Seconds between two pairing waves of one arena (the sweep runs every 3 s).
WAVE_SECONDS = 5
#: At most one standings frame per arena this often (seconds).
FRAME_SECONDS = 1.0
#: Rows of the standings in a frame (every player's rank and score travel too, compactly).
TOP_SHOWN = 50
LIVE = (MS.READY, MS.WAITING, MS.PLAYING)


def is_arena(tournament: Tournament) -> bool:
    return tournament.format == Tournament.Format.ARENA


def ends_at(tournament: Tournament) -> dt.datetime:
    return tournament.starts_at + dt.timedelta(minutes=tournament.arena_minutes or 0)


def clock_of(tournament: Tournament) -> int | None:
    clock = tournament.table_settings.get("clock")
    return int(clock) if clock else None


def target_of(tournament: Tournament) -> int:
    return int(tournament.table_settings.get("target") or 150)


def pairing_open(tournament: Tournament, now: dt.datetime) -> bool:
    return arena.pairing_open(
        ends_at=ends_at(tournament),
        now=now,
        mode=tournament.mode,
        target=target_of(tournament),
        clock=clock_of(tournament),
    )


def pairing_stops_at(tournament: Tournament) -> dt.datetime:
    """When the last wave may be paired: a game's expected length before the end."""
    seconds = arena.expected_game_seconds(
        tournament.mode, target_of(tournament), clock_of(tournament)
    )
    return ends_at(tournament) - dt.timedelta(seconds=seconds)


def start_rating(tournament: Tournament, user: Any) -> float:
    """The player's rating in the pool of the event's tables when they join (1500 if new)."""
    from tournaments.services import entry_ratings

    probe = Entry(tournament=tournament, player=user)
    probe.pk = 0
    return entry_ratings(tournament, [probe]).get(0, 1500.0)


# --- players -------------------------------------------------------------------------------


def arena_pause(
    *, tournament_id: int, user: Any, paused: bool, now: dt.datetime | None = None
) -> Entry:
    """Pause (leave for now: no more pairings, points and streak kept) or come back."""
    from tournaments.services import TournamentError, _entry_of, _locked

    with transaction.atomic():
        tournament = _locked(tournament_id)
        if not is_arena(tournament):
            raise TournamentError("not_arena", _("Only an arena can be paused."))
        if tournament.status in (S.FINISHED, S.CANCELLED):
            raise TournamentError("over", _("This event is already over."))
        entry = _entry_of(tournament, user)
        if entry is None or not entry.active:
            raise TournamentError("not_registered", _("You are not in this arena."))
        Entry.objects.filter(pk=entry.pk).update(paused=paused)
        entry.paused = paused
        standings_changed(tournament.pk)
    return entry


def arena_berserk(*, tournament_id: int, user: Any) -> Match:
    """Berserk in the player's current arena game: their own turn clock is halved (tables), and
    a win scores a point more. Only at a Gym table with a clock, before their first move."""
    from tables import services as tables
    from tournaments.services import TournamentError, _entry_of

    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None or not is_arena(tournament):
        raise TournamentError("not_arena", _("Only an arena game can be berserked."))
    entry = _entry_of(tournament, user)
    match = (
        Match.objects.filter(
            Q(entry_a=entry) | Q(entry_b=entry),
            tournament=tournament,
            status__in=[MS.WAITING, MS.PLAYING],
        ).first()
        if entry is not None
        else None
    )
    if match is None or match.table_id is None:
        raise TournamentError("no_game", _("You have no arena game on now."))
    if not arena.berserk_allowed(tournament.mode, clock_of(tournament), moved=False):
        raise TournamentError("no_berserk", _("Berserk is only for Gym arenas on the clock."))
    try:
        tables.seat_clock_halve(table_id=match.table_id, user=user)
    except tables.TableError as exc:
        raise TournamentError(exc.code, exc.message) from exc
    assert entry is not None
    with transaction.atomic():
        locked = Match.objects.select_for_update().get(pk=match.pk)
        if entry.pk not in locked.berserk:
            locked.berserk = [*locked.berserk, entry.pk]
            Match.objects.filter(pk=match.pk).update(berserk=locked.berserk)
        standings_changed(tournament.pk)
    return locked


def berserk_heard(table_id: int, game_id: int, seat: int) -> None:
    """A player halved their clock at an arena table (`tables.SEAT_CLOCK_HALVED`, after commit;
    from the table's own Berserk button, or `arena_berserk`): their match records the berserk,
    once."""
    match = (
        Match.objects.filter(table_id=table_id, status__in=LIVE, tournament__format="arena")
        .select_related("entry_a", "entry_b")
        .first()
    )
    if match is None:
        return
    from tables.models import Seat

    user_id = Seat.objects.filter(table_id=table_id, number=seat).values_list("user_id", flat=True)
    entry = next(
        (e for e in (match.entry_a, match.entry_b) if e is not None and e.player_id in user_id),
        None,
    )
    if entry is None:
        return
    with transaction.atomic():
        locked = Match.objects.select_for_update().get(pk=match.pk)
        if entry.pk not in locked.berserk:
            Match.objects.filter(pk=match.pk).update(berserk=[*locked.berserk, entry.pk])
            standings_changed(match.tournament_id)


# --- the sweep's steps ----------------------------------------------------------------------


def step(tournament: Tournament, now: dt.datetime) -> int:
    """One step of a running arena: every live game with something due (each its own table,
    claimed with its own compare-and-set, so one pass does them all: a step per game read
    every live game again), else a wave when one is due, else the end once nothing is on after
    the last wave. Returns how many things it did."""
    from tournaments import services

    live = list(
        tournament.matches.filter(status__in=LIVE)
        .select_related("entry_a", "entry_b", "table")
        .order_by("round", "number", "pk")
    )
    acted = 0
    for match in live:
        if match.status == MS.READY:
            acted += int(services._match_ready(tournament, match, now))
        elif match.status == MS.WAITING:
            acted += int(services._match_waiting(tournament, match, now))
        elif match.status == MS.PLAYING:
            acted += int(services._match_playing(tournament, match, now))
    if acted:
        return acted
    if pairing_open(tournament, now):
        if tournament.next_round_at is None or now >= tournament.next_round_at:
            return _wave(tournament, now)
        return 0
    if live:
        return 0  # the last games are played out
    return services._finish(tournament, now)


def _wave(tournament: Tournament, now: dt.datetime) -> int:
    """Pair everyone waiting (claimed by moving the wave number and its time on)."""
    number = tournament.current_round + 1
    with transaction.atomic():
        claimed = Tournament.objects.filter(
            pk=tournament.pk,
            status=S.RUNNING,
            current_round=tournament.current_round,
            next_round_at=tournament.next_round_at,
        ).update(current_round=number, next_round_at=now + dt.timedelta(seconds=WAVE_SECONDS))
        if not claimed:
            return 0
        tournament.current_round = number
        waiting = waiting_players(tournament)
        _sit_out_the_freshest(tournament, waiting)
        wave = arena.pair_wave(waiting.values())
        entry_of = {w.player: pk for pk, w in waiting.items()}
        Match.objects.bulk_create(
            Match(
                tournament=tournament,
                key=f"A{number}-{i}",
                round=number,
                bracket=Match.Bracket.ARENA,
                stage=number,
                number=i,
                entry_a_id=entry_of[a],
                entry_b_id=entry_of[b],
                status=MS.READY,
            )
            for i, (a, b) in enumerate(wave.pairs, start=1)
        )
        if wave.pairs:
            standings_changed(tournament.pk)
    return 1


def waiting_players(tournament: Tournament) -> dict[int, arena.Waiting]:
    """Entry id → the player as a wave sees them: joined, not paused, not in a game now; with
    their score, start rating and last opponent (player ids)."""
    entries = list(
        tournament.entries.filter(
            withdrawn_at__isnull=True, disqualified_at__isnull=True, paused=False
        ).select_related("player")
    )
    busy: set[int] = set()
    last: dict[int, int] = {}
    matches = tournament.matches.exclude(status__in=[MS.EMPTY, MS.SKIPPED]).order_by("round", "pk")
    for m in matches.values("entry_a__player_id", "entry_b__player_id", "status"):
        a, b = m["entry_a__player_id"], m["entry_b__player_id"]
        if a is None or b is None:
            continue
        last[a], last[b] = b, a
        if m["status"] in LIVE:
            busy.update((a, b))
    scores = {row.player: row.score for row in standings(tournament)}
    return {
        entry.pk: arena.Waiting(
            player=entry.player_id,
            score=scores.get(entry.player_id, 0),
            rating=entry.start_rating if entry.start_rating is not None else 1500.0,
            last_opponent=last.get(entry.player_id),
            house=bool(entry.player.house_level),
            club=entry.club_id,  # a club battle: clubmates are never paired
        )
        for entry in entries
        if entry.player_id not in busy
    }


def _sit_out_the_freshest(tournament: Tournament, waiting: dict[int, arena.Waiting]) -> None:
    """With an odd number waiting, the one who has waited least (whose last game ended last, or
    who joined last) sits this wave out, not whoever is lowest in the standings: nobody waits
    wave after wave for being last."""
    people = [pk for pk, w in waiting.items() if not w.house]
    if len(people) % 2 == 0:
        return
    since: dict[int, dt.datetime] = dict(
        tournament.entries.filter(pk__in=people).values_list("pk", "registered_at")
    )
    for m in tournament.matches.filter(status=MS.DONE, finished_at__isnull=False).values(
        "entry_a_id", "entry_b_id", "finished_at"
    ):
        for pk in (m["entry_a_id"], m["entry_b_id"]):
            if pk in since and m["finished_at"] > since[pk]:
                since[pk] = m["finished_at"]
    freshest = max(people, key=lambda pk: (since[pk], pk))
    del waiting[freshest]


def on_no_show(match: Match, winner_entry_id: int | None) -> None:
    """Inside the no-show's transaction: whoever did not come is paused (not paired again until
    they come back), so nobody waits on an absent player twice."""
    absent = [e for e in (match.entry_a_id, match.entry_b_id) if e and e != winner_entry_id]
    Entry.objects.filter(pk__in=absent).update(paused=True)


# --- the standings ---------------------------------------------------------------------------


def games_of(tournament: Tournament) -> list[arena.ArenaGame]:
    """Every arena game over, in the order they ended."""
    rows = (
        tournament.matches.filter(status=MS.DONE, entry_a__isnull=False, entry_b__isnull=False)
        .order_by("finished_at", "pk")
        .values(
            "entry_a_id",
            "entry_b_id",
            "entry_a__player_id",
            "entry_b__player_id",
            "winner_id",
            "berserk",
        )
    )
    games = []
    for row in rows:
        a, b = row["entry_a__player_id"], row["entry_b__player_id"]
        by_entry = {row["entry_a_id"]: a, row["entry_b_id"]: b}
        games.append(
            arena.ArenaGame(
                a=a,
                b=b,
                winner=by_entry.get(row["winner_id"]),
                berserk=frozenset(by_entry[e] for e in row["berserk"] or [] if e in by_entry),
            )
        )
    return games


def entrants_of(tournament: Tournament) -> list[arena.ArenaEntrant]:
    """Everyone who joined and is still in (a withdrawn or disqualified entry is not ranked)."""
    return [
        arena.ArenaEntrant(
            player=e.player_id,
            rating=e.start_rating if e.start_rating is not None else 1500.0,
            joined=e.registered_at,
        )
        for e in tournament.entries.filter(
            withdrawn_at__isnull=True, disqualified_at__isnull=True
        ).order_by("registered_at", "pk")
    ]


def standings(tournament: Tournament) -> list[arena.ArenaStanding]:
    entrants = entrants_of(tournament)
    known = {e.player for e in entrants}
    games = [g for g in games_of(tournament) if g.a in known and g.b in known]
    return arena.arena_standings(entrants, games)


def placings(tournament: Tournament) -> list[list[int]]:
    """Entry ids by the standings, each its own place; only players who played a game."""
    entry_of = dict(
        tournament.entries.filter(
            withdrawn_at__isnull=True, disqualified_at__isnull=True
        ).values_list("player_id", "pk")
    )
    return [[entry_of[row.player]] for row in standings(tournament) if row.games]


def standings_frame(tournament: Tournament, now: dt.datetime | None = None) -> dict[str, Any]:
    """The standings as one frame for every viewer: the top rows in full, every player's rank
    and score compactly (a player finds their own), and the game to watch (the live game of
    the best-placed players)."""
    from accounts.models import User

    now = now or timezone.now()
    rows = standings(tournament)
    top = rows[:TOP_SHOWN]
    people = list(
        User.objects.filter(pk__in=[r.player for r in top]).values_list("pk", "display_name", "bot")
    )
    names = {pk: name for pk, name, _bot in people}
    bots = {pk for pk, _name, bot in people if bot}  # marked BOT on the page
    paused = set(
        tournament.entries.filter(paused=True, withdrawn_at__isnull=True).values_list(
            "player_id", flat=True
        )
    )
    rank = {r.player: r.rank for r in rows}
    watch = None
    best = None
    for m in tournament.matches.filter(status=MS.PLAYING, table__isnull=False).values(
        "table_id", "table__invite_code", "entry_a__player_id", "entry_b__player_id"
    ):
        place = min(
            rank.get(m["entry_a__player_id"], 10**6), rank.get(m["entry_b__player_id"], 10**6)
        )
        if best is None or place < best:
            # (an event's tables are private: open to anyone who follows the event)
            url = reverse("tables:table", args=[m["table_id"]])
            best, watch = place, f"{url}?code={m['table__invite_code']}"
    frame = {
        "tournament": tournament.pk,
        "players": len(rows),
        "ends": int(ends_at(tournament).timestamp() * 1000),
        "pairing_until": int(pairing_stops_at(tournament).timestamp() * 1000),
        "top": [
            {
                "rank": r.rank,
                "player": r.player,
                "name": names.get(r.player, ""),
                "bot": r.player in bots,
                "score": r.score,
                "games": r.games,
                "wins": r.wins,
                "streak": r.streak,
                "fire": r.fire,
                "berserks": r.berserks,
                "performance": r.performance,
                "recent": list(r.recent),
                "points": list(r.recent_points),
                "paused": r.player in paused,
            }
            for r in top
        ],
        "ranks": [[r.player, r.rank, r.score] for r in rows],
        "watch": watch,
        "at": int(now.timestamp() * 1000),
    }
    if tournament.is_battle:
        frame["clubs"] = battle_frame(tournament, rows, names)
    return frame


def battle_frame(
    tournament: Tournament, rows: list[arena.ArenaStanding], names: dict[int, str]
) -> list[dict[str, Any]]:
    """A club battle's clubs, best first (`arena.club_standings`): each club's score (the sum of
    its best `battle_top` players' points), how many play for it, and those best players."""
    from accounts.models import User
    from clubs.models import Club

    club_of = dict(
        tournament.entries.filter(club__isnull=False).values_list("player_id", "club_id")
    )
    table = arena.club_standings(rows, club_of, top=tournament.battle_top or 1)
    clubs = {c.pk: c for c in Club.objects.filter(pk__in=[row.club for row in table])}
    shown = {s.player for row in table for s in row.top}
    names = {
        **names,
        **dict(User.objects.filter(pk__in=shown - set(names)).values_list("pk", "display_name")),
    }
    bots = set(User.objects.filter(pk__in=shown, bot=True).values_list("pk", flat=True))
    return [
        {
            "rank": row.rank,
            "club": row.club,
            "name": clubs[row.club].name,
            "url": clubs[row.club].get_absolute_url(),
            "score": row.score,
            "players": row.players,
            "top": [
                {
                    "player": s.player,
                    "name": names.get(s.player, ""),
                    "bot": s.player in bots,
                    "score": s.score,
                }
                for s in row.top
            ],
        }
        for row in table
        if row.club in clubs
    ]


def standings_changed(tournament_id: int) -> None:
    """The standings (or who plays whom) changed: marked now (in the event's row, so every
    process sees it), and a frame is sent after commit unless one went out less than
    `FRAME_SECONDS` ago; then the next sweep sends it."""
    Tournament.objects.filter(pk=tournament_id).update(standings_seq=F("standings_seq") + 1)
    transaction.on_commit(lambda: send_frame(tournament_id))


def send_frame(tournament_id: int, *, now: dt.datetime | None = None) -> bool:
    """Send one standings frame to the event's viewers if the standings changed since the last
    frame and it went out `FRAME_SECONDS` ago or more: claimed with a compare-and-set on the
    event's row, so two processes never both send. Returns whether it sent one."""
    now = now or timezone.now()
    seq = (
        Tournament.objects.filter(pk=tournament_id).values_list("standings_seq", flat=True).first()
    )
    if seq is None:
        return False
    claimed = (
        Tournament.objects.filter(pk=tournament_id, frame_seq__lt=seq)
        .filter(
            Q(frame_sent_at__isnull=True)
            | Q(frame_sent_at__lte=now - dt.timedelta(seconds=FRAME_SECONDS))
        )
        .update(frame_seq=seq, frame_sent_at=now)
    )
    if not claimed:
        return False
    tournament = Tournament.objects.get(pk=tournament_id)
    try:
        frame = standings_frame(tournament, now)
        frame["seq"] = seq
        group_send(group_name(tournament_id), notice_message("arena_standings", frame))
    except Exception:  # sent again by the next sweep
        log.exception("arena %s: could not send its standings", tournament_id)
        Tournament.objects.filter(pk=tournament_id, frame_seq=seq).update(frame_seq=seq - 1)
        return False
    return True


def flush_frames(tournament_ids: list[int]) -> int:
    """The sweep's turn: any standings change not sent yet (throttled) goes out now."""
    return sum(send_frame(pk) for pk in tournament_ids)


def live_game_of(tournament: Tournament, user: Any) -> Match | None:
    """The viewer's arena game now (its table is ready or being played), if any."""
    return (
        tournament.matches.filter(
            Q(entry_a__player=user) | Q(entry_b__player=user),
            status__in=[MS.WAITING, MS.PLAYING],
        )
        .select_related("table")
        .first()
    )
