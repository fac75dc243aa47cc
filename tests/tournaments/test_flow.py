"""Whole events run by the sweep (called in-process here; test_worker.py uses a real worker)."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest

from tables.models import Game, Table
from tests.tournaments.conftest import (
    live_matches,
    make_event,
    play_game,
    play_round,
    press_ready,
    register_and_check_in,
    start,
)
from tournaments import services
from tournaments.models import Entry, Match, Tournament

pytestmark = pytest.mark.django_db


def test_four_player_single_elimination(organizer: Any, players: list[Any]) -> None:
    rng = random.Random(4)
    tournament = make_event(organizer)
    assert tournament.status == Tournament.Status.PUBLISHED
    services.tournament_sweep(now=tournament.registration_opens)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTRATION
    register_and_check_in(tournament, players[:4])
    services.tournament_sweep(now=tournament.starts_at - dt.timedelta(minutes=10))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CHECKIN
    tournament = start(tournament)
    assert tournament.status == Tournament.Status.RUNNING
    assert tournament.rounds_total == 2 and tournament.current_round == 1
    seeds = sorted(tournament.entries.values_list("seed", flat=True))
    assert seeds == [1, 2, 3, 4]
    semis = live_matches(tournament)
    assert [m.key for m in semis] == ["W1-1", "W1-2"]
    for match in semis:
        assert match.status == Match.Status.WAITING
        table = Table.objects.get(pk=match.table_id)
        assert table.private and table.mode == "fives"
        seated = list(table.seats.order_by("number").values_list("user_id", flat=True))
        assert seated == [match.entry_a.player_id, match.entry_b.player_id]
    now = tournament.starts_at
    play_round(tournament, rng, now)
    tournament.refresh_from_db()
    final = tournament.matches.get(key="W2-1")
    assert tournament.current_round == 2
    assert final.status == Match.Status.WAITING
    winners = {m.winner_id for m in tournament.matches.filter(round=1)}
    assert {final.entry_a_id, final.entry_b_id} == winners
    play_round(tournament, rng, now)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    final.refresh_from_db()
    assert tournament.placings[0] == [final.winner_id]
    assert len(tournament.placings) == 3 and len(tournament.placings[2]) == 2
    # Every match was played at its own table, to the end.
    for match in tournament.matches.all():
        assert match.outcome == Match.Outcome.PLAYED
        assert len(match.games) == 1
        game = Game.objects.get(pk=match.games[0]["game"])
        assert game.status == Game.Status.FINISHED
    # A second sweep finds nothing to do.
    assert services.tournament_sweep(now=now + dt.timedelta(hours=1)) == 0


def test_no_show_forfeits_and_both_absent_puts_both_out(organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer, noshow_minutes=3)
    register_and_check_in(tournament, players[:4])
    tournament = start(tournament)
    semis = live_matches(tournament)
    first, second = semis
    # In the first semi only entry A presses ready; nobody comes to the second.
    from tables import services as tables

    tables.seat_ready(table_id=first.table_id, user=first.entry_a.player, ready=True)
    now = tournament.starts_at + dt.timedelta(minutes=2, seconds=59)
    services.tournament_sweep(now=now)
    assert all(m.status == Match.Status.WAITING for m in live_matches(tournament))
    now = tournament.starts_at + dt.timedelta(minutes=3)
    services.tournament_sweep(now=now)
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, first.winner_id, first.outcome) == (
        Match.Status.DONE,
        first.entry_a_id,
        Match.Outcome.FORFEIT,
    )
    assert (second.status, second.winner_id, second.outcome) == (
        Match.Status.DONE,
        None,
        Match.Outcome.BOTH_ABSENT,
    )
    for match in (first, second):
        table = Table.objects.get(pk=match.table_id)
        assert table.status == Table.Status.ABORTED
        assert table.games.get().status == Game.Status.ABORTED
    # The final is a walkover for the player who came: the event is over.
    tournament.refresh_from_db()
    final = tournament.matches.get(key="W2-1")
    assert final.status == Match.Status.WALKOVER and final.winner_id == first.entry_a_id
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.placings == [
        [first.entry_a_id],
        [first.entry_b_id],
        sorted([second.entry_a_id, second.entry_b_id]),
    ]


def test_a_ready_pressed_at_the_last_moment_starts_the_game(
    organizer: Any, players: list[Any]
) -> None:
    tournament = make_event(organizer)
    register_and_check_in(tournament, players[:2])
    tournament = start(tournament)
    (match,) = live_matches(tournament)
    press_ready(match)
    services.tournament_sweep(now=tournament.starts_at + dt.timedelta(minutes=10))
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING


def test_best_of_three_plays_each_game_at_a_new_table(organizer: Any, players: list[Any]) -> None:
    rng = random.Random(3)
    tournament = make_event(organizer, best_of=3)
    register_and_check_in(tournament, players[:2])
    tournament = start(tournament)
    now = tournament.starts_at
    tables_used = []
    for _ in range(3):
        (match,) = live_matches(tournament) or [None]
        if match is None:
            break
        tables_used.append(match.table_id)
        press_ready(match)
        play_game(match.table_id, rng)
        services.tournament_sweep(now=now)
    match = tournament.matches.get()
    assert match.status == Match.Status.DONE
    assert max(match.wins_a, match.wins_b) == 2
    assert len(match.games) == match.wins_a + match.wins_b
    assert len(set(tables_used)) == len(match.games)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED


def test_fewer_than_two_checked_in_cancels(organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer)
    register_and_check_in(tournament, players[:1])
    services.entry_register(tournament_id=tournament.pk, user=players[1])  # never checks in
    tournament = start(tournament)
    assert tournament.status == Tournament.Status.CANCELLED
    assert "Fewer than two" in tournament.cancel_reason
    assert not tournament.matches.exists()
    late = Entry.objects.get(player=players[1])
    assert late.withdrawal == Entry.Withdrawal.NO_CHECKIN


def test_partners_event(organizer: Any, players: list[Any]) -> None:
    rng = random.Random(8)
    tournament = make_event(
        organizer,
        mode="citizen",
        table_options={"players": 4, "partners": True},
    )
    register_and_check_in(tournament, players[:4], partners=True)
    tournament = start(tournament)
    (match,) = live_matches(tournament)
    seats = dict(Table.objects.get(pk=match.table_id).seats.values_list("number", "user_id"))
    assert seats == {
        0: match.entry_a.player_id,
        1: match.entry_b.player_id,
        2: match.entry_a.partner_id,
        3: match.entry_b.partner_id,
    }
    press_ready(match)
    game = play_game(match.table_id, rng)
    services.tournament_sweep(now=tournament.starts_at)
    match.refresh_from_db()
    side = int(game.result["winner"])
    assert match.winner_id == (match.entry_a_id if side == 0 else match.entry_b_id)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED


def test_double_elimination_runs_to_the_end(organizer: Any, players: list[Any]) -> None:
    rng = random.Random(11)
    tournament = make_event(organizer, format="double")
    register_and_check_in(tournament, players[:3])
    tournament = start(tournament)
    now = tournament.starts_at
    for _ in range(10):
        play_round(tournament, rng, now)
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            break
    assert tournament.status == Tournament.Status.FINISHED
    gf1 = tournament.matches.get(key="GF1")
    assert gf1.status == Match.Status.DONE
    gf2 = tournament.matches.get(key="GF2")
    assert gf2.status in (Match.Status.DONE, Match.Status.SKIPPED)
    assert (gf2.status == Match.Status.DONE) == (gf1.winner_id == gf1.entry_b_id)
    champion = (gf2 if gf2.status == Match.Status.DONE else gf1).winner_id
    assert tournament.placings[0] == [champion]
    assert sorted(e for g in tournament.placings for e in g) == sorted(
        tournament.entries.values_list("pk", flat=True)
    )


def test_swiss_runs_its_rounds_without_rematches(organizer: Any, players: list[Any]) -> None:
    rng = random.Random(5)
    tournament = make_event(organizer, format="swiss", swiss_rounds=3)
    register_and_check_in(tournament, players[:5])
    tournament = start(tournament)
    assert tournament.rounds_total == 3
    now = tournament.starts_at
    for _ in range(6):
        play_round(tournament, rng, now)
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            break
    assert tournament.status == Tournament.Status.FINISHED
    matches = list(tournament.matches.all())
    assert {m.round for m in matches} == {1, 2, 3}
    pairs = [frozenset((m.entry_a_id, m.entry_b_id)) for m in matches if m.entry_b_id]
    assert len(pairs) == len(set(pairs))
    byes = [m.entry_a_id for m in matches if m.status == Match.Status.BYE]
    assert len(byes) == 3 and len(set(byes)) == 3
    assert len(tournament.placings) == 5 and all(len(g) == 1 for g in tournament.placings)


def test_time_between_rounds_is_kept(organizer: Any, players: list[Any]) -> None:
    rng = random.Random(2)
    tournament = make_event(organizer, round_minutes=5)
    register_and_check_in(tournament, players[:4])
    tournament = start(tournament)
    now = tournament.starts_at
    play_round(tournament, rng, now)
    tournament.refresh_from_db()
    assert tournament.current_round == 1
    assert tournament.next_round_at == now + dt.timedelta(minutes=5)
    services.tournament_sweep(now=now + dt.timedelta(minutes=4))
    tournament.refresh_from_db()
    assert tournament.current_round == 1
    services.tournament_sweep(now=now + dt.timedelta(minutes=5))
    tournament.refresh_from_db()
    assert tournament.current_round == 2
    assert tournament.matches.get(key="W2-1").status == Match.Status.WAITING


def test_swiss_ends_early_when_no_round_can_be_paired(
    organizer: Any, players: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tournaments import brackets

    rng = random.Random(6)
    tournament = make_event(organizer, format="swiss", swiss_rounds=3, round_minutes=5)
    register_and_check_in(tournament, players[:4])
    tournament = start(tournament)
    play_round(tournament, rng, tournament.starts_at)  # round 1 is paired and played
    tournament.refresh_from_db()
    assert tournament.current_round == 1 and tournament.next_round_at is not None

    def no_pairing(*args: Any, **kwargs: Any) -> Any:
        raise brackets.SwissError("no pairing without a rematch")

    monkeypatch.setattr(brackets, "swiss_pair", no_pairing)
    services.tournament_sweep(now=tournament.starts_at + dt.timedelta(minutes=5))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.rounds_total == 1 and "without a rematch" in tournament.end_note
    assert len(tournament.placings) == 4
