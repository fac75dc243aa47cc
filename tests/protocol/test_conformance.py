"""Whole games played over a real daphne by a client that knows only docs/protocol.md.

The setup uses the server's services (players, a table, log-in cookies); everything after that
is `tests/protocol/docclient.py`, which imports nothing of the server: it sits, washes, presses
ready, plays every move from `legal_actions`, reconnects mid-game and resumes, loses an update on
purpose and fills the gap, and checks every message against the document as it goes.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
import websockets
from django.conf import settings
from django.test import Client

from tables import services
from tests.live import start_server, stop_server
from tests.protocol.docclient import Disagreement, DocClient, bones_in, expect

pytestmark = pytest.mark.django_db(transaction=True)


def cookie_for(user: Any) -> str:
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}"


def logins(users: list[Any]) -> list[tuple[str, str]]:
    """Each user's name and session cookie (made here, before any event loop runs)."""
    return [(user.display_name, cookie_for(user)) for user in users]


def clients_for(port: int, table_id: int, users: list[tuple[str, str]]) -> list[DocClient]:
    return [
        DocClient(
            f"ws://127.0.0.1:{port}/ws/tables/{table_id}/",
            cookie,
            f"http://localhost:{port}",
            name,
        )
        for name, cookie in users
    ]


def run_on_daphne(play: Any, *args: Any) -> Any:
    """Fork daphne from this thread (no event loop running), then run the clients."""
    server = start_server()
    try:
        return asyncio.run(play(server.port.value, *args))
    finally:
        stop_server(server)


async def settle(everyone: list[DocClient], version: int) -> None:
    """Every open client reads until its game is at `version` or later."""
    for client in everyone:
        await client.until(lambda c=client: c.game is not None and c.game["version"] >= version)


def check_hands_apart(players: list[DocClient]) -> None:
    """What the players hold, and the board, never overlap: no seat was shown another's bone."""
    held: set[str] = set()
    for client in players:
        assert client.game is not None
        mine = set(client.game["hand"])
        expect(not mine & held, f"two seats hold {sorted(mine & held)}")
        held |= mine
    assert players[0].game is not None
    on_board = bones_in(players[0].game["board"])
    expect(not on_board & held, f"bones both held and on the board: {sorted(on_board & held)}")


async def take_seats(
    players: list[DocClient], watchers: list[DocClient], host_ready: bool = True
) -> None:
    """Everyone says hello; the others sit in seats 1, 2, …; every seat washes and is ready."""
    for client in [*players, *watchers]:
        await client.open()
        answer = await client.hello()
        expect(answer["type"] == "snapshot", "a new client gets a snapshot")
    for number, client in enumerate(players[1:], start=1):
        await client.send({"type": "sit", "seat": number})
        await client.until(lambda c=client, n=number: c.seat == n)
    for client in players:
        await client.until(lambda c=client: all(s["player"] for s in c.table["seats"]))
        await client.wash()
    for client in players:
        await client.send({"type": "ready", "ready": True, "request_id": "r-" + client.label})
    for client in [*players, *watchers]:
        await client.until(lambda c=client: c.game is not None)


async def play_to_the_end(
    players: list[DocClient], watchers: list[DocClient], rng: random.Random, reconnect_at: int
) -> int:
    """Play random legal moves until the game is over. After `reconnect_at` moves the player
    who just moved leaves and comes back when it is their turn; once they are back (and three
    moves on) a client loses an update on the way and fills the gap from the next one (or, if it
    is to act first, from the `stale` refusal). Returns the moves made."""
    everyone = [*players, *watchers]
    away: DocClient | None = None
    lossy: DocClient | None = None
    lost = False
    moves = 0
    while True:
        here = [c for c in everyone if c is not away]
        game = max(here, key=lambda c: c.last_seq or 0).game  # one that has drawn the latest
        assert game is not None
        if game["phase"] == "game_over":
            break
        actor = players[game["to_act"]]
        if actor is away:  # it is the absent player's turn: they come back and resume
            await come_back(actor, players)
            away = None
        reply = await actor.act_at_random(rng)
        moves += 1
        # The client losing an update cannot know it before the next one: it catches up then.
        await settle([c for c in everyone if c is not away and c is not lossy], reply["version"])
        lossy = None
        check_hands_apart([c for c in players if c is not away])
        for client in everyone:
            await client.wash()
        if moves == reconnect_at:
            away = actor
            await away.close()
        if moves >= reconnect_at + 3 and away is None and not lost:
            lossy, lost = (watchers or players)[0], True
            lossy.lose_next_update = True
        expect(moves < 2000, "the game ends")
    if away is not None:
        await come_back(away, players)
    for client in everyone:  # the last word: each client resumes from what it drew
        answer = await client.hello()
        expect(answer["type"] == "resume", "a client that is up to date resumes (nothing)")
    return moves


