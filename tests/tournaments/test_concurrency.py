"""Two sweeps at once never double anything: every step is claimed with a compare-and-set.

These run the sweep in two threads at the same moment (a barrier), each with its own database
connection, on a database the test really commits to (transaction=True)."""

from __future__ import annotations

import datetime as dt
import logging
import random
from typing import Any

import pytest

from tables.models import Game, Table
from tests.concurrency import at_once
from tests.tournaments.conftest import (
    live_matches,
    make_event,
    play_game,
    press_ready,
    register_and_check_in,
)
from tournaments import services
from tournaments.models import Entry, Match, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def two_sweeps(now: dt.datetime) -> list[Any]:
    results = at_once(
        lambda: services.tournament_sweep(now=now), lambda: services.tournament_sweep(now=now)
    )
    assert not any(isinstance(r, Exception) for r in results), results
    return results


def test_two_sweeps_at_once_start_the_event_once(
    organizer: Any, players: list[Any], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    tournament = make_event(organizer, format="double")
    register_and_check_in(tournament, players[:6])
    services.entry_register(tournament_id=tournament.pk, user=players[6])  # no check-in
    two_sweeps(tournament.starts_at)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert sorted(tournament.entries.exclude(seed=None).values_list("seed", flat=True)) == [
        1,
        2,
        3,
        4,
        5,
        6,
    ]
    assert tournament.matches.count() == 15  # the bracket for 8, created once
    live = live_matches(tournament)
    assert len(live) == 2  # 6 entrants in a bracket of 8: two byes, two matches
    assert Table.objects.count() == 2  # one table per match, not two
    assert len({m.table_id for m in live}) == 2
    assert Entry.objects.get(player=players[6]).withdrawal == Entry.Withdrawal.NO_CHECKIN
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_two_sweeps_at_once_through_a_whole_event(
    organizer: Any, players: list[Any], caplog: pytest.LogCaptureFixture
) -> None:
    """Every step of a 4-player event (start, tables, results, the next round, the end, and a
    no-show) is taken by two sweeps at the same moment; each happens once."""
    caplog.set_level(logging.ERROR)
    rng = random.Random(9)
    tournament = make_event(organizer, best_of=3, noshow_minutes=2)
    register_and_check_in(tournament, players[:4])
    now = tournament.starts_at
    two_sweeps(now)
    semis = live_matches(tournament)
    assert len(semis) == 2 and Table.objects.count() == 2
    # Semi 1 is played out; in semi 2 nobody comes to the first game.
    first, second = semis
    games_played = 0
    for _ in range(5):
        first.refresh_from_db()
        if first.status == Match.Status.DONE:
            break
        press_ready(first)
        play_game(first.table_id, rng)
        games_played += 1
        two_sweeps(now)
    first.refresh_from_db()
    assert first.status == Match.Status.DONE
    assert len(first.games) == games_played == first.wins_a + first.wins_b
    # One table per game: no game of the match was given two tables.
    assert Table.objects.filter(tournament_matches=first).count() == 1
    assert Game.objects.filter(table__in=[g["table"] for g in first.games]).count() == games_played
    two_sweeps(now + dt.timedelta(minutes=2))  # the no-show time runs out in semi 2
    second.refresh_from_db()
    assert second.status == Match.Status.DONE and second.outcome == Match.Outcome.BOTH_ABSENT
    assert len(second.games) == 1 and second.games[0]["no_show"]
    # The final: a walkover for semi 1's winner, and the event ends, once.
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    final = tournament.matches.get(key="W2-1")
    assert final.status == Match.Status.WALKOVER and final.winner_id == first.winner_id
    assert tournament.placings[0] == [first.winner_id]
    finished_at = tournament.finished_at
    two_sweeps(now + dt.timedelta(minutes=10))
    tournament.refresh_from_db()
    assert tournament.finished_at == finished_at
    total_tables = games_played + 1  # semi 1's games and semi 2's unplayed one
    assert Table.objects.count() == total_tables
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_sweep_and_a_registration_at_the_start(organizer: Any, players: list[Any]) -> None:
    """A registration racing the start either gets in before it or is refused: never an entry
    left out of a started bracket."""
    tournament = make_event(organizer)
    register_and_check_in(tournament, players[:3])
    late = players[3]
    results = at_once(
        lambda: services.tournament_sweep(now=tournament.starts_at),
        lambda: services.entry_register(
            tournament_id=tournament.pk,
            user=late,
            now=tournament.starts_at - dt.timedelta(seconds=1),
        ),
    )
    tournament.refresh_from_db()
    entry = Entry.objects.filter(player=late).first()
    if isinstance(results[1], services.TournamentError):
        assert entry is None
    else:
        # Registered just before the start, without checking in: withdrawn at the start.
        assert entry is not None and entry.withdrawal == Entry.Withdrawal.NO_CHECKIN
    assert tournament.entries.exclude(seed=None).count() == 3
