"""Mining finished games for puzzles (puzzles/services.py): each seat's decisions from its view
alone, every puzzle the engine's miner would give for it, each game once."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from coach.services import seat_decisions
from engine.puzzles import mine
from puzzles import services, tasks
from puzzles.models import MinedGame, Puzzle
from tests.history.helpers import live_game, play, start_table

WORLDS = 30


@pytest.fixture(autouse=True)
def few_worlds(settings: Any) -> None:
    settings.PUZZLE_WORLDS = WORLDS


@pytest.mark.django_db
def test_a_finished_game_is_mined_once_into_the_puzzles_its_seats_saw(
    make_user: Any, fixed_seeds: None, eager: None
) -> None:
    people = [make_user(n) for n in ("Alice", "Bob", "Carol")]
    table = start_table(people, "citizen", target=150)
    game = play(table, people, seed=5)
    assert game.status == game.Status.FINISHED

    assert services.games_to_mine(10) == [game.pk]
    assert tasks.mine_sweep() == 1  # eager: the game's task ran
    mined = MinedGame.objects.get(game=game)
    assert mined.finished_at is not None and mined.error == ""
    puzzles = {(p.seat, p.version): p for p in Puzzle.objects.filter(game=game)}
    assert mined.puzzles == len(puzzles) >= 1

    # Every decision of every seat was offered, and each puzzle is the engine miner's answer for
    # that seat's view: nothing but what the seat saw was stored.
    offered = 0
    for seat in range(3):
        for decision in seat_decisions(game, seat):
            offered += 1
            expected = mine(
                decision.view,
                seed=services.puzzle_seed(game.pk, decision.version, seat),
                worlds=WORLDS,
            ).puzzle
            row = puzzles.pop((seat, decision.version), None)
            assert (row is None) == (expected is None)
            if row is None or expected is None:
                continue
            assert row.view == decision.view == expected.view
            assert (row.answer, row.runner_up, row.themes, row.reasons) == (
                expected.answer,
                expected.runner_up,
                expected.themes,
                expected.reasons,
            )
            assert row.margin == expected.margin and row.mode == "citizen" and row.players == 3
    assert puzzles == {} and mined.decisions == offered

    # Staff see them in admin, read-only.
    staff = make_user("Warden")
    staff.is_staff = staff.is_superuser = True
    staff.save()
    client = Client()
    client.force_login(staff)
    for name in ("admin:puzzles_puzzle_changelist", "admin:puzzles_minedgame_changelist"):
        assert client.get(reverse(name)).status_code == 200
    one = Puzzle.objects.filter(game=game).first()
    assert one is not None
    page = client.get(reverse("admin:puzzles_puzzle_change", args=[one.pk]))
    assert page.status_code == 200 and b'name="_save"' not in page.content

    # Once: the sweep no longer offers it, and mining it again does nothing.
    assert services.games_to_mine(10) == []
    assert services.mine_game(game.pk) is None
    assert Puzzle.objects.filter(game=game).count() == mined.puzzles


@pytest.mark.django_db
def test_a_game_still_playing_is_not_mined(make_user: Any, fixed_seeds: None) -> None:
    people = [make_user(n) for n in ("Alice", "Bob")]
    table = start_table(people, "citizen")
    game = live_game(table)
    assert services.games_to_mine(10) == []
    assert services.mine_game(game.pk) is None
    assert not MinedGame.objects.exists()


@pytest.mark.django_db
def test_a_claim_left_by_a_dead_worker_is_taken_again(
    make_user: Any, fixed_seeds: None, eager: None
) -> None:
    people = [make_user(n) for n in ("Alice", "Bob")]
    table = start_table(people, "fives", limit=100)
    game = play(table, people, seed=3)
    MinedGame.objects.create(game=game)  # claimed just now, by a worker still at it
    assert services.mine_game(game.pk) is None
    assert not Puzzle.objects.exists()
    MinedGame.objects.filter(game=game).update(
        claimed_at=timezone.now() - services.RECLAIM_AFTER - dt.timedelta(seconds=1), done=5
    )
    tasks.mine_game(game.pk)
    mined = MinedGame.objects.get(game=game)
    assert mined.finished_at is not None and mined.error == ""
    offered = sum(1 for seat in range(2) for _d in seat_decisions(game, seat))
    assert mined.decisions == mined.done == offered  # from the first decision again, not the 5th
    assert Puzzle.objects.filter(game=game).count() == mined.puzzles


@pytest.mark.django_db
def test_a_game_is_mined_in_parts_and_a_part_delivered_twice_does_nothing(
    make_user: Any, fixed_seeds: None, settings: Any
) -> None:
    settings.PUZZLE_CHUNK_SECONDS = 0  # one decision a part
    people = [make_user(n) for n in ("Alice", "Bob")]
    table = start_table(people, "fives", limit=100)
    game = play(table, people, seed=8)
    offered = sum(1 for seat in range(2) for _d in seat_decisions(game, seat))
    parts = []
    done = services.mine_game(game.pk)
    while done is not None:
        parts.append(done)
        assert services.mine_game(game.pk, parts[-2] if len(parts) > 1 else 0) is None  # stale
        done = services.mine_game(game.pk, done)
    # a part per decision, then one that finds nothing left and finishes the game
    assert parts == list(range(1, offered + 1))
    mined = MinedGame.objects.get(game=game)
    assert mined.finished_at is not None and mined.decisions == mined.done == offered
    assert Puzzle.objects.filter(game=game).count() == mined.puzzles
    assert services.mine_game(game.pk, offered) is None and services.mine_game(game.pk) is None
    assert MinedGame.objects.get(game=game).puzzles == mined.puzzles


def test_the_beat_hands_games_to_the_miner_every_minute(settings: Any) -> None:
    from dominoes_site.celery import app

    job = settings.CELERY_BEAT_SCHEDULE["puzzles-mine-sweep"]
    assert job["task"] == "puzzles.tasks.mine_sweep" and job["schedule"] == 60.0
    assert {"puzzles.tasks.mine_sweep", "puzzles.tasks.mine_game"} <= set(app.tasks)
