"""A rolling deploy as players see it: their server is drained, and the page moves to another
one with no pause, no banner and no error.

Two servers run through the house's own entry point (`python -m dominoes_site.serve`, as in
production) behind a small TCP proxy that sends each new connection to the first server that
takes it, as HAProxy does once a drained server has stopped listening. Both players' pages are
on the first server; it is sent SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tables import services
from tests.e2e.conftest import log_in
from tests.live import end_process, free_port, serve_process

STATE = "window.dominologistTable.state"

#: Records every text the connection banner shows (a pause would show one).
WATCH_BANNER = """() => {
  window.bannerTexts = [];
  const banner = document.getElementById("conn-banner");
  new MutationObserver(() => {
    const text = banner.textContent.trim();
    if (text) window.bannerTexts.push(text);
  }).observe(banner, { childList: true, subtree: true, characterData: true });
}"""


class Proxy:
    """A TCP proxy on its own thread: each connection goes to the first backend that accepts."""

    def __init__(self, backends: list[int]) -> None:
        self.backends = backends
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.ready.wait(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        server = self.loop.run_until_complete(
            asyncio.start_server(self._client, "127.0.0.1", self.port)
        )
        self.ready.set()
        self.loop.run_forever()
        server.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for port in self.backends:
            try:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                continue
        else:
            writer.close()
            return

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            with contextlib.suppress(Exception):
                sink.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def stop(self) -> None:
        async def close() -> None:  # its connections' tasks end before the loop does
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture
def two_servers(transactional_db: None, tmp_path: Path) -> Iterator[tuple[list[Any], Proxy]]:
    ports = [free_port(), free_port()]
    servers = [serve_process(p, tmp_path / f"server-{n}.log") for n, p in enumerate(ports)]
    proxy = Proxy(ports)
    try:
        yield servers, proxy
    finally:
        proxy.stop()
        for server in servers:
            end_process(server)


#: Counts the drops of the notices socket (a move is not one).
WATCH_NOTICES = """() => {
  window.noticesDropped = 0;
  document.addEventListener("dominologist:notices-closed", () => { window.noticesDropped += 1; });
}"""

#: Counts the drops of the lobby socket (a move is not one).
WATCH_LOBBY = """() => {
  let ready = window.lobbyReady;
  window.lobbyDropped = 0;
  Object.defineProperty(window, "lobbyReady", {
    get: () => ready,
    set: (value) => { if (!value) window.lobbyDropped += 1; ready = value; },
  });
}"""


def test_a_drained_server_moves_its_pages_with_no_pause(
    two_servers: tuple[list[Any], Proxy], new_page: Any, alice: Any, bob: Any, make_user: Any
) -> None:
    servers, proxy = two_servers
    url = f"http://localhost:{proxy.port}"
    table = services.table_create(host=alice, mode="citizen", players=2)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    for user in (alice, bob):
        services.seat_ready(table_id=table.pk, user=user, ready=True)
    pages = {"alice": new_page("desktop"), "bob": new_page("phone")}
    for name, user in (("alice", alice), ("bob", bob)):
        log_in(pages[name], url, user)
        pages[name].goto(f"{url}/tables/{table.pk}/")
        pages[name].wait_for_function("window.wsReady === true")
        pages[name].evaluate(WATCH_BANNER)
        pages[name].wait_for_function("window.noticesReady === true")
        pages[name].evaluate(WATCH_NOTICES)
    lobby = new_page("phone")
    log_in(lobby, url, make_user("Carol"))
    lobby.goto(f"{url}/lobby/")
    lobby.wait_for_function("window.lobbyReady === true")
    lobby.evaluate(WATCH_LOBBY)

    servers[0].terminate()  # SIGTERM: drained

    for page in pages.values():
        # Moved: a new socket answered, the old one closed by the page itself.
        page.wait_for_function(
            f"{STATE}.movedFrom !== null && {STATE}.movedFrom.readyState === 3"
            f" && {STATE}.ws !== null && {STATE}.ws.readyState === 1"
        )
        assert page.evaluate("window.wsReady") is True
    assert servers[0].wait(timeout=15) == 0

    # The new sockets (on the second server) carry the table: Bob's line reaches Alice.
    pages["bob"].evaluate(
        "() => window.dominologistTable.send({type: 'chat', text: 'moved without a pause'})"
    )
    pages["alice"].wait_for_function(
        f"{STATE}.chat.some((m) => m.text === 'moved without a pause')"
    )
    # Nothing was ever shown: no "Reconnecting", no "Catching up", no error.
    for page in pages.values():
        assert page.evaluate("window.bannerTexts") == []
        assert page.locator("#conn-banner").inner_text().strip() == ""
        # The notices socket moved too, never dropped (the drained server has no socket left).
        assert page.evaluate("window.noticesDropped") == 0
        assert page.evaluate("window.noticesReady") is True

    # So did the lobby's: a table opened now shows in its list, with no reload.
    assert lobby.evaluate("window.lobbyDropped") == 0
    opened = services.table_create(host=make_user("Dave"), mode="citizen", players=2)
    lobby.wait_for_selector(f'#lobby-list [data-table="{opened.pk}"]')


def test_a_move_that_cannot_be_made_ends_in_a_reconnect(
    two_servers: tuple[list[Any], Proxy], new_page: Any, alice: Any, bob: Any, make_user: Any
) -> None:
    """No other server takes the new sockets while the first one drains (the proxy has nowhere
    to send them): the moves fail, the drained server closes the sockets with 1012, and the
    pages reconnect the usual way, table, notices and lobby alike, once a server is there."""
    servers, proxy = two_servers
    ports = list(proxy.backends)
    proxy.backends = ports[:1]  # the second server is not behind the proxy yet
    url = f"http://localhost:{proxy.port}"
    table = services.table_create(host=alice, mode="citizen", players=2)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    for user in (alice, bob):
        services.seat_ready(table_id=table.pk, user=user, ready=True)
    page = new_page("desktop")
    log_in(page, url, alice)
    page.goto(f"{url}/tables/{table.pk}/")
    page.wait_for_function("window.wsReady === true && window.noticesReady === true")
    lobby = new_page("phone")
    log_in(lobby, url, make_user("Carol"))
    lobby.goto(f"{url}/lobby/")
    lobby.wait_for_function("window.lobbyReady === true")
    lobby.evaluate(WATCH_LOBBY)

    servers[0].terminate()  # drained, with nowhere to move to
    assert servers[0].wait(timeout=15) == 0
    page.wait_for_function("window.wsReady === false")
    proxy.backends = ports[1:]  # a server is back at the address

    page.wait_for_function("window.wsReady === true && window.noticesReady === true")
    lobby.wait_for_function("window.lobbyReady === true")
    opened = services.table_create(host=make_user("Dave"), mode="citizen", players=2)
    lobby.wait_for_selector(f'#lobby-list [data-table="{opened.pk}"]')
