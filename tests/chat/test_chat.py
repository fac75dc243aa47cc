"""Table chat: who hears whom, limits, plain text, reports and staff time-outs."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from chat import services as chat
from chat.models import ChatMessage, ChatReport, ChatTimeout
from tables import services
from tables.models import Table
from tests.concurrency import at_once
from tests.tables.helpers import connect


def started(alice: Any, bob: Any) -> Table:
    table = services.table_create(host=alice, mode="citizen", players=2)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    services.seat_ready(table_id=table.pk, user=alice, ready=True)
    services.seat_ready(table_id=table.pk, user=bob, ready=True)
    return table


async def next_of(socket: Any, kind: str, timeout: float = 20) -> dict[str, Any] | None:
    """The next message of this type, or None when none comes in time."""
    try:
        while True:
            message = await socket.receive_json_from(timeout=timeout)
            if message["type"] == kind:
                return message
    except (TimeoutError, AssertionError):
        return None


@pytest.mark.django_db(transaction=True)
async def test_players_chat_reaches_everyone_and_spectators_chat_never_reaches_players(
    alice: Any, bob: Any, make_user: Any
) -> None:
    table = await sync_to_async(started)(alice, bob)
    watcher = await sync_to_async(make_user)("Watcher")
    a, b, w = [await connect(u, table.pk) for u in (alice, bob, watcher)]
    for socket in (a, b, w):  # a socket is sent nothing of the table before its hello's answer
        await socket.send_json_to({"type": "hello", "last_seq": None})
        assert await next_of(socket, "snapshot") is not None
    await a.send_json_to({"type": "chat", "text": "  good   luck\n all <b>!</b> "})
    for socket in (a, b, w):
        message = await next_of(socket, "chat")
        assert message is not None
        shown = message["message"]
        assert shown["audience"] == "players" and shown["user"]["name"] == alice.display_name
        assert shown["text"] == "good luck all <b>!</b>"  # plain text, as typed
    await w.send_json_to({"type": "chat", "text": "Alice holds the 6-6", "to": bob.pk})
    message = await next_of(w, "chat")
    assert message is not None and message["message"]["audience"] == "spectators"
    for player in (a, b):
        while not await player.receive_nothing(timeout=1):
            assert (await player.receive_json_from())["type"] != "chat"
    # On (re)connecting, players get the players' chat only; spectators both.
    await b.send_json_to({"type": "hello", "last_seq": None})
    snapshot = await next_of(b, "snapshot")
    assert snapshot is not None and [m["audience"] for m in snapshot["chat"]] == ["players"]
    await w.send_json_to({"type": "hello", "last_seq": None})
    snapshot = await next_of(w, "snapshot")
    assert snapshot is not None
    assert [m["audience"] for m in snapshot["chat"]] == ["players", "spectators"]
    for socket in (a, b, w):
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_bad_chat_gets_an_error_and_posts_nothing(alice: Any, bob: Any) -> None:
    table = await sync_to_async(started)(alice, bob)
    socket = await connect(alice, table.pk)
    for bad, code in [
        ({"type": "chat", "text": ""}, "bad_field"),
        ({"type": "chat", "text": "   \u0000 \u0007 "}, "bad_field"),
        ({"type": "chat", "text": 5}, "bad_field"),
        ({"type": "chat", "text": "x" * 201}, "too_long"),
        ({"type": "chat", "quick": "insult"}, "bad_field"),
        ({"type": "chat", "emote": "<img>"}, "bad_field"),
    ]:
        await socket.send_json_to(bad)
        reply = await next_of(socket, "error")
        assert reply is not None and reply["code"] == code, (bad, reply)
    assert await ChatMessage.objects.acount() == 0
    await socket.disconnect()


@pytest.mark.django_db
def test_quick_phrases_emotes_and_the_rate_limit(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = started(alice, bob)
    # The server's clock stops: every message below falls in one rate window, however long the
    # machine takes to send them.
    now = timezone.now()
    monkeypatch.setattr(timezone, "now", lambda: now)
    assert chat.chat_send(table_id=table.pk, user=alice, content={"quick": "gg"})["kind"] == "quick"
    assert chat.chat_send(table_id=table.pk, user=alice, content={"emote": "👏"})["text"] == "👏"
    for n in range(chat.RATE_COUNT - 2):
        chat.chat_send(table_id=table.pk, user=alice, content={"text": f"hi {n}"})
    with pytest.raises(chat.ChatError) as refused:
        chat.chat_send(table_id=table.pk, user=alice, content={"text": "one too many"})
    assert refused.value.code == "chat_rate"
    # Others are not slowed by Alice; and the window passes.
    chat.chat_send(table_id=table.pk, user=bob, content={"text": "hello"})
    ChatMessage.objects.filter(user=alice).update(
        created_at=now - chat.RATE_WINDOW - timedelta(seconds=1)
    )
    chat.chat_send(table_id=table.pk, user=alice, content={"text": "again"})


@pytest.mark.django_db
def test_staff_time_outs_at_one_table_or_everywhere(
    alice: Any, bob: Any, warden: Any, client: Any
) -> None:
    table = started(alice, bob)
    other = services.table_create(host=bob, mode="citizen", players=2)
    client.force_login(warden)
    before = timezone.now()
    page = client.post(
        "/admin/chat/chattimeout/add/",
        {"user": alice.pk, "table": table.pk, "minutes": 30, "reason": "Rude to the table"},
    )
    after = timezone.now()
    assert page.status_code == 302, page.content.decode()[:2000]
    timeout = ChatTimeout.objects.get()
    assert timeout.by == warden and timeout.table == table
    thirty = timedelta(minutes=30)
    assert before + thirty <= timeout.until <= after + thirty
    with pytest.raises(chat.ChatError) as refused:
        chat.chat_send(table_id=table.pk, user=alice, content={"text": "hey"})
    assert refused.value.code == "chat_timeout" and "Rude to the table" in refused.value.message
    chat.chat_send(table_id=other.pk, user=alice, content={"text": "still fine here"})
    # A site-wide time-out needs a reason, and then covers every table.
    page = client.post(
        "/admin/chat/chattimeout/add/", {"user": alice.pk, "minutes": 5, "reason": ""}
    )
    assert page.status_code == 200 and ChatTimeout.objects.count() == 1
    client.post("/admin/chat/chattimeout/add/", {"user": alice.pk, "minutes": 5, "reason": "Spam"})
    with pytest.raises(chat.ChatError):
        chat.chat_send(table_id=other.pk, user=alice, content={"text": "nope"})


@pytest.mark.django_db(transaction=True)
async def test_a_report_keeps_the_messages_for_staff(alice: Any, bob: Any) -> None:
    table = await sync_to_async(started)(alice, bob)
    for text in ("you are slow", "really slow"):
        await sync_to_async(chat.chat_send)(table_id=table.pk, user=bob, content={"text": text})
    socket = await connect(alice, table.pk)
    await socket.send_json_to({"type": "report", "user": bob.pk, "reason": "rude"})
    assert await next_of(socket, "reported") is not None
    report = await ChatReport.objects.aget()
    assert report.reporter_id == alice.pk and report.reported_id == bob.pk
    assert [m["text"] for m in report.messages] == ["you are slow", "really slow"]
    # Deleting the chat later does not lose what was reported.
    await ChatMessage.objects.all().adelete()
    await report.arefresh_from_db()
    assert len(report.messages) == 2
    for bad in ({"type": "report", "user": alice.pk}, {"type": "report", "user": "bob"}):
        await socket.send_json_to(bad)
        assert (await next_of(socket, "error")) is not None
    await socket.disconnect()


@pytest.mark.django_db
def test_a_repeated_report_is_merged_into_the_open_one(alice: Any, bob: Any) -> None:
    table = started(alice, bob)
    chat.chat_send(table_id=table.pk, user=bob, content={"text": "you are slow"})
    first = chat.chat_report(table_id=table.pk, reporter=alice, reported_id=bob.pk, reason="")
    chat.chat_send(table_id=table.pk, user=bob, content={"text": "really slow"})
    for _ in range(3):
        again = chat.chat_report(
            table_id=table.pk, reporter=alice, reported_id=bob.pk, reason="rude"
        )
        assert again.pk == first.pk
    report = ChatReport.objects.get()
    assert [m["text"] for m in report.messages] == ["you are slow", "really slow"]
    assert report.reason == "rude"
    # once staff handled it, a new report is a new one
    ChatReport.objects.update(handled=True)
    chat.chat_report(table_id=table.pk, reporter=alice, reported_id=bob.pk, reason="")
    assert ChatReport.objects.count() == 2


@pytest.mark.django_db
def test_reports_are_rate_limited(alice: Any, bob: Any, make_user: Any) -> None:
    table = started(alice, bob)
    chat.chat_send(table_id=table.pk, user=bob, content={"text": "hello"})
    for _ in range(chat.REPORTS_PER_MINUTE):
        chat.chat_report(table_id=table.pk, reporter=alice, reported_id=bob.pk, reason=None)
    with pytest.raises(chat.ChatError) as refused:
        chat.chat_report(table_id=table.pk, reporter=alice, reported_id=bob.pk, reason=None)
    assert refused.value.code == "report_rate"
    assert "wait a minute" in refused.value.message
    assert ChatReport.objects.count() == 1
    # someone else may still report
    chat.chat_send(table_id=table.pk, user=alice, content={"text": "hi"})
    chat.chat_report(table_id=table.pk, reporter=bob, reported_id=alice.pk, reason=None)
    assert ChatReport.objects.count() == 2


@pytest.mark.django_db(transaction=True)
async def test_repeated_reports_sent_at_once_over_the_socket_are_stored_once(
    alice: Any, bob: Any
) -> None:
    table = await sync_to_async(started)(alice, bob)
    await sync_to_async(chat.chat_send)(table_id=table.pk, user=bob, content={"text": "slow"})
    socket = await connect(alice, table.pk)
    for n in range(3):
        await socket.send_json_to({"type": "report", "user": bob.pk, "request_id": f"r{n}"})
    for n in range(3):
        answer = await next_of(socket, "reported")
        assert answer is not None and answer["request_id"] == f"r{n}"
    assert await ChatReport.objects.acount() == 1
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
def test_reports_sent_at_once_are_stored_once(alice: Any, bob: Any) -> None:
    table = started(alice, bob)
    chat.chat_send(table_id=table.pk, user=bob, content={"text": "slow"})
    results = at_once(
        *[
            lambda: chat.chat_report(
                table_id=table.pk, reporter=alice, reported_id=bob.pk, reason=None
            )
            for _ in range(4)
        ]
    )
    assert all(isinstance(r, ChatReport) for r in results), results
    assert ChatReport.objects.count() == 1


@pytest.mark.django_db
def test_reopening_a_report_merges_the_open_one_into_it(alice: Any, bob: Any, warden: Any) -> None:
    table = started(alice, bob)
    chat.chat_send(table_id=table.pk, user=bob, content={"text": "one"})
    old = chat.chat_report(table_id=table.pk, reporter=alice, reported_id=bob.pk, reason="rude")
    chat.reports_handled(report_ids=[old.pk], by=warden)
    chat.chat_send(table_id=table.pk, user=bob, content={"text": "two"})
    chat.chat_report(table_id=table.pk, reporter=alice, reported_id=bob.pk, reason=None)
    assert chat.report_reopen(report_id=old.pk, by=warden) == 1
    report = ChatReport.objects.get()
    assert report.pk == old.pk and not report.handled
    assert [m["text"] for m in report.messages] == ["one", "two"]
