"""An arena on the site, driven by the sweep with a frozen clock: players join before and during
it, are paired in waves at tables of their own, play, pause and come back; no-shows lose and
are paused; pairing stops when a game no longer fits; the last games are played out; the
standings follow the rules module; the prizes are paid once; frames go out at most once a
second."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest
from django.utils import timezone

from tests.tournaments.conftest import event_settings, play_game, press_ready
from tournaments import arena, arenas, services
from tournaments.models import Entry, Match, Tournament

MS = Match.Status
#: How far the clock moves between two looks at the arena: a game's length, about.
STEP = dt.timedelta(minutes=3)


def make_arena(organizer: Any, **overrides: Any) -> Tournament:
    now = timezone.now()
    data = event_settings(
        now,
        name="Hourly Arena",
        format="arena",
        arena_minutes=30,
        max_entrants=100,
        table_options={"players": 2, "limit": 50},
        starts_at=now + dt.timedelta(minutes=20),
    )
    data.update(overrides)
    tournament = services.tournament_create(organizer=organizer, **data)
    return services.tournament_publish(tournament_id=tournament.pk, by=organizer)


def everyone_plays(tournament: Tournament, now: dt.datetime, rng: random.Random) -> int:
    """Every table of the arena that is ready: both press Ready and play it out; then a sweep.
    Returns how many games were played."""
    played = 0
    for match in tournament.matches.filter(status__in=[MS.WAITING, MS.PLAYING]):
        if match.status == MS.WAITING:
            press_ready(match)
        play_game(match.table_id, rng)  # type: ignore[arg-type]
        played += 1
    services.tournament_sweep(now=now)
    return played


def no_player_in_two_live_games(tournament: Tournament) -> None:
    seen: list[int] = []
    for match in tournament.matches.filter(status__in=[MS.READY, MS.WAITING, MS.PLAYING]):
        seen += [match.entry_a.player_id, match.entry_b.player_id]  # type: ignore[union-attr]
    assert len(seen) == len(set(seen)), seen


@pytest.mark.django_db
def test_an_arena_from_join_to_prizes(organizer: Any, players: list[Any]) -> None:
    tournament = make_arena(organizer)
    first = players[:4]
    for user in first:
        services.entry_register(tournament_id=tournament.pk, user=user)
    assert Entry.objects.filter(tournament=tournament, start_rating=1500.0).count() == 4
    now = tournament.starts_at
    services.tournament_sweep(now=now)  # starts, and the first wave pairs everyone
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING and tournament.current_round == 1
    assert tournament.matches.filter(status=MS.WAITING).count() == 2
    no_player_in_two_live_games(tournament)
    # A latecomer joins the running arena (and is paired in a later wave).
    late = players[4]
    services.entry_register(tournament_id=tournament.pk, user=late, now=now)
    rng = random.Random(5)
    played = 0
    minute = now
    while minute < arenas.ends_at(tournament) + dt.timedelta(minutes=5):
        minute += STEP
        played += everyone_plays(tournament, minute, rng)
        no_player_in_two_live_games(tournament)
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            break
    assert tournament.status == Tournament.Status.FINISHED
    done = list(tournament.matches.filter(status=MS.DONE).order_by("finished_at", "pk"))
    assert len(done) == played and played > 10
    # Nobody was paired after the last pairing time, and never twice in a row with the same.
    stops = arenas.pairing_stops_at(tournament)
    assert all(m.started_at is not None and m.started_at <= stops for m in done)
    last: dict[int, int] = {}
    for m in sorted(done, key=lambda m: (m.round, m.pk)):
        a, b = m.entry_a_id, m.entry_b_id
        assert last.get(a) != b and last.get(b) != a
        last[a], last[b] = b, a  # type: ignore[index]
    assert any(late.pk in (m.entry_a.player_id, m.entry_b.player_id) for m in done)  # type: ignore[union-attr]
    # The placings are the standings, recomputed from the games by the rules module.
    rows = arenas.standings(tournament)
    assert sum(r.games for r in rows) == 2 * played
    entry_of = dict(tournament.entries.values_list("player_id", "pk"))
    assert tournament.placings == [[entry_of[r.player]] for r in rows if r.games]
    for r in rows:
        won = tournament.matches.filter(status=MS.DONE, winner__player_id=r.player).count()
        assert r.wins == won


@pytest.mark.django_db
def test_an_arena_with_a_dollar_fee_pays_its_prizes_once(
    organizer: Any, players: list[Any]
) -> None:
    from tests.tournaments.test_money import dollars, give

    people = players[:4]
    for user in people:
        give(user, 100 - dollars(user))
    tournament = make_arena(
        organizer, mode="fives", fee_kind="dollars", fee_dollars=10, prize_split=[70, 30]
    )
    for user in people:
        services.entry_register(tournament_id=tournament.pk, user=user)
    assert [dollars(u) for u in people] == [90] * 4
    now = tournament.starts_at
    rng = random.Random(2)
    services.tournament_sweep(now=now)
    minute = now
    while True:
        minute += STEP
        everyone_plays(tournament, minute, rng)
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            break
    prizes = tournament.prizes
    first, second = tournament.placings[0][0], tournament.placings[1][0]  # type: ignore[index]
    assert prizes == {str(first): {"dollars": 28}, str(second): {"dollars": 12}}
    after = [dollars(u) for u in people]
    assert sum(after) == 400 and sorted(after) == [90, 90, 102, 118]
    # A second sweep, or a rerun of the finish, pays nothing again.
    assert services._finish(tournament, minute) == 0
    services.tournament_sweep(now=minute + dt.timedelta(minutes=1))
    tournament.refresh_from_db()
    assert tournament.prizes == prizes and [dollars(u) for u in people] == after


@pytest.mark.django_db
def test_pause_keeps_the_points_and_nobody_pairs_a_paused_player(
    organizer: Any, players: list[Any]
) -> None:
    tournament = make_arena(organizer)
    a, b, c = players[:3]
    for user in (a, b, c):
        services.entry_register(tournament_id=tournament.pk, user=user)
    arenas.arena_pause(tournament_id=tournament.pk, user=c, paused=True)
    services.tournament_sweep(now=tournament.starts_at)
    tournament.refresh_from_db()
    (match,) = tournament.matches.all()
    assert {match.entry_a.player_id, match.entry_b.player_id} == {a.pk, b.pk}  # type: ignore[union-attr]
    # Withdrawing mid-arena is refused: pause instead.
    with pytest.raises(services.TournamentError) as caught:
        services.entry_withdraw(tournament_id=tournament.pk, user=c)
    assert caught.value.code == "pause_instead"
    arenas.arena_pause(tournament_id=tournament.pk, user=c, paused=False)
    later = tournament.starts_at + dt.timedelta(seconds=arenas.WAVE_SECONDS)
    everyone_plays(tournament, later, random.Random(1))
    tournament.refresh_from_db()
    waves = {
        frozenset((m.entry_a.player_id, m.entry_b.player_id))  # type: ignore[union-attr]
        for m in tournament.matches.filter(round=2)
    }
    assert waves and all(c.pk in pair for pair in waves)  # a, b may not meet again at once


@pytest.mark.django_db
def test_a_no_show_loses_and_is_paused(organizer: Any, players: list[Any]) -> None:
    tournament = make_arena(organizer, noshow_minutes=1)
    a, b = players[:2]
    for user in (a, b):
        services.entry_register(tournament_id=tournament.pk, user=user)
    services.tournament_sweep(now=tournament.starts_at)
    from tables import services as tables

    (match,) = Match.objects.filter(tournament=tournament)
    tables.seat_ready(table_id=match.table_id, user=a, ready=True)  # type: ignore[arg-type]
    services.tournament_sweep(now=tournament.starts_at + dt.timedelta(minutes=2))
    match.refresh_from_db()
    assert match.status == MS.DONE and match.winner.player_id == a.pk  # type: ignore[union-attr]
    assert Entry.objects.get(tournament=tournament, player=b).paused
    assert not Entry.objects.get(tournament=tournament, player=a).paused
    rows = {r.player: r for r in arenas.standings(tournament)}
    assert rows[a.pk].score == 2 and rows[b.pk].score == 0


@pytest.mark.django_db
def test_no_new_pairing_once_a_game_would_not_fit(organizer: Any, players: list[Any]) -> None:
    tournament = make_arena(organizer)
    for user in players[:2]:
        services.entry_register(tournament_id=tournament.pk, user=user)
    late = arenas.pairing_stops_at(tournament) + dt.timedelta(seconds=1)
    assert not arenas.pairing_open(tournament, late)
    services.tournament_sweep(now=tournament.starts_at - dt.timedelta(minutes=1))
    services.tournament_sweep(now=late)  # started late (a sweep that was away): no pairing
    tournament.refresh_from_db()
    assert tournament.matches.count() == 0 and tournament.status == Tournament.Status.FINISHED
    assert tournament.placings == []  # nobody played: nobody placed


@pytest.mark.django_db
def test_a_frame_goes_out_at_most_once_a_second(
    organizer: Any, players: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(arenas, "group_send", lambda group, message: sent.append((group, message)))
    tournament = make_arena(organizer)
    for user in players[:2]:
        services.entry_register(tournament_id=tournament.pk, user=user)
    now = timezone.now()
    for _ in range(5):
        arenas.standings_changed(tournament.pk)
    assert arenas.send_frame(tournament.pk, now=now)
    assert not arenas.send_frame(tournament.pk, now=now + dt.timedelta(milliseconds=500))
    arenas.standings_changed(tournament.pk)
    assert not arenas.send_frame(tournament.pk, now=now + dt.timedelta(milliseconds=900))
    assert arenas.send_frame(tournament.pk, now=now + dt.timedelta(seconds=1))
    assert not arenas.send_frame(tournament.pk, now=now + dt.timedelta(seconds=5))  # no change
    assert [g for g, _m in sent] == [f"tournament.{tournament.pk}"] * 2
    frame = sent[-1][1]["data"]
    assert frame["players"] == 2 and frame["top"][0]["score"] == 0
    assert {r[0] for r in frame["ranks"]} == {p.pk for p in players[:2]}


@pytest.mark.django_db
def test_arena_settings_are_checked(organizer: Any) -> None:
    with pytest.raises(services.TournamentError) as caught:
        make_arena(
            organizer,
            arena_minutes=200,
            best_of=3,
            table_options={"players": 4, "partners": True, "limit": 50},
            max_entrants=2000,
        )
    assert set(caught.value.errors) >= {"arena_minutes", "best_of", "max_entrants"}
    assert "table_options" in caught.value.errors
    assert arena.ARENA_MINUTES == (30, 120)


def test_an_arena_offers_no_check_in(organizer: Any, players: list[Any]) -> None:
    """An arena has no check-in (whoever joined is paired unless they pause): its page never
    shows the Check in button, not even inside the check-in window an event form sets."""
    from tournaments import selectors

    tournament = make_arena(organizer)
    services.entry_register(tournament_id=tournament.pk, user=players[0])
    inside = tournament.starts_at - dt.timedelta(minutes=1)
    assert services.checkin_open(tournament, inside)  # a bracket event would ask for it now
    state = selectors.viewer_state(tournament, players[0], now=inside)
    assert state["active"] and not state["may_check_in"]


def test_berserk_at_the_table_counts_in_the_arena(
    organizer: Any, players: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    """A Gym arena's tables offer berserk at the table itself (the table socket's
    `halve_clock`); the match records it once, whichever way it was asked, and a berserk win
    scores 3. An arena without a clock, and any other table, does not offer it."""
    from tables import services as tables
    from tables.models import Table

    tournament = make_arena(
        organizer, mode="citizen_gym", table_options={"players": 2, "clock": 10}
    )
    alice, bob = players[:2]
    for user in (alice, bob):
        services.entry_register(tournament_id=tournament.pk, user=user)
    services.tournament_sweep(now=tournament.starts_at)
    match = tournament.matches.get()
    assert Table.objects.get(pk=match.table_id).clock_halving
    press_ready(match)
    with django_capture_on_commit_callbacks(execute=True):
        tables.seat_clock_halve_asked(table_id=match.table_id, user=alice)
    entry = Entry.objects.get(tournament=tournament, player=alice)
    match.refresh_from_db()
    assert match.berserk == [entry.pk]
    with pytest.raises(services.TournamentError) as refused:  # halved already: no second
        arenas.arena_berserk(tournament_id=tournament.pk, user=alice)
    assert refused.value.code == "clock_halved"
    match.refresh_from_db()
    assert match.berserk == [entry.pk]
    play_game(match.table_id, random.Random(3))  # type: ignore[arg-type]
    services.tournament_sweep(now=tournament.starts_at + STEP)
    match.refresh_from_db()
    rows = {r.player: r for r in arenas.standings(tournament)}
    assert rows[alice.pk].berserks == 1
    assert rows[alice.pk].score == (3 if match.winner_id == entry.pk else 0)

    plain = make_arena(organizer, name="Fives Arena")
    for user in (players[2], players[3]):
        services.entry_register(tournament_id=plain.pk, user=user)
    services.tournament_sweep(now=plain.starts_at)
    assert not Table.objects.get(pk=plain.matches.get().table_id).clock_halving
