"""The API's live part: a seat's game stream and its moves. Two bots play a whole game through
the API alone (moves by POST, the state from each seat's stream), and every line each stream
carries is checked as the socket tests check theirs: no bone of another seat or of the yard
before it is shown. A move sent by the API and one sent by a socket for the same version: one
applies. A stream resumes from `since`, keeps alive, and ends when its token is revoked."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient

from api import streams
from api.tokens import token_revoke
from engine import GameState
from tables.models import Game, Table
from tests.api.helpers import token_for
from tests.history.helpers import start_table
from tests.tables.helpers import assert_sees_only_its_own, connect

pytestmark = pytest.mark.django_db(transaction=True)


class Stream:
    """An NDJSON stream read a line at a time (keepalive lines kept apart)."""

    def __init__(self, response: Any) -> None:
        self.response = response
        self.chunks: AsyncIterator[bytes] = aiter(response.streaming_content)
        self.buffer = b""
        self.keepalives = 0

    async def next(self, timeout: float = 30) -> dict[str, Any]:
        while True:
            if b"\n" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\n", 1)
                if not raw.strip():
                    self.keepalives += 1
                    continue
                return json.loads(raw)  # type: ignore[no-any-return]
            self.buffer += await asyncio.wait_for(anext(self.chunks), timeout)

    async def keepalive(self, timeout: float = 30) -> None:
        """Until an empty line comes (nothing else may come first)."""
        while True:
            if b"\n" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\n", 1)
                assert not raw.strip(), f"a line came before the keepalive: {raw!r}"
                return
            self.buffer += await asyncio.wait_for(anext(self.chunks), timeout)

    async def close(self) -> None:
        """As a client going away: the answer is closed (as daphne closes it when the
        connection drops), and with it the stream's generator, on the loop's next turns."""
        closer = getattr(self.response._iterator, "aclose", None)
        if closer is not None:
            await closer()
        for _ in range(3):
            await asyncio.sleep(0)


async def open_stream(token: str, path: str) -> Stream:
    response = await AsyncClient().get(path, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/x-ndjson"
    return Stream(response)


async def post(token: str, path: str, body: dict[str, Any] | None = None) -> Any:
    return await AsyncClient().post(
        path,
        data=json.dumps(body or {}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )


async def test_two_bots_play_a_whole_game_through_the_api_and_see_only_their_own(
    alice: Any, bob: Any, make_user: Any
) -> None:
    table = await sync_to_async(start_table)([alice, bob], "fives", limit=50)
    carol = await sync_to_async(make_user)("Carol")  # watching: sees neither hand
    tokens = [await sync_to_async(token_for)(u, "play") for u in (alice, bob, carol)]
    path = f"/api/tables/{table.pk}/stream"
    streams = [await open_stream(t, path) for t in tokens]
    audiences: list[int | None] = [0, 1, None]
    views: list[dict[str, Any]] = []
    for seat, stream in zip(audiences, streams, strict=True):
        first = await stream.next()
        assert first["type"] == "snapshot" and first["table"]["you"]["seat"] == seat
        assert_sees_only_its_own(first, seat)
        views.append(first)
    seq = views[0]["seq"]
    rng = random.Random(7)
    moves = 0
    try:
        while True:
            game = await Game.objects.aget(table=table, number=1)
            state = GameState.from_json(game.state)
            if state.is_over:
                break
            if state.phase.value == "awaiting_deal" or state.to_act is None:
                await asyncio.sleep(0.05)  # the next hand is being dealt by the house
                continue
            action = rng.choice(state.legal_actions()).to_dict()
            action.pop("seat")
            mover = state.to_act
            answer = await post(
                tokens[mover],
                f"/api/tables/{table.pk}/move",
                {"version": game.version, "action": action, "request_id": f"m{moves}"},
            )
            assert answer.status_code == 200, answer.content
            assert answer.json()["request_id"] == f"m{moves}"
            moves += 1
            # Every stream carries the move, in order, each seeing only its own.
            for seat, stream in zip(audiences, streams, strict=True):
                while True:
                    update = await stream.next()
                    assert update["type"] in ("update", "resume"), update
                    assert update["seq"] > seq or seat != 0
                    assert_sees_only_its_own(update, seat)
                    if update["game"] and update["game"]["version"] >= answer.json()["version"]:
                        break
            seq = update["seq"]
    finally:
        for stream in streams:
            await stream.close()
    assert moves > 5
    game = await Game.objects.aget(table=table, number=1)
    assert game.status == Game.Status.FINISHED


async def test_a_stale_move_is_refused_and_an_api_and_a_socket_race_applies_one(
    alice: Any, bob: Any
) -> None:
    table = await sync_to_async(start_table)([alice, bob], "fives", limit=50)
    game = await Game.objects.aget(table=table, number=1)
    state = GameState.from_json(game.state)
    mover = [alice, bob][state.to_act]
    token = await sync_to_async(token_for)(mover, "play")
    action = state.legal_actions()[0].to_dict()
    action.pop("seat")
    socket = await connect(mover, table.pk)
    try:
        frame = {"type": "act", "version": game.version, "action": action, "request_id": "s1"}
        api_move = post(
            token, f"/api/tables/{table.pk}/move", {"version": game.version, "action": action}
        )
        answers = await asyncio.gather(api_move, socket.send_json_to(frame))
        http = answers[0]
        acked = []
        for _ in range(40):
            reply = await socket.receive_json_from(timeout=30)
            if reply.get("type") in ("ack", "error") and reply.get("request_id") == "s1":
                acked.append(reply)
                break
        assert len(acked) == 1
        applied = [http.status_code == 200, acked[0]["type"] == "ack"]
        assert applied.count(True) == 1, (http.content, acked)
        if http.status_code != 200:
            assert http.status_code == 409 and http.json()["code"] == "stale"
    finally:
        await socket.disconnect()
    after = await Game.objects.aget(pk=game.pk)
    assert after.version == game.version + 1  # one move, not two
    # A move for a version long gone changes nothing.
    stale = await post(
        token, f"/api/tables/{table.pk}/move", {"version": game.version, "action": action}
    )
    assert stale.status_code == 409 and stale.json()["code"] == "stale"
    assert (await Game.objects.aget(pk=game.pk)).version == after.version


async def test_bad_moves_get_clear_errors_and_change_nothing(alice: Any, bob: Any) -> None:
    table = await sync_to_async(start_table)([alice, bob], "fives", limit=50)
    game = await Game.objects.aget(table=table, number=1)
    state = GameState.from_json(game.state)
    waiting = [alice, bob][1 - state.to_act]
    token = await sync_to_async(token_for)(waiting, "play")
    url = f"/api/tables/{table.pk}/move"
    cases = [
        ({"version": game.version, "action": {"type": "pass"}}, 409, None),
        ({"version": "x", "action": {}}, 400, "version"),
        ({"action": {}}, 400, "version"),
        ({"version": game.version, "action": {"type": "fly"}}, None, None),
    ]
    for body, status, field in cases:
        answer = await post(token, url, body)
        if status is not None:
            assert answer.status_code == status, (body, answer.content)
        else:
            assert 400 <= answer.status_code < 500
        problem = answer.json()
        assert problem["code"] and problem["message"]
        if field:
            assert problem["field"] == field
    assert (await Game.objects.aget(pk=game.pk)).version == game.version
    read_only = await sync_to_async(token_for)(waiting, "read")
    refused = await post(read_only, url, {"version": game.version, "action": {}})
    assert refused.status_code == 403 and refused.json()["code"] == "missing_scope"
    assert (
        await post(token, "/api/tables/999999/move", {"version": 1, "action": {}})
    ).status_code in (404, 409)


async def test_a_stream_resumes_from_since_and_ends_when_its_token_is_revoked(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(streams, "KEEPALIVE_SECONDS", 1.0)
    monkeypatch.setattr(streams, "TICK_SECONDS", 0.25)
    table = await sync_to_async(start_table)([alice, bob], "fives", limit=50)
    game = await Game.objects.aget(table=table, number=1)
    seq_before = (await Table.objects.aget(pk=table.pk)).seq
    state = GameState.from_json(game.state)
    action = state.legal_actions()[0].to_dict()
    action.pop("seat")
    mover = [alice, bob][state.to_act]
    await post(
        await sync_to_async(token_for)(mover, "play"),
        f"/api/tables/{table.pk}/move",
        {"version": game.version, "action": action},
    )
    from api.tokens import token_create

    row, secret = await sync_to_async(token_create)(user=alice, name="resumer", scopes=["play"])
    stream = await open_stream(secret, f"/api/tables/{table.pk}/stream?since={seq_before}")
    try:
        first = await stream.next()
        assert first["type"] == "resume" and first["seq"] == seq_before + 1
        assert [batch["seq"] for batch in first["events"]] == [seq_before + 1]
        assert_sees_only_its_own(first, 0)
        # Quiet: keepalive lines come; then the token is revoked, and the stream says so.
        await stream.keepalive()
        await sync_to_async(token_revoke)(user=alice, token_id=row.pk)
        end = await stream.next(timeout=30)
        assert end == {"type": "end", "code": "bad_token"}
    finally:
        await stream.close()


async def test_a_private_table_s_stream_is_only_for_its_players(
    alice: Any, bob: Any, make_user: Any
) -> None:
    table = await sync_to_async(start_table)([alice, bob], "fives", limit=50, private=True)
    carol = await sync_to_async(make_user)("Carol")
    token = await sync_to_async(token_for)(carol, "play")
    answer = await AsyncClient().get(
        f"/api/tables/{table.pk}/stream", headers={"Authorization": f"Bearer {token}"}
    )
    assert answer.status_code == 404 and answer.json()["code"] == "no_table"


async def test_the_event_stream_starts_from_the_state_then_carries_notices(
    alice: Any, bob: Any
) -> None:
    from social.notices import notify_user

    table = await sync_to_async(start_table)([alice, bob], "fives", limit=50)
    token = await sync_to_async(token_for)(alice, "read")
    stream = await open_stream(token, "/api/stream/events")
    try:
        first = await stream.next()
        assert first["type"] == "state"
        assert [g["table"] for g in first["playing"]] == [table.pk]
        await sync_to_async(notify_user)(alice.pk, "challenge_received", {"challenge": 5})
        await sync_to_async(notify_user)(bob.pk, "challenge_received", {"challenge": 6})
        notice = await stream.next()
        assert notice == {"type": "notice", "kind": "challenge_received", "challenge": 5}
    finally:
        await stream.close()


async def test_a_draining_server_ends_each_stream_with_reconnect(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dominoes_site import draining

    monkeypatch.setattr(streams, "TICK_SECONDS", 0.1)
    table = await sync_to_async(start_table)([alice, bob], "fives", limit=50)
    token = await sync_to_async(token_for)(alice, "play", "read")
    game_stream = await open_stream(token, f"/api/tables/{table.pk}/stream")
    events = await open_stream(token, "/api/stream/events")
    try:
        snapshot = await game_stream.next()
        await events.next()
        draining.start()
        assert await game_stream.next() == {"type": "reconnect", "since": snapshot["seq"]}
        assert await events.next() == {"type": "reconnect"}
    finally:
        draining.reset()
        await game_stream.close()
        await events.close()


async def test_open_streams_are_counted_for_operators(alice: Any, bob: Any) -> None:
    from dominoes_site import metrics

    table = await sync_to_async(start_table)([alice, bob], "fives", limit=50)
    token = await sync_to_async(token_for)(alice, "play")
    before = metrics.value("dominoes_api_streams_open", {"kind": "game"})
    stream = await open_stream(token, f"/api/tables/{table.pk}/stream")
    await stream.next()
    assert metrics.value("dominoes_api_streams_open", {"kind": "game"}) == before + 1
    await stream.close()  # the client goes
    assert metrics.value("dominoes_api_streams_open", {"kind": "game"}) == before


async def test_a_quiet_stream_keeps_one_receive_pending_across_its_ticks() -> None:
    """A stream waits for its next message a tick at a time (to see a drain, to send a
    keepalive): the layer's receive stays pending across the ticks, not cancelled and made again
    at each (which cost more than the messages, bench/api_load.py)."""
    listener = streams.GroupListener()
    await listener.open()
    calls: list[str] = []
    real = listener.layer.receive

    async def receive(channel: str) -> dict[str, Any]:
        calls.append(channel)
        return await real(channel)  # type: ignore[no-any-return]

    listener.layer = type("Counted", (), {"receive": staticmethod(receive)})()
    try:
        for _ in range(5):
            assert await listener.receive(0.01) is None
        assert calls == [listener.channel]
        await real.__self__.send(listener.channel, {"type": "table.update", "seq": 1})
        assert (await listener.receive(5)) == {"type": "table.update", "seq": 1}
        assert await listener.receive(0.01) is None
        assert len(calls) == 2
    finally:
        listener.layer = real.__self__
        await listener.close()
    assert listener.pending is None
