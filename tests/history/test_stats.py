"""Profile statistics over a few played games, checked against counts taken independently from
the table's own event log (what every browser was sent), not from the replay."""

from __future__ import annotations

from collections import Counter, defaultdict
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
from django.test import Client

from engine import TableSettings
from history.models import PlayerGame
from history.selectors import GAMES_PER_PAGE, player_stats
from history.services import games_archive_pending
from tables.models import Game, TableEvent
from tests.history.helpers import play, start_table


def tally(game: Game) -> dict[int, Counter[str]]:
    """Per user: the game's numbers, counted from the public event log."""
    settings = TableSettings.from_dict(game.state["settings"])
    result = game.result
    per_seat: dict[int, Counter[str]] = defaultdict(Counter)
    hands = 0
    for row in TableEvent.objects.filter(table=game.table).order_by("seq"):
        for event in row.public:
            kind = event["type"]
            if kind == "bone_played" or kind == "bonus":
                per_seat[event["seat"]]["points"] += event["points"]
            elif kind == "dumbbell":
                per_seat[event["seat"]]["dumbbells"] += 1
            elif kind == "hand_over":
                if event["result"] != "redeal":
                    hands += 1
                if event["result"] in ("domino", "blocked") and event["seat"] is not None:
                    per_seat[event["seat"]]["points"] += event["points"]
                if event["result"] == "domino":
                    per_seat[event["seat"]]["dominoes"] += 1
            elif kind == "game_over" and event["hands"] is not None:
                hands += 1  # won in the middle of a hand: that hand counts too
    out = {}
    for seat, user_id in enumerate(game.players):
        side = settings.side_of(seat)
        won = side == result["winner"]
        counts = per_seat[seat]
        counts["games"] = 1
        counts["hands"] = hands
        counts["wins"] = int(won)
        counts["skunks_given"] = len(result["skunked"]) if won else 0
        counts["skunks_taken"] = int(side in result["skunked"])
        counts[f"games:{game.table.mode}"] = 1
        counts[f"wins:{game.table.mode}"] = int(won)
        out[user_id] = counts
    return out


@pytest.mark.django_db
def test_statistics_match_the_event_log(four: list[Any], fixed_seeds: None) -> None:
    alice, bob, carol, _dave = four
    games = []
    # The longest clock: moves made in real time are never late, however slow the machine.
    table = start_table(four, "citizen_gym", partners=True, clock=60)
    games.append(play(table, four, seed=1, timeouts=0.15))
    table = start_table([alice, carol], "fives", limit=100)
    games.append(play(table, [alice, carol], seed=2))
    # Head-to-head Citizen games until one ends with a skunk (a few are enough).
    for seed in range(3, 30):
        table = start_table([alice, bob], "citizen")
        games.append(play(table, [alice, bob], seed=seed))
        if games[-1].result["skunked"]:
            break
    expected: dict[int, Counter[str]] = defaultdict(Counter)
    for game in games:
        assert game.status == Game.Status.FINISHED
        for user_id, counts in tally(game).items():
            expected[user_id] += counts
    # What the test set out to cover did happen.
    assert any(c["skunks_taken"] for c in expected.values()), "no game ended with a skunk"
    assert any(c["dumbbells"] for c in expected.values())
    assert any(c["dominoes"] for c in expected.values())
    for user in four:
        counts = expected[user.pk]
        stats = player_stats(user)
        assert stats["games"] == counts["games"]
        assert stats["wins"] == counts["wins"]
        assert stats["hands"] == counts["hands"]
        assert stats["points"] == counts["points"]
        assert stats["dominoes"] == counts["dominoes"]
        assert stats["skunks_given"] == counts["skunks_given"]
        assert stats["skunks_taken"] == counts["skunks_taken"]
        assert stats["dumbbells"] == counts["dumbbells"]
        per_hand = (Decimal(counts["points"]) / counts["hands"]).quantize(
            Decimal("0.1"), rounding=ROUND_HALF_UP
        )
        assert stats["points_per_hand"] == per_hand
        rate = (Decimal(100 * counts["wins"]) / counts["games"]).quantize(
            Decimal("1"), rounding=ROUND_HALF_UP
        )
        assert stats["rate"] == int(rate)
        for row in stats["modes"]:
            assert row["games"] == counts[f"games:{row['mode']}"]
            assert row["wins"] == counts[f"wins:{row['mode']}"]
        assert sum(row["games"] for row in stats["modes"]) == counts["games"]
    # The profile shows them, each with its explanation.
    client = Client()
    client.force_login(bob)
    html = client.get(f"/players/{alice.pk}/").content.decode()
    stats = player_stats(alice)
    assert f"<dd>{stats['games']}</dd>" in html
    assert f"<dd>{stats['dominoes']}</dd>" in html
    assert (
        "Points this player&#x27;s own plays made" in html
        or "Points this player's own plays" in html
    )


@pytest.mark.django_db
def test_the_sweep_archives_a_game_once(alice: Any, bob: Any) -> None:
    table = start_table([alice, bob], "fives", limit=50)
    game = play(table, [alice, bob], seed=6)
    assert PlayerGame.objects.filter(game=game).count() == 2
    before = list(PlayerGame.objects.filter(game=game).values())
    assert games_archive_pending() == 0  # nothing left to do
    PlayerGame.objects.filter(game=game).delete()
    assert games_archive_pending() == 1
    after = list(PlayerGame.objects.filter(game=game).values())
    assert [{k: v for k, v in r.items() if k != "id"} for r in after] == [
        {k: v for k, v in r.items() if k != "id"} for r in before
    ]


@pytest.mark.django_db
def test_a_game_whose_replay_fails_is_not_archived_and_does_not_raise(
    alice: Any, bob: Any, caplog: Any
) -> None:
    from history.services import game_archive
    from tables.models import Hand

    table = start_table([alice, bob], "fives", limit=50)
    game = play(table, [alice, bob], seed=7)
    PlayerGame.objects.filter(game=game).delete()
    Hand.objects.filter(game=game, number=1).update(server_seed="00" * 32)
    assert game_archive(game=game) == []
    assert "could not archive" in caplog.text
    assert not PlayerGame.objects.filter(game=game).exists()


@pytest.mark.django_db
def test_the_profile_lists_games_a_page_at_a_time(alice: Any, bob: Any) -> None:
    for seed in range(GAMES_PER_PAGE + 2):
        table = start_table([alice, bob], "fives", limit=50)
        play(table, [alice, bob], seed=seed)
    client = Client()
    client.force_login(bob)
    first = client.get(f"/players/{alice.pk}/").content.decode()
    second = client.get(f"/players/{alice.pk}/?games=2").content.decode()
    newest = PlayerGame.objects.filter(user=alice).order_by("-finished_at", "-game_id")
    ids = [r.game_id for r in newest]
    assert all(f'href="/games/{i}/"' in first for i in ids[:GAMES_PER_PAGE])
    assert all(f'href="/games/{i}/"' not in first for i in ids[GAMES_PER_PAGE:])
    assert all(f'href="/games/{i}/"' in second for i in ids[GAMES_PER_PAGE:])
    assert "Page 2 of 2" in second
