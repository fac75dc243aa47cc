"""Whether this process is being drained: its server is stopping (dominoes_site/serve.py).

A drained daphne stops listening and closes every open socket with `CLOSE_RESTART` (1012,
"service restart"): the page reconnects at once, to another daphne, and resumes from its last
event. The flag is set before the first socket is told, so a consumer's `disconnect` knows its
socket was closed by the drain, whatever code the client echoed back.

Kept apart from dominoes_site/serve.py, which installs Twisted's reactor when imported: the
consumers read the flag in every process (tests, Celery) without that.
"""

from __future__ import annotations

#: The close code of a drained socket (RFC 6455 "service restart"): reconnect at once.
CLOSE_RESTART = 1012
CLOSE_RESTART_REASON = "server restarting"

_draining = False


def start() -> None:
    """This process is being drained (called once by the server, before closing sockets)."""
    global _draining
    _draining = True


def active() -> bool:
    """Whether this process is being drained: a socket closing now was closed by the drain."""
    return _draining


def reset() -> None:
    """For tests only: the process is serving again."""
    global _draining
    _draining = False
