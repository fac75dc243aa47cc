"""`game_finished` and `game_called_off`: who subscribes, in which order, inside the game's
final transaction, and that tables imports none of the apps that react."""

from __future__ import annotations

import ast
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from accounts.models import User
from history.models import PlayerGame
from ledger.models import Posting
from ledger.services import StakeSpec, refund_key
from ratings.models import RatedGame, RatingChange
from tables import services
from tables.events import GameEvent, Stage, game_called_off, game_finished
from tables.models import Game
from tests.history.helpers import live_game, play, start_table
from tests.ledger.helpers import dollars

ROOT = Path(__file__).resolve().parents[2]


def test_the_subscribers_and_their_order() -> None:
    assert [(stage, r.__module__) for stage, r in game_finished.subscribers()] == [
        (Stage.SETTLEMENT, "ledger.receivers"),
        (Stage.ARCHIVE, "history.receivers"),
        (Stage.WORKOUTS, "gym.receivers"),
        (Stage.RATINGS, "ratings.receivers"),
    ]
    assert [(stage, r.__module__) for stage, r in game_called_off.subscribers()] == [
        (Stage.REFUND, "ledger.receivers"),
    ]


def test_send_runs_by_stage_not_by_subscription_order() -> None:
    event: GameEvent[str] = GameEvent("test")
    seen: list[str] = []
    event.subscribe(Stage.RATINGS, lambda e: seen.append(f"ratings {e}"))
    event.subscribe(Stage.SETTLEMENT, lambda e: seen.append(f"settle {e}"))
    event.subscribe(Stage.ARCHIVE, lambda e: seen.append(f"archive {e}"))
    event.send("g1")
    assert seen == ["settle g1", "archive g1", "ratings g1"]


def test_a_taken_stage_refuses_another_subscriber() -> None:
    event: GameEvent[str] = GameEvent("test")
    event.subscribe(Stage.ARCHIVE, print)
    event.subscribe(Stage.ARCHIVE, print)  # the same again (a second ready()): no change
    with pytest.raises(ValueError, match="ARCHIVE"):
        event.subscribe(Stage.ARCHIVE, repr)


@pytest.fixture
def pair(make_user: Callable[..., User]) -> list[User]:
    return [make_user("Alice"), make_user("Bob")]


@pytest.mark.django_db
def test_a_finished_game_is_settled_archived_and_rated_in_order(
    pair: list[User], monkeypatch: pytest.MonkeyPatch
) -> None:
    order: list[str] = []
    for stage, receiver in game_finished.subscribers():

        def recorded(event: Any, receiver: Any = receiver, stage: Stage = stage) -> None:
            order.append(stage.name)
            receiver(event)

        monkeypatch.setitem(game_finished._subscribers, stage, recorded)
    table = start_table(pair, mode="fives", limit=50)
    game = play(table, pair, seed=3)
    assert game.status == Game.Status.FINISHED
    assert order == ["SETTLEMENT", "ARCHIVE", "WORKOUTS", "RATINGS"]
    assert PlayerGame.objects.filter(game=game).count() == 2
    rated = RatedGame.objects.get(game=game)
    assert rated.rated and RatingChange.objects.filter(rated_game=rated).count() == 2


