"""`python -m dominoes_site.serve <daphne's arguments>`: daphne, drained when it is stopped.

Takes exactly daphne's command line (`-b`/`-p`, `-u`, `--proxy-headers`, ...). On SIGTERM or
SIGINT the server is drained instead of dropped:

1. it stops listening (a Unix socket's file goes with it), so the proxy sends new connections
   and requests to the other daphnes;
2. every open WebSocket is told to move: a `{"type": "reconnect"}` message, upon which the page
   opens a new socket (through the proxy, to another daphne), says hello on it, and closes
   this one once the new one is answered. Until then this socket goes on carrying the table's
   updates and the player's moves, so the player sees no pause at all. A socket still open
   `MOVE_SECONDS` after it was told (a client that does not move, or a new socket that could
   not be made) gets a close frame with code 1012 ("service restart"): the page reconnects at
   once and resumes from its last event. A socket whose handshake is still under way is told
   as soon as it opens. The sockets are told a few at a time, a table's sockets together,
   `TELL_PER_SECOND` a second (at most `SPREAD_SECONDS` in all): the daphnes that take them
   over answer a steady stream of handshakes, not a crowd at once (a daphne's 150 sockets
   closed at once kept players waiting up to 12.6 s on a 2-core bench);
3. it waits until every socket has closed and every application instance has finished (the
   consumers' `disconnect`: presence, group discards) and every HTTP request in flight has
   been answered; a socket that has not answered its close within `CLOSE_WAIT_SECONDS` is
   dropped, and whatever is still running after `DRAIN_SECONDS` is cancelled by daphne;
4. it stops the reactor and exits: normally within a second, always well within 10 s.

A second signal during a drain stops the server at once.

With `DAPHNE_REUSE_PORT=1` a TCP address is listened on with SO_REUSEPORT, so a new daphne
can start on the address of the one it replaces before that one is drained: once the
old one stops listening, the kernel gives every new connection to the new one, and a drained
socket that moves comes back to the same address, to a table's own daphne as the proxy routes
it (docs/deploy.md, "A rolling deploy"). A Unix socket's path cannot be shared: there the
drained sockets go to the other daphnes.

daphne's own handling of SIGTERM is Twisted's: stop the reactor, cancel every application
instance (no consumer's `disconnect` runs, so presence is left to the sweep) and drop every
connection, which the page sees as 1006 and meets with its back-off.
"""

from __future__ import annotations

# daphne.server installs the asyncio reactor: it comes before anything imports Twisted's reactor.
from daphne.server import Server  # isort:skip

import json
import logging
import os
import re
import signal
import socket
import sys
import time
from typing import Any

import daphne.server as daphne_server
from daphne.cli import CommandLineInterface
from daphne.ws_protocol import WebSocketProtocol
from twisted.internet import defer, endpoints, reactor

from dominoes_site import draining

logger = logging.getLogger(__name__)

#: How many sockets a second are told to reconnect elsewhere (env DRAIN_TELL_PER_SECOND) ...
TELL_PER_SECOND = float(os.environ.get("DRAIN_TELL_PER_SECOND") or 25.0)
#: ... but all of them within this long, however many there are.
SPREAD_SECONDS = 5.0
#: How long a socket told to move has to do so before it is closed with 1012 (a move took
#: 2.5 s at most in the fleet bench's rolling deploy, with 0.8 s its median).
MOVE_SECONDS = 4.0
#: How long a socket has to answer its close frame before it is dropped.
CLOSE_WAIT_SECONDS = 1.5
#: The longest a drain waits for sockets, consumers and requests before the reactor stops
#: (the spread, a move, a close's wait and a margin: within the 10 s a deploy allows).
DRAIN_SECONDS = 9.5
#: What a socket told to move receives (docs/protocol.md, "Restarts").
MOVE_MESSAGE = json.dumps({"type": "reconnect", "reason": draining.CLOSE_RESTART_REASON}).encode()
#: How often the drain looks again.
STEP_SECONDS = 0.05
#: How many connections may wait to be accepted (env DAPHNE_BACKLOG; Twisted's default is 50).
#: When a server or a machine is lost, its sockets come back to the others all at once: past
#: the backlog the kernel drops their SYNs, each retried a second later and then three, the
#: proxy's connect times out, and it takes a live daphne for a dead one.
BACKLOG = int(os.environ.get("DAPHNE_BACKLOG") or 1024)


