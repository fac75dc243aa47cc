"""The table page and what it needs from the server: the recent moves for a page opened
mid-game (`hello` with `log`), what each player won or paid at a staked table (the picture's
`settlement`), and the page itself (one slim layout, no inline script or style)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.messages import get_messages
from django.test import Client

from engine import GameState
from ledger import services as ledger
from ledger.services import StakeSpec
from tables import selectors, services
from tables.models import Game, Table, TableEvent
from tests.ledger.helpers import dollars, finish, staked_game
from tests.tables.helpers import connect
from tests.tables.test_lobby import create
from tests.tables.test_table_socket import error_for, started_table


async def answer(socket: Any, message: dict[str, Any]) -> dict[str, Any]:
    """The answer to a hello (watcher counts and chat that cross it are skipped)."""
    await socket.send_json_to(message)
    while True:
        reply = await socket.receive_json_from(timeout=10)
        if reply["type"] in ("snapshot", "resume"):
            return reply


def play(table: Table, players: list[Any], moves: int) -> None:
    for _ in range(moves):
        game = Game.objects.get(table=table)
        state = GameState.from_json(game.state)
        if state.is_over:
            return
        action = state.legal_actions()[0].to_dict()
        action.pop("seat")
        services.game_act(
            table_id=table.pk, user=players[state.to_act], version=game.version, action=action
        )


@pytest.mark.django_db(transaction=True)
async def test_hello_with_log_brings_the_recent_moves_as_this_seat_sees_them(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await sync_to_async(started_table)(alice, bob)
    await sync_to_async(play)(table, [alice, bob], 6)
    socket = await connect(alice, table.pk)
    reply = await answer(socket, {"type": "hello", "last_seq": None, "log": True})
    assert reply["type"] == "snapshot"
    rows = [row async for row in TableEvent.objects.filter(table=table).order_by("seq")]
    # Every event number up to the answer's, each as seat 0 sees it: Alice's own hand in the
    # deal, never Bob's.
    assert reply["log"] == [{"seq": r.seq, "events": r.for_seat(0)} for r in rows]
    assert reply["log"][-1]["seq"] == reply["seq"]
    dealt = [e for batch in reply["log"] for e in batch["events"] if e["type"] == "dealt"]
    assert dealt and all("hand" in e for e in dealt)
    bob_dealt = [e for r in rows for e in r.for_seat(1) if e["type"] == "dealt"]
    assert dealt[0]["hand"] != bob_dealt[0]["hand"]
    kinds = {e["type"] for batch in reply["log"] for e in batch["events"]}
    assert {"game_started", "dealt", "bone_played"} <= kinds

    # Only when asked; a resume can carry it too; and it is the latest LOG_BATCHES.
    plain = await answer(socket, {"type": "hello", "last_seq": None})
    assert "log" not in plain
    monkeypatch.setattr(selectors, "LOG_BATCHES", 3)
    resume = await answer(socket, {"type": "hello", "last_seq": reply["seq"] - 2, "log": True})
    assert resume["type"] == "resume"
    assert [b["seq"] for b in resume["log"]] == [
        resume["seq"] - 2,
        resume["seq"] - 1,
        resume["seq"],
    ]

    refused = await error_for(socket, {"type": "hello", "last_seq": None, "log": "yes"})
    assert (refused["code"], refused["field"]) == ("bad_field", "log")
    await socket.disconnect()


@pytest.mark.django_db
def test_the_picture_says_what_each_player_won_or_paid_once_settled(alice: Any, bob: Any) -> None:
    before = [dollars(alice), dollars(bob)]
    staked = staked_game([alice, bob], stake=StakeSpec(dollars=10))
    assert selectors.table_picture(staked.table, staked.game)["settlement"] is None  # in play
    finish(staked.game, winner=0, skunked=[1])
    game = Game.objects.get(pk=staked.game.pk)
    assert selectors.table_picture(staked.table, game)["settlement"] is None  # not yet paid
    ledger.game_settle(game_id=game.pk)
    settlement = selectors.table_picture(staked.table, game)["settlement"]
    gains = [dollars(alice) - before[0], dollars(bob) - before[1]]
    assert gains == [20, -20]  # the pot, and Bob's skunk stake
    assert settlement == {
        "units": {"dollars": {"kind": "dollars"}},
        "net": [{"dollars": 20}, {"dollars": -20}],
    }


@pytest.mark.django_db
def test_no_settlement_at_a_table_played_for_nothing(alice: Any, bob: Any) -> None:
    table = started_table(alice, bob)
    game = Game.objects.get(table=table)
    finish(game, winner=1)
    assert selectors.table_picture(table, Game.objects.get(pk=game.pk))["settlement"] is None


@pytest.mark.django_db
def test_the_table_page_is_one_slim_layout_without_inline_code(alice: Any, bob: Any) -> None:
    table = started_table(alice, bob)
    client = Client()
    client.force_login(alice)
    html = client.get(f"/tables/{table.pk}/").content.decode()
    assert '<body class="table-page">' in html
    assert html.count("Play money only.") == 1  # the footer's, not a second one in the stake
    # Nothing the Content-Security-Policy would refuse: no style="", no inline handler, and
    # scripts are files or JSON data.
    assert not re.search(r"\sstyle=", html)
    assert not re.search(r"\son[a-z]+=", html)
    for tag in re.findall(r"<script[^>]*>", html):
        assert "src=" in tag or 'type="application/json"' in tag, tag
    # The drawer's controls and the parts the script fills are there.
    for part in (
        'id="drawer-toggle"',
        'aria-controls="table-drawer"',
        'role="tablist"',
        'id="score-strip"',
    ):
        assert part in html


@pytest.mark.django_db
def test_only_a_private_table_is_opened_with_a_link_to_share(alice: Any, bob: Any) -> None:
    said = {}
    for user, private in ((alice, False), (bob, True)):
        client = Client()
        client.force_login(user)
        response = create(client, **({"private": "on"} if private else {}))
        said[private] = [str(m) for m in get_messages(response.wsgi_request)]
    assert said[False] == ["Your table is open: it is listed in the lobby."]
    assert said[True] == ["Your table is open. Share the link to invite players."]
    assert Table.objects.get(host=bob).private and not Table.objects.get(host=alice).private
