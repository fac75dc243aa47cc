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


def test_two_reference_bots_play_each_other_after_a_challenge(server: str, make_user: Any) -> None:
    """Two bot accounts (upgraded through the API): one challenges the other to a rated Fives
    game; the other, serving, accepts it from its event stream; both play it out."""
    robo, bolt = make_user("Robo"), make_user("Bolt")
    clients = {
        "robo": bot.Client(server, token_for(robo, "read", "play", "challenge", name="robo")),
        "bolt": bot.Client(server, token_for(bolt, "read", "play", "challenge", name="bolt")),
    }
    for client in clients.values():
        assert client.call("POST", "/api/bot/account/upgrade")["bot"] is True
    results: dict[str, Any] = {}

    def serving() -> None:
        try:
            results["bolt"] = bot.serve(clients["bolt"], games=1)
        except Exception as exc:  # reported below
            results["bolt"] = exc

    server_thread = threading.Thread(target=serving)
    server_thread.start()
    try:
        sent = clients["robo"].call(
            "POST",
            "/api/challenges",
            {"player": bolt.pk, "mode": "fives", "limit": 100, "rated": True},
        )
        table = None
        for _ in range(600):  # until Bolt's serve has accepted it (it reads its event stream)
            found = clients["robo"].call("GET", f"/api/challenges/{sent['id']}")
            table = found["table"]
            if table:
                break
            threading.Event().wait(0.1)
        assert table, "the challenge was never accepted"
        results["robo"] = bot.play_table(clients["robo"], int(table), seed=1)
        server_thread.join(timeout=300)
    finally:
        for client in clients.values():
            client.close()
    assert results["bolt"] == 1, results
    assert isinstance(results["robo"], dict) and results["robo"]["type"] == "game_over"
    game = Game.objects.get(table_id=table, number=1)
    assert game.status == Game.Status.FINISHED
    assert sorted(game.players) == sorted([robo.pk, bolt.pk])