#: Whether a TCP address is listened on with SO_REUSEPORT (env DAPHNE_REUSE_PORT=1; off by
#: default, so that a second server started by mistake on a port in use fails as usual): a new
#: daphne can then be started on the address of the one it replaces, before that one is
#: drained, so that the drained sockets move to the new daphne on the same address and the
#: proxy's routing (a table's sockets on one daphne) stays as it was.
REUSE_PORT = os.environ.get("DAPHNE_REUSE_PORT", "0") in ("1", "true", "yes")

_TCP = re.compile(r"^tcp:port=(?P<port>\d+):interface=(?P<host>(?:\\:|[^:])+)(?P<rest>(?::.*)?)$")


def reusable(endpoint: str, backlog: int = BACKLOG) -> tuple[str, socket.socket | None]:
    """A TCP endpoint description as a listening socket made here with SO_REUSEPORT (and the
    backlog), described as `adopted:` (`server_from_string`); anything else as it was, with
    no socket.
    Twisted closes the socket's descriptor when it adopts it (keeping a copy of its own), so once
    the server listens the socket object must be detached, never closed: by then its number may
    belong to another file, a player's connection say."""
    found = _TCP.match(endpoint)
    if not found or not hasattr(socket, "SO_REUSEPORT"):
        return endpoint, None
    host = found["host"].replace("\\:", ":")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        listener.bind((host, int(found["port"])))
        listener.listen(backlog)
        listener.setblocking(False)
    except OSError:
        listener.close()
        raise
    domain = "INET6" if family == socket.AF_INET6 else "INET"
    return f"adopted:fileno={listener.fileno()}:domain={domain}", listener


_ADOPTED = re.compile(r"^adopted:fileno=(?P<fileno>\d+):domain=(?P<domain>INET6?)$")


def server_from_string(reactor: Any, description: str) -> Any:
    """Twisted's `serverFromString`, and `adopted:fileno=N:domain=INET` (a listening socket made
    here, `reusable`) as an adopted stream port (Twisted has no such string of its own)."""
    found = _ADOPTED.match(description)
    if found is None:
        return endpoints.serverFromString(reactor, description)
    family = getattr(socket, "AF_" + found["domain"])
    return endpoints.AdoptedStreamServerEndpoint(reactor, int(found["fileno"]), family)


daphne_server.serverFromString = server_from_string  # what daphne's run() listens with


def with_backlog(endpoint: str, backlog: int = BACKLOG) -> str:
    """A Twisted endpoint description with a listen backlog (TCP and Unix sockets), unless it
    names one itself."""
    kind = endpoint.split(":", 1)[0]
    if kind not in ("tcp", "tcp6", "unix") or ":backlog=" in endpoint:
        return endpoint
    return f"{endpoint}:backlog={backlog}"


