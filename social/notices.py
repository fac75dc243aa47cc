"""Notices: a message for one player on whatever page they have open.

Every logged-in page opens one socket, `/ws/notices/` (`social.consumers.NoticeConsumer`), which
joins the group `notices.<user id>`. Server code calls `notify_user(user_id, kind, data)`: after
the transaction commits, the group gets `{"type": "notice.send", "kind": kind, "data": data}`,
and each of the player's sockets passes `{"type": "notice", "kind": kind, **data}` to its page,
where static/js/notices.js raises the DOM event `dominologist:notice`.

This module imports nothing but the channel layer, so any app may send a notice. `data` must be
JSON (str keys) and must not use the keys `type` or `kind`.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from dominoes_site.layer import group_send_many

log = logging.getLogger(__name__)

RESERVED_KEYS = frozenset({"type", "kind"})


def notice_group(user_id: int) -> str:
    """The channel group of every notices socket of one player."""
    return f"notices.{int(user_id)}"


def notify_user(user_id: int, kind: str, data: dict[str, Any]) -> None:
    """Send `user_id` a notice of `kind` once the current transaction commits (at once when
    there is none). A notice nobody is connected to receive is lost: pages that matter (the
    challenge's table, the list of challenges) show the same facts when they load."""
    notify_users([(user_id, kind, data)])


def notify_users(notices: list[tuple[int, str, dict[str, Any]]]) -> None:
    """Several notices in one batch, after commit (one hop to the channel layer)."""
    messages = []
    for user_id, kind, data in notices:
        clash = RESERVED_KEYS & set(data)
        if clash:
            raise ValueError(f"a notice's data may not use the keys {sorted(clash)}")
        messages.append(
            (notice_group(user_id), {"type": "notice.send", "kind": kind, "data": dict(data)})
        )

    def send() -> None:
        try:
            group_send_many(messages)
        except Exception:  # a lost notice is shown again by the page it concerns
            log.exception("notices: could not send %d notices", len(messages))

    transaction.on_commit(send)
