"""Your own data: a world where Alice has something of every kind, and Bob plays with her."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone, translation

from chat.models import ChatMessage, ChatReport
from gym.models import WorkoutOwed
from ledger.services import StakeSpec
from social import services as social
from social.models import Follow
from tables.models import Game, Table
from tests.history.helpers import play, start_table
from tournaments import services as tournaments
from tournaments.models import ORGANIZERS_GROUP, Tournament


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    with translation.override("en"):
        yield


ONE_ON_ONE = {"players": 2, "partners": False, "target": 150}


@dataclass
class World:
    alice: Any
    bob: Any
    game: Game
    open_table: Table
    tournament: Tournament


def event_for(organizer: Any) -> Tournament:
    now = timezone.now()
    tournament = tournaments.tournament_create(
        organizer=organizer,
        name="Friday Fives",
        description="A quick one.",
        rules_text="Fives to 50.",
        mode="fives",
        table_options={"players": 2, "limit": 50},
        format="single",
        swiss_rounds=None,
        best_of=1,
        fee_kind="dollars",
        fee_dollars=10,
        fee_canteen={},
        prize_split=[100],
        max_entrants=8,
        registration_opens=now - dt.timedelta(minutes=1),
        registration_closes=now + dt.timedelta(minutes=10),
        starts_at=now + dt.timedelta(minutes=20),
        checkin_minutes=15,
        round_minutes=0,
        noshow_minutes=3,
        seeding="random",
    )
    return tournaments.tournament_publish(tournament_id=tournament.pk, by=organizer)


@pytest.fixture
def world(alice: Any, bob: Any, make_user: Any) -> World:
    """Alice: a finished game against Bob (rated, so ratings too), a workout owed, chat lines, a
    report she made about Bob, a follow each way, a pending challenge each way, a seat at an
    open table with a Dollar stake, and a paid tournament entry."""
    table = start_table([alice, bob], "citizen")
    game = play(table, [alice, bob], seed=3)
    assert game.status == Game.Status.FINISHED
    WorkoutOwed.objects.create(
        user=alice,
        game=game,
        seat=0,
        kind="reps",
        amount=20,
        base_amount=10,
        dumbbells=1,
        skunked=False,
    )
    ChatMessage.objects.create(table=table, user=alice, audience="players", text="gg Bob")
    ChatMessage.objects.create(table=table, user=bob, audience="players", text="Bob's own line")
    ChatReport.objects.create(
        table=table,
        reporter=alice,
        reported=bob,
        reason="rude",
        messages=[{"text": "Bob's reported line"}],
    )
    ChatReport.objects.create(
        table=table,
        reporter=bob,
        reported=alice,
        reason="Bob's secret report",
        messages=[{"text": "gg Bob"}],
    )
    Follow.objects.create(follower=alice, followed=bob)
    Follow.objects.create(follower=bob, followed=alice)
    carol = make_user("Carol")
    social.challenge_send(challenger=alice, challenged=carol, mode="citizen", options=ONE_ON_ONE)
    social.challenge_send(challenger=bob, challenged=alice, mode="citizen", options=ONE_ON_ONE)
    from tables import services as tables

    open_table = tables.table_create(
        host=carol, mode="citizen", players=2, stake=StakeSpec(dollars=10)
    )
    tables.seat_take(table_id=open_table.pk, user=alice, number=1)
    organizer = make_user("Olga")
    organizer.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    tournament = event_for(organizer)
    tournaments.entry_register(tournament_id=tournament.pk, user=alice)
    # A puzzle from the game: Alice solves it at the first try, then tries again; Bob misses it.
    from puzzles import services as puzzles
    from puzzles.models import Puzzle

    puzzle = Puzzle.objects.create(
        game=game,
        version=3,
        seat=1,
        mode="citizen",
        players=2,
        view={"legal_actions": [{"type": "play"}, {"type": "play"}]},
        answer=[1],
        runner_up=[0],
        margin=9.0,
        estimates=[0.0, 9.0],
        points=[0, 0],
        worlds=200,
    )
    puzzles.attempt(user=alice, puzzle_id=puzzle.pk, choice=1)
    puzzles.attempt(user=alice, puzzle_id=puzzle.pk, choice=0)
    puzzles.attempt(user=bob, puzzle_id=puzzle.pk, choice=0)
    return World(alice=alice, bob=bob, game=game, open_table=open_table, tournament=tournament)