class DrainingServer(Server):  # type: ignore[misc]
    """daphne's server, drained on SIGTERM/SIGINT instead of stopped at once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.adopted: list[socket.socket] = []  # listening sockets made here, until adopted
        endpoints = []
        for endpoint in self.endpoints:
            if REUSE_PORT:
                endpoint, listener = reusable(endpoint)
                if listener is not None:
                    self.adopted.append(listener)
            endpoints.append(with_backlog(endpoint))
        self.endpoints = endpoints
        self.ports: list[Any] = []
        self.draining_since: float | None = None
        self.told: dict[WebSocketProtocol, float] = {}  # when each was told to move
        self.closed: set[WebSocketProtocol] = set()  # those then sent a close frame (1012)
        self.to_tell: list[WebSocketProtocol] = []  # in the order they are told
        self.planned: set[WebSocketProtocol] = set()  # the same, to look up in each step
        self.spread = 0.0

    def run(self) -> None:
        # Our handlers instead of Twisted's (which stop the reactor at once).
        install = self.signal_handlers
        self.signal_handlers = False
        if install:
            for signum in (signal.SIGTERM, signal.SIGINT):
                signal.signal(signum, self._on_signal)
        reactor.callWhenRunning(self._release_adopted)  # every endpoint is listening by then
        super().run()

    def _on_signal(self, signum: int, frame: Any) -> None:
        # In the main thread, between two bytecodes: hand the drain to the reactor.
        reactor.callFromThread(self.drain, signal.Signals(signum).name)

    def listen_success(self, port: Any) -> None:
        super().listen_success(port)
        self.ports.append(port)

    def _release_adopted(self) -> None:
        # Twisted listens on a copy of an adopted socket and has closed the original's
        # descriptor: the socket objects let go of their numbers without closing them (a close
        # would end whatever file has the number now: a connection, or the copy itself).
        while self.adopted:
            self.adopted.pop().detach()

    def drain(self, why: str = "drain") -> None:
        if self.draining_since is not None:
            logger.warning("%s during the drain: stopping at once", why)
            self.stop()
            return
        self.draining_since = time.monotonic()
        draining.start()
        # A table's sockets (same path) side by side: its players come back together.
        self.to_tell = sorted(
            (p for p in self.connections if isinstance(p, WebSocketProtocol)),
            key=lambda p: getattr(p, "path", b""),
        )
        self.planned = set(self.to_tell)
        self.spread = min(SPREAD_SECONDS, len(self.to_tell) / TELL_PER_SECOND)
        logger.info(
            "%s: draining (%d sockets open, told over %.1f s)", why, len(self.to_tell), self.spread
        )
        # Nobody is told to move before this server's listening sockets are closed (Twisted
        # closes them on its next turn): a socket that moved at once could otherwise land in
        # a closing socket's queue and be reset, rather than go to the new server.
        stopped = [defer.maybeDeferred(port.stopListening) for port in self.ports]
        self.ports.clear()
        defer.DeferredList(stopped, consumeErrors=True).addCallback(lambda _: self._drain_step())

    def _tell(self, protocol: WebSocketProtocol) -> None:
        self.told[protocol] = time.monotonic()
        protocol.sendMessage(MOVE_MESSAGE, isBinary=False)

    def _close(self, protocol: WebSocketProtocol) -> None:
        self.closed.add(protocol)
        self.told[protocol] = time.monotonic()
        protocol.sendCloseFrame(
            code=draining.CLOSE_RESTART, reasonUtf8=draining.CLOSE_RESTART_REASON.encode()
        )

    def _drain_step(self) -> None:
        assert self.draining_since is not None
        now = time.monotonic()
        elapsed = now - self.draining_since
        # the share of the sockets open at the start that is due by now
        share = 1.0 if elapsed >= self.spread else elapsed / self.spread
        due = max(1, round(share * len(self.to_tell))) if self.to_tell else 0
        for protocol in self.to_tell[:due]:
            if protocol not in self.told and protocol.state == protocol.STATE_OPEN:
                self._tell(protocol)
        busy = 0
        for protocol, details in list(self.connections.items()):
            instance = details.get("application_instance")
            if "disconnected" in details and (instance is None or instance.done()):
                continue
            busy += 1
            if not isinstance(protocol, WebSocketProtocol) or "disconnected" in details:
                continue  # an HTTP request being answered, or a consumer finishing
            if protocol.state == protocol.STATE_OPEN and protocol not in self.told:
                if protocol not in self.planned:  # its handshake ended during the drain
                    self._tell(protocol)
            elif (
                protocol.state == protocol.STATE_OPEN
                and protocol not in self.closed
                and (now - self.told[protocol] >= MOVE_SECONDS or elapsed >= self._last_call())
            ):
                self._close(protocol)  # it did not move: told the old way
            elif (
                protocol.state == protocol.STATE_CLOSING
                and now - self.told.get(protocol, self.draining_since) >= CLOSE_WAIT_SECONDS
            ):
                protocol.dropConnection(abort=True)  # its consumer still hears of it
        if busy and elapsed < DRAIN_SECONDS:
            reactor.callLater(STEP_SECONDS, self._drain_step)
            return
        if busy:
            logger.warning("Drained with %d connections still busy: stopping anyway", busy)
        else:
            logger.info("Drained in %.2f s", elapsed)
        self.stop()

    @staticmethod
    def _last_call() -> float:
        """When every socket still open is closed, moved or not: in time for its close."""
        return DRAIN_SECONDS - CLOSE_WAIT_SECONDS


class DrainingCommandLine(CommandLineInterface):  # type: ignore[misc]
    server_class = DrainingServer


def main(argv: list[str] | None = None) -> int:
    DrainingCommandLine().run(sys.argv[1:] if argv is None else argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
