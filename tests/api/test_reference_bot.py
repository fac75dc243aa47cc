"""The reference bot (clients/python/dominologist_bot.py), written against the public API alone
with httpx, plays whole games on a real daphne: against a house player at a practice table,
and against another bot."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tables.models import Game
from tests.api.helpers import token_for
from tests.history.helpers import start_table
from tests.live import start_server, stop_server

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))
import dominologist_bot as bot

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def server() -> Iterator[str]:
    """A daphne on the test database; the house's turns run inside it (no worker here)."""
    from dominoes_site.celery import app

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True  # the forked server has it too
    try:
        process = start_server()
    finally:
        app.conf.task_always_eager = eager
    yield f"http://127.0.0.1:{process.port.value}"
    stop_server(process)


def test_the_reference_bot_plays_a_whole_game_against_the_house(server: str, alice: Any) -> None:
    client = bot.Client(server, token_for(alice, "read", "play"))
    try:
        over = bot.practice(client, "fives", "rookie")
    finally:
        client.close()
    assert over is not None and over["type"] == "game_over"
    game = Game.objects.get(table__seats__user=alice)
    assert game.status == Game.Status.FINISHED
    assert game.result["winner"] == over["winner"]


def test_two_reference_bots_play_each_other(server: str, alice: Any, bob: Any) -> None:
    table = start_table([alice, bob], "fives", limit=100)
    results: dict[str, Any] = {}

    def play(name: str, user: Any) -> None:
        client = bot.Client(server, token_for(user, "read", "play", name=name))
        try:
            results[name] = bot.play_table(client, table.pk, seed=len(name))
        except Exception as exc:
            results[name] = exc
        finally:
            client.close()

    threads = [threading.Thread(target=play, args=a) for a in (("a", alice), ("bb", bob))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert set(results) == {"a", "bb"}, results
    for over in results.values():
        assert isinstance(over, dict) and over["type"] == "game_over", results
    assert results["a"] == results["bb"]  # both saw the same end
    game = Game.objects.get(table=table, number=1)
    assert game.status == Game.Status.FINISHED