@pytest.mark.django_db
def test_a_subscriber_that_fails_leaves_the_game_unfinished(
    pair: list[User], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(event: Any) -> None:
        raise RuntimeError("the ratings are down")

    monkeypatch.setitem(game_finished._subscribers, Stage.RATINGS, broken)
    table = start_table(pair, mode="fives", limit=50)
    with pytest.raises(RuntimeError, match="ratings are down"):
        play(table, pair, seed=3)
    game = live_game(table)
    assert game.status == Game.Status.PLAYING and game.result is None
    assert not PlayerGame.objects.filter(game=game).exists()  # the archive rolled back with it
    assert not RatedGame.objects.exists()


@pytest.mark.django_db
def test_a_game_called_off_refunds_and_is_never_rated(pair: list[User]) -> None:
    alice, bob = pair
    table = services.table_create(host=alice, mode="fives", stake=StakeSpec(dollars=10), players=2)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    for user in pair:
        services.hand_wash(table_id=table.pk, user=user, hand=1, entropy=secrets.token_hex(32))
    before = dollars(alice)
    for user in pair:
        services.seat_ready(table_id=table.pk, user=user, ready=True)
    assert dollars(alice) < before
    services.game_abort(table_id=table.pk, user=bob)
    game = Game.objects.get(table=table)
    assert Posting.objects.filter(key=refund_key(game.pk)).exists()
    assert dollars(alice) == before
    assert not RatedGame.objects.exists()


# --- the import graph ---------------------------------------------------------------------------

#: Apps that react to tables' events: tables must import nothing of theirs. The ledger too: it
#: keeps the tables' stakes through tables/stakes.py (tests/tables/test_stake_keeper.py); and the
#: house, which hears every turn (and offers the rematch when a game ends): its socket messages
#: and lobby form are added from its ready() (tables.consumers.add_handler, views.LOBBY_FORMS).
#: The API: its seat guard (bots at rated tables) is added from its ready() (SEAT_GUARDS), and
#: the words a bot account is refused in at the table are accounts.bots'.
SUBSCRIBERS = (
    "gym",
    "history",
    "ledger",
    "ratings",
    "tournaments",
    "staff",
    "house",
    "api",
    "coach",
    "puzzles",
)


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function ("from x import y" gives
    x and x.y, as y may be a module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _tables_files() -> list[Path]:
    return sorted(p for p in (ROOT / "tables").rglob("*.py") if "migrations" not in p.parts)


def test_tables_imports_none_of_the_apps_that_react() -> None:
    offending = {
        (str(path.relative_to(ROOT)), module)
        for path in _tables_files()
        for module in _imports(path)
        if module.split(".")[0] in SUBSCRIBERS
    }
    assert offending == set()
    # ...and never settles or refunds a game itself: that is the ledger's subscriber.
    source = "\n".join(p.read_text() for p in _tables_files())
    assert "game_settle" not in source and "game_refund" not in source


def test_the_reacting_apps_subscribe_from_their_appconfig() -> None:
    for app in ("ledger", "history", "gym", "ratings"):
        assert "receivers.subscribe()" in (ROOT / app / "apps.py").read_text()


@pytest.mark.django_db
def test_a_voided_game_is_never_rated(pair: list[User], warden: User) -> None:
    table = start_table(pair, mode="fives", limit=50)
    play(table, pair, seed=3, stop=lambda state: state.deal_number >= 1 and bool(state.history))
    game = live_game(table)
    assert game.status == Game.Status.PLAYING
    services.game_void(game_id=game.pk, by=warden, reason="Cheating suspected")
    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED
    assert not RatedGame.objects.exists() and not RatingChange.objects.exists()


def test_other_apps_add_to_the_table_socket_and_the_lobby_from_their_ready() -> None:
    from house.forms import PracticeForm
    from house.socket import on_house_remove, on_house_sit
    from tables.consumers import TableConsumer, add_handler
    from tables.views import LOBBY_FORMS

    assert TableConsumer.HANDLERS["house_sit"] is on_house_sit
    assert TableConsumer.HANDLERS["house_remove"] is on_house_remove
    assert PracticeForm.for_lobby in LOBBY_FORMS
    add_handler("house_sit", on_house_sit)  # again (a second ready()): nothing changes

    async def other(consumer: Any, content: dict[str, Any]) -> None:
        raise AssertionError("never called")

    with pytest.raises(ValueError, match="house_sit"):
        add_handler("house_sit", other)  # a type another app answers is not taken over
    assert TableConsumer.HANDLERS["house_sit"] is on_house_sit