async def come_back(client: DocClient, players: list[DocClient]) -> None:
    """Reconnect, hello with the last seq drawn: the resume brings exactly what was missed
    (its own leaving and coming back included) and shows what a fresh snapshot shows."""
    before = client.last_seq
    await client.open()
    resume = await client.hello()
    expect(resume["type"] == "resume", "a client a few events behind is resumed")
    kinds = [e["type"] for batch in resume["events"] for e in batch["events"]]
    expect("away" in kinds and kinds[-1] == "back", f"missed: {kinds}")
    assert before is not None and resume["seq"] > before
    fresh = await client.hello(None)
    expect(fresh["type"] == "snapshot" and fresh["seq"] == resume["seq"], "one number")
    expect(fresh["table"] == resume["table"], "a resume shows what a snapshot shows (table)")
    expect(fresh["game"] == resume["game"], "a resume shows what a snapshot shows (game)")
    for other in players:
        if other is not client:  # everyone else saw the player leave and come back
            await other.until(
                lambda o=other: o.last_seq is not None and o.last_seq >= resume["seq"]
            )


async def after_the_end(players: list[DocClient], watchers: list[DocClient]) -> None:
    """A move after the end is `no_game`; a rematch by every player starts game 2."""
    for client in [*players, *watchers]:
        assert client.game is not None
        expect(client.game["game"] is not None, "the result is in game.game")
        expect(client.table and client.table["status"] == "finished", "the table is finished")
    refused = await players[0].act({"type": "pass"})
    expect(refused["type"] == "error" and refused["code"] == "no_game", f"after the end: {refused}")
    for client in players:
        await client.send({"type": "rematch", "want": True})
    for client in [*players, *watchers]:
        await client.until(lambda c=client: c.table is not None and c.table["game_number"] == 2)
        assert client.table is not None
        expect(client.table["status"] == "playing", "the rematch started at once")


def check_quiet(clients: list[DocClient]) -> None:
    """Errors nobody asked for: only washes that came too late (documented) are allowed."""
    for client in clients:
        for error in client.errors:
            expect(
                error["code"] == "bad_wash" and str(error.get("request_id", "")).startswith("w"),
                f"{client.label} got {error}",
            )


async def one_on_one(
    port: int, table_id: int, users: list[tuple[str, str]], watcher: list[tuple[str, str]]
) -> int:
    players = clients_for(port, table_id, users)
    (spectator,) = clients_for(port, table_id, watcher)
    rng = random.Random(11)
    await take_seats(players, [spectator])
    moves = await play_to_the_end(players, [spectator], rng, reconnect_at=4)
    await after_the_end(players, [spectator])
    expect(spectator.gaps == 1, "the spectator lost an update, saw the gap and resumed")
    check_quiet([*players, spectator])
    for client in [*players, spectator]:
        await client.close()
    return moves


async def four_players(port: int, table_id: int, users: list[tuple[str, str]]) -> int:
    players = clients_for(port, table_id, users)
    rng = random.Random(5)
    await take_seats(players, [])
    moves = await play_to_the_end(players, [], rng, reconnect_at=6)
    for client in players:
        expect(client.game and client.game["phase"] == "game_over", "everyone saw the end")
    check_quiet(players)
    for client in players:
        await client.close()
    return moves


def test_a_one_on_one_game_from_the_document_alone(alice: Any, bob: Any, make_user: Any) -> None:
    table = services.table_create(host=alice, mode="fives", players=2, limit=50)
    watcher = make_user("Watcher")
    moves = run_on_daphne(one_on_one, table.pk, logins([alice, bob]), logins([watcher]))
    assert moves > 5


