"""Fixtures and helpers for tournament tests: an organizer, events, and scripted players."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from engine import GameState
from tables import services as tables
from tables.models import Game, Seat
from tournaments import services
from tournaments.models import ORGANIZERS_GROUP, Match, Tournament

NAMES = ["Ana", "Ben", "Cruz", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kai", "Lu"]


@pytest.fixture(autouse=True)
def _english() -> Any:
    """Services speak the language of the thread: a page test in Spanish must not leak into the
    next test."""
    from django.utils import translation

    with translation.override("en"):
        yield


def quick_user(name: str) -> Any:
    """A player without a usable password (hashing one takes a while, and these log in by
    force_login)."""
    from accounts.models import User

    return User.objects.create_user(
        f"{name.lower()}@example.com", None, display_name=name, date_of_birth=dt.date(1990, 1, 1)
    )


@pytest.fixture
def organizer(db: None) -> Any:
    user = quick_user("Olga")
    user.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    return user


@pytest.fixture
def players(db: None) -> list[Any]:
    return [quick_user(name) for name in NAMES]


def event_settings(now: dt.datetime | None = None, **overrides: Any) -> dict[str, Any]:
    """A valid event: Fives to 50 (short games), single elimination, free, starting in 20
    minutes with a 15-minute check-in."""
    now = now or timezone.now()
    data: dict[str, Any] = {
        "name": "Friday Fives",
        "description": "A quick one.",
        "rules_text": "Fives to 50, best of one. Be on time.",
        "mode": "fives",
        "table_options": {"players": 2, "limit": 50},
        "format": "single",
        "swiss_rounds": None,
        "best_of": 1,
        "fee_kind": "free",
        "fee_dollars": 0,
        "fee_canteen": {},
        "prize_split": [100],
        "max_entrants": 8,
        "registration_opens": now - dt.timedelta(minutes=1),
        "registration_closes": now + dt.timedelta(minutes=10),
        "starts_at": now + dt.timedelta(minutes=20),
        "checkin_minutes": 15,
        "round_minutes": 0,
        "noshow_minutes": 3,
        "seeding": "random",
    }
    data.update(overrides)
    return data


def make_event(organizer: Any, *, publish: bool = True, **overrides: Any) -> Tournament:
    tournament = services.tournament_create(organizer=organizer, **event_settings(**overrides))
    if publish:
        tournament = services.tournament_publish(tournament_id=tournament.pk, by=organizer)
    return tournament


def register_and_check_in(tournament: Tournament, users: list[Any], partners: bool = False) -> None:
    """Register everyone, and check them in (at a moment inside the check-in window)."""
    checkin = tournament.starts_at - dt.timedelta(minutes=1)
    if partners:
        pairs = list(zip(users[::2], users[1::2], strict=True))
        for a, b in pairs:
            entry = services.entry_register(tournament_id=tournament.pk, user=a, partner=b)
            services.entry_partner_answer(entry_id=entry.pk, user=b, accept=True)
        for user in users:
            services.entry_check_in(tournament_id=tournament.pk, user=user, now=checkin)
        return
    for user in users:
        services.entry_register(tournament_id=tournament.pk, user=user)
        services.entry_check_in(tournament_id=tournament.pk, user=user, now=checkin)


def start(tournament: Tournament) -> Tournament:
    services.tournament_sweep(now=tournament.starts_at)
    tournament.refresh_from_db()
    return tournament


def press_ready(match: Match) -> None:
    for seat in Seat.objects.filter(table_id=match.table_id).select_related("user"):
        tables.seat_ready(table_id=match.table_id, user=seat.user, ready=True)


def play_game(table_id: int, rng: random.Random, prefer_seat: int | None = None) -> Game:
    """Play the table's game to the end with legal moves (the seats' own players act).

    `prefer_seat`: that seat plays its best-scoring move, the others play at random, which
    makes it very likely (not certain) to win."""
    from accounts.models import User

    users = {}
    for _ in range(5000):
        game = Game.objects.filter(table_id=table_id).order_by("-number").first()
        assert game is not None
        if game.status != Game.Status.PLAYING:
            return game
        state = GameState.from_json(game.state)
        seat = state.to_act
        assert seat is not None
        actions = state.legal_actions()
        action = rng.choice(actions)
        if prefer_seat is not None and seat == prefer_seat:
            action = actions[0]
        player_id = game.players[seat]
        user = users.get(player_id) or User.objects.get(pk=player_id)
        users[player_id] = user
        payload = {k: v for k, v in action.to_dict().items() if k != "seat"}
        tables.game_act(table_id=table_id, user=user, version=game.version, action=payload)
    raise AssertionError("the game did not end")


def live_matches(tournament: Tournament, round_: int | None = None) -> list[Match]:
    matches = tournament.matches.filter(status__in=[Match.Status.WAITING, Match.Status.PLAYING])
    if round_ is not None:
        matches = matches.filter(round=round_)
    return list(matches.select_related("entry_a", "entry_b").order_by("key"))


def play_round(tournament: Tournament, rng: random.Random, now: dt.datetime) -> None:
    """Every open table of the current round: everyone presses ready and plays it out."""
    services.tournament_sweep(now=now)
    tournament.refresh_from_db()
    round_ = tournament.current_round
    for _ in range(20):
        matches = live_matches(tournament, round_)
        if not matches:
            return
        for match in matches:
            if match.status == Match.Status.WAITING:
                press_ready(match)
            play_game(match.table_id, rng)
        services.tournament_sweep(now=now)
    raise AssertionError("the round did not end")
