"""The lobby hears watcher counts in batches: at most one message a second from each process, with
every public table whose count changed (docs/protocol.md, "The lobby socket"). One message per
table per change sent thousands of frames to every lobby socket when many watchers arrived at
once, and the lobby heard of a new table half a minute late."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from tables import broadcast, presence, services
from tables.models import Presence
from tests.tables.helpers import connect, connect_lobby


class Timers:
    """An event loop's `call_later`, run by hand."""

    def __init__(self) -> None:
        self.due: list[tuple[float, Any, tuple[Any, ...]]] = []

    def call_soon_threadsafe(self, fn: Any, *args: Any) -> None:
        fn(*args)

    def call_later(self, delay: float, fn: Any, *args: Any) -> object:
        self.due.append((delay, fn, args))
        return object()

    def run(self) -> None:
        due, self.due = self.due, []
        for _delay, fn, args in due:
            fn(*args)


def watch(table_id: int, users: list[Any]) -> None:
    """Each of `users` opens a socket at the table, watching."""
    for user in users:
        Presence.objects.create(
            table_id=table_id,
            user=user,
            channel_name=f"c-{table_id}-{user.pk}",
            seen_at=timezone.now(),
        )


@pytest.fixture
def crowd(make_user: Any) -> list[Any]:
    return [make_user(f"Watcher{i}") for i in range(4)]


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Any]]:
    """What the counts send: to the tables' own groups, and to the lobby from a loop."""
    out: dict[str, list[Any]] = {"groups": [], "on_loop": []}
    monkeypatch.setattr(presence, "group_send_many", lambda m: out["groups"].extend(m))
    monkeypatch.setattr(presence, "group_send_many_on", lambda loop, m: out["on_loop"].extend(m))
    return out


@pytest.mark.django_db
def test_a_daphne_sends_the_lobby_every_changed_count_in_one_message(
    monkeypatch: pytest.MonkeyPatch, sent: dict[str, list[Any]], alice: Any, crowd: list[Any]
) -> None:
    timers = Timers()
    monkeypatch.setattr(presence, "outer_loop", lambda: timers)
    public = [services.table_create(host=alice, mode="citizen", players=2) for _ in range(3)]
    private = services.table_create(host=alice, mode="citizen", players=2, private=True)
    for n, table in enumerate([*public, private], start=1):
        watch(table.pk, crowd[:n])
        presence._send_watchers(table.pk)
    # Each table's own sockets hear their count at once; the lobby nothing yet, one timer.
    to_tables = {g: m["watchers"] for g, m in sent["groups"]}
    for n, table in enumerate([*public, private], start=1):
        assert to_tables[broadcast.public_group(table.pk)] == n
    assert all(g != broadcast.LOBBY_GROUP for g, _ in sent["groups"])
    assert sent["on_loop"] == [] and len(timers.due) == 1
    assert timers.due[0][0] == presence.LOBBY_WATCHERS_EVERY_SECONDS

    # A count that changes again before the timer: the latest is sent, still in one message.
    watch(public[0].pk, crowd[3:])
    presence._send_watchers(public[0].pk)
    assert len(timers.due) == 1
    timers.run()
    assert sent["on_loop"] == [
        (
            broadcast.LOBBY_GROUP,
            {
                "type": "lobby.watchers",
                "tables": {str(public[0].pk): 2, str(public[1].pk): 2, str(public[2].pk): 3},
            },
        )
    ]
    # The next change starts the next second's batch.
    Presence.objects.filter(table_id=public[1].pk).delete()
    presence._send_watchers(public[1].pk)
    assert len(timers.due) == 1
    timers.run()
    assert sent["on_loop"][-1][1]["tables"] == {str(public[1].pk): 0}


@pytest.mark.django_db
def test_outside_a_daphne_the_count_goes_to_the_lobby_at_once(
    monkeypatch: pytest.MonkeyPatch, sent: dict[str, list[Any]], alice: Any, crowd: list[Any]
) -> None:
    monkeypatch.setattr(presence, "outer_loop", lambda: None)
    table = services.table_create(host=alice, mode="citizen", players=2)
    watch(table.pk, crowd[:2])
    presence._send_watchers(table.pk)
    lobby = [m for g, m in sent["groups"] if g == broadcast.LOBBY_GROUP]
    assert lobby == [{"type": "lobby.watchers", "tables": {str(table.pk): 2}}]
    assert sent["on_loop"] == []


@pytest.mark.django_db(transaction=True)
async def test_the_lobby_socket_hears_the_counts_of_public_tables(
    alice: Any, bob: Any, make_user: Any
) -> None:
    carol = await sync_to_async(make_user)("Carol")
    lobby = await connect_lobby(bob)
    create = sync_to_async(services.table_create)
    public = [await create(host=alice, mode="citizen", players=2) for _ in range(2)]
    private = await create(host=alice, mode="citizen", players=2, private=True)
    watchers = [await connect(carol, t.pk) for t in public]
    watchers.append(await connect(carol, private.pk, f"?code={private.invite_code}"))
    counts: dict[str, int] = {}
    while any(counts.get(str(t.pk)) != 1 for t in public):
        message = await lobby.receive_json_from(timeout=10)
        if message["type"] == "watchers":
            assert set(message) == {"type", "tables"}
            counts.update(message["tables"])
    assert str(private.pk) not in counts
    for socket in watchers:
        await socket.disconnect()
    await lobby.disconnect()
