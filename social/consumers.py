"""`/ws/notices/`: the one site-wide socket every logged-in page opens.

It joins `notices.<user id>` and passes each notice sent there (`social.notices.notify_user`)
to the page as `{"type": "notice", "kind": ..., ...data}`. Its pings mark the player online
(social/presence.py). A page may also `watch` one public topic on it, instead of a socket of
its own, among the topics apps register (`social.notices.watch_topic_register`): the tournaments
list (`{"type": "watch", "topic": "tournaments"}`) or one event (`{"type": "watch", "topic":
"tournament", "id": 5}`); their changes arrive as notices (kind `tournament_changed`). Bad input
is answered with an `error` and the socket stays open.

It is under the table socket's rate limit (`RateLimitedConsumer`: `rate_limited`, 4008), and one
account may have at most MAX_SOCKETS of them open: each open one holds a *place* in the cache
(taken with `cache.add`, so sockets opened at once cannot pass the cap; refreshed by its pings,
expiring PLACE_SECONDS after the last, given back when it closes). One more is accepted and
closed at once with CLOSE_TOO_MANY (4009).
"""

from __future__ import annotations

from contextlib import suppress
from typing import Any

from asgiref.sync import sync_to_async
from django.core.cache import cache
from django.utils.translation import gettext as _

from dominoes_site import db_hop
from dominoes_site.consumers import MAX_WHOLE, RateLimitedConsumer, is_whole, server_time
from social import presence
from social.notices import WATCH_TOPICS, WatchTopic, notice_group

#: Open notices sockets one account may have (a page each: tabs, devices).
MAX_SOCKETS = 10
#: A socket's place lasts this long after its last ping (the page pings every 25 s), so the
#: places of a server that died free themselves.
PLACE_SECONDS = 90
CLOSE_TOO_MANY = 4009


def _place_keys(user_id: int) -> list[str]:
    return [f"notices:{user_id}:place:{n}" for n in range(MAX_SOCKETS)]


def _place_take(user_id: int, channel: str) -> str | None:
    """A free place for this socket (its key), or None when every place is held."""
    for key in _place_keys(user_id):
        if cache.add(key, channel, timeout=PLACE_SECONDS):
            return key
    return None


def _place_keep(key: str, channel: str) -> bool:
    """Refresh this socket's place; False when it was lost (expired and taken by another)."""
    if cache.get(key) == channel:
        return bool(cache.touch(key, PLACE_SECONDS))
    return bool(cache.add(key, channel, timeout=PLACE_SECONDS))


def _place_give_back(key: str, channel: str) -> None:
    if cache.get(key) == channel:
        cache.delete(key)


_cached = sync_to_async  # cache calls are network round trips on Redis: off the event loop


class NoticeConsumer(RateLimitedConsumer):
    kind = "notices"
    notices: str | None = None
    #: The public topic's group this socket watches, if any (one at a time).
    watching: str | None = None
    presence_slot: int | None = None
    #: This socket's place among the account's MAX_SOCKETS.
    place: str | None = None

    async def before_accept(self) -> int | None:
        user_id = self.scope["user"].pk
        self.place = await _cached(_place_take, thread_sensitive=False)(user_id, self.channel_name)
        return None if self.place else CLOSE_TOO_MANY

    async def on_accepted(self) -> None:
        self.notices = notice_group(self.scope["user"].pk)
        await self.channel_layer.group_add(self.notices, self.channel_name)
        await self.mark_online()
        await self.send_json({"type": "hello", "server_time": server_time()})

    async def mark_online(self) -> None:
        """At most one cache read and write a presence slot per socket (the pings come every
        25 s), off the event loop (a Redis round trip) and off the database thread."""
        if self.presence_slot != presence.current_slot():
            mark = sync_to_async(presence.mark_online, thread_sensitive=False)
            self.presence_slot = await mark(self.scope["user"].pk)

    async def disconnect(self, code: int) -> None:
        if self.place:
            await _cached(_place_give_back, thread_sensitive=False)(self.place, self.channel_name)
            self.place = None
        for group in (self.notices, self.watching):
            if group:
                await self.channel_layer.group_discard(group, self.channel_name)
        await super().disconnect(code)

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        if content["type"] == "ping":
            await self.mark_online()
            if self.place:
                await _cached(_place_keep, thread_sensitive=False)(self.place, self.channel_name)
        elif content["type"] == "watch":
            await self.watch(content)
            return
        await super().receive_json(content, **kwargs)

    async def watch(self, content: dict[str, Any]) -> None:
        name = content.get("topic")
        group: str | None = None
        topic: WatchTopic | None = None
        if name is not None:
            topic = WATCH_TOPICS.get(name) if isinstance(name, str) else None
            if topic is None:
                await self.send_error("bad_watch", _("There is nothing by that name to watch."))
                return
            number = content.get("id")
            if topic.needs_id and not is_whole(number):
                await self.send_error(
                    "bad_field",
                    _("%(field)s must be a whole number from 0 to %(max)d.")
                    % {"field": "id", "max": MAX_WHOLE},
                    field="id",
                )
                return
            if topic.needs_id and number == 0:
                await self.send_error("bad_watch", _("Say which one to watch, by number."))
                return
            group = topic.group(number if topic.needs_id else None)
        if group != self.watching:
            if self.watching:
                await self.channel_layer.group_discard(self.watching, self.channel_name)
            if group:
                await self.channel_layer.group_add(group, self.channel_name)
            self.watching = group
        answer: dict[str, Any] = {"type": "watching", "topic": name, "id": content.get("id")}
        if topic is not None and topic.version is not None:
            # Read after joining the group: a change after this read arrives as a notice.
            # Unread (the database out of reach), the page fetches what it shows to be sure.
            with suppress(db_hop.DatabaseUnavailable):
                answer["version"] = await db_hop.run(
                    topic.version, content.get("id") if topic.needs_id else None
                )
        await self.send_json(answer)

    async def layer_resync(self, message: dict[str, Any]) -> None:
        """Notices and the watched topic's changes may have been lost: the page fetches again
        what it shows (notices.js raises `dominologist:notices-open` again)."""
        await super().layer_resync(message)
        await self.send_json({"type": "resync"})

    async def notice_send(self, message: dict[str, Any]) -> None:
        await self.send_json({**message["data"], "type": "notice", "kind": message["kind"]})