def test_a_partners_game_for_four_from_the_document_alone(make_user: Any) -> None:
    users = [make_user(name) for name in ("Ann", "Ben", "Cy", "Di")]
    table = services.table_create(host=users[0], mode="citizen", players=4, partners=True)
    moves = run_on_daphne(four_players, table.pk, logins(users))
    assert moves > 5


# --- the limits and the door, as documented ------------------------------------------------------


async def limits(port: int, table_id: int, cookie: str) -> None:
    url = f"ws://127.0.0.1:{port}/ws/tables/{table_id}/"
    origin = f"http://localhost:{port}"

    async def connect(**headers: str) -> Any:
        return await websockets.connect(
            url,
            additional_headers={"Cookie": cookie, "Origin": origin, **headers},
            compression=None,
        )

    async def answer(socket: Any, frame: str) -> dict[str, Any]:
        await socket.send(frame)
        return dict(json.loads(await asyncio.wait_for(socket.recv(), timeout=10)))

    socket = await connect()
    ping = '{"type": "ping", "pad": "%s"}'
    exact = ping % ("x" * (4096 - len(ping % "")))
    assert (await answer(socket, exact))["type"] == "pong"  # 4,096 bytes: read
    assert (await answer(socket, exact.replace("x", "é", 1)))["code"] == "too_large"  # 4,097
    mib = ping % ("x" * (2**20 - len(ping % "")))
    assert (await answer(socket, mib))["code"] == "too_large"  # 1 MiB: refused, still open
    assert (await answer(socket, '{"type": "ping"}'))["type"] == "pong"
    await socket.send(mib + " ")  # one byte over 1 MiB: daphne drops the connection
    with pytest.raises(websockets.ConnectionClosedError) as dropped:
        await asyncio.wait_for(socket.recv(), timeout=10)
    assert dropped.value.rcvd is None  # no close frame, no error message: 1006 to the client

    # The rate limit: refusals name the message, the 50th closes the socket with 4008.
    socket = await connect()
    for n in range(100):
        await socket.send(json.dumps({"type": "ping", "request_id": f"p{n}"}))
    codes = []
    with pytest.raises(websockets.ConnectionClosed) as closed:
        while True:
            message = json.loads(await asyncio.wait_for(socket.recv(), timeout=10))
            if message["type"] == "error":
                assert message["request_type"] == "ping" and message["request_id"][0] == "p"
            codes.append(message.get("code", message["type"]))
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4008
    assert codes.count("rate_limited") == 49 and codes.count("pong") >= 30

    # The door: another port's page is refused at the handshake; no login, 4001; no table, 4004.
    with pytest.raises(websockets.InvalidStatus) as refused:
        await connect(Origin=f"http://localhost:{port + 1}")
    assert refused.value.response.status_code == 403
    for path, headers, code in [
        (url, {"Origin": origin}, 4001),
        (f"ws://127.0.0.1:{port}/ws/tables/987654321/", {"Origin": origin, "Cookie": cookie}, 4004),
    ]:
        socket = await websockets.connect(path, additional_headers=headers)
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(socket.recv(), timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == code


def test_the_limits_and_close_codes_are_as_documented(alice: Any) -> None:
    table = services.table_create(host=alice, mode="fives", players=2)
    run_on_daphne(limits, table.pk, cookie_for(alice))


def test_the_checks_catch_what_the_document_forbids() -> None:
    """The client's own checks fail on each kind of disagreement (so a pass means something)."""
    from tests.protocol.docclient import check_event, check_picture, hidden_bones

    with pytest.raises(Disagreement):
        check_event({"type": "dealt", "deal": 1, "hand_sizes": [7, 7], "yard": 14}, 0)
    with pytest.raises(Disagreement):
        check_event({"type": "drew", "seat": 1, "position": 0, "yard": 3, "bone": "5-5"}, 0)
    with pytest.raises(Disagreement):
        check_event({"type": "teleported"}, None)
    with pytest.raises(Disagreement):
        check_picture({"id": 1})
    game = {"hand": ["1-0"], "board": {"lead": {"bone": "6-6"}}, "history": [], "last_play": None}
    assert hidden_bones({"game": game}, [], 0) == set()
    assert hidden_bones({"game": game}, [], None) == {"1-0"}
    drew = {"type": "drew", "seat": 1, "bone": "4-4"}
    assert hidden_bones({"game": game}, [drew], 0) == {"4-4"}
