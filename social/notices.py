"""Notices: a message for one player on whatever page they have open.

Every logged-in page opens one socket, `/ws/notices/` (`social.consumers.NoticeConsumer`), which
joins the group `notices.<user id>`. Server code calls `notify_user(user_id, kind, data)`: after
the transaction commits, the group gets `{"type": "notice.send", "kind": kind, "data": data}`,
and each of the player's sockets passes `{"type": "notice", "kind": kind, **data}` to its page,
where static/js/notices.js raises the DOM event `dominologist:notice`.

This module imports nothing but the channel layer, so any app may send a notice. `data` must be
JSON (str keys) and must not use the keys `type` or `kind`. Apps also register here the public
topics a page may watch on the same socket (`watch_topic_register`), and send their changes to
the topic's group as `notice_message`s.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from dominoes_site.layer import group_send_many

log = logging.getLogger(__name__)

RESERVED_KEYS = frozenset({"type", "kind"})


def notice_group(user_id: int) -> str:
    """The channel group of every notices socket of one player."""
    return f"notices.{int(user_id)}"


def notice_message(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """The channel-layer message of a notice: what `notify_user` sends to a player's group, and
    what an app sends to a public topic's group (below) for its watchers."""
    clash = RESERVED_KEYS & set(data)
    if clash:
        raise ValueError(f"a notice's data may not use the keys {sorted(clash)}")
    return {"type": "notice.send", "kind": kind, "data": dict(data)}


def notify_user(user_id: int, kind: str, data: dict[str, Any]) -> None:
    """Send `user_id` a notice of `kind` once the current transaction commits (at once when
    there is none). A notice nobody is connected to receive is lost: pages that matter (the
    challenge's table, the list of challenges) show the same facts when they load."""
    notify_users([(user_id, kind, data)])


def notify_users(notices: list[tuple[int, str, dict[str, Any]]]) -> None:
    """Several notices in one batch, after commit (one hop to the channel layer)."""
    messages = [
        (notice_group(user_id), notice_message(kind, data)) for user_id, kind, data in notices
    ]

    def send() -> None:
        try:
            group_send_many(messages)
        except Exception:  # a lost notice is shown again by the page it concerns
            log.exception("notices: could not send %d notices", len(messages))

    transaction.on_commit(send)


# --- public topics a page may watch on its notices socket ------------------------------------


@dataclass(frozen=True)
class WatchTopic:
    """A public topic (`{"type": "watch", "topic": name, "id": n}`): the channel group its
    changes are sent to, as `notice_message`s. `group` takes the id, or None for a topic that
    has none (`needs_id` False). `version`, if given, reads the topic's version now (a number
    that rises with every change sent to the group): the `watching` answer carries it, so a page
    rendered at an older version knows it missed a change made before it was watching."""

    group: Callable[[int | None], str]
    needs_id: bool
    version: Callable[[int | None], int] | None = None


#: Registered by the apps that own them, from their AppConfig.ready() (tournaments: the list
#: and one event), so that social imports nothing of theirs.
WATCH_TOPICS: dict[str, WatchTopic] = {}


def watch_topic_register(
    name: str,
    group: Callable[[int | None], str],
    *,
    needs_id: bool,
    version: Callable[[int | None], int] | None = None,
) -> None:
    WATCH_TOPICS[name] = WatchTopic(group=group, needs_id=needs_id, version=version)
