"""`/ws/notices/`: the one site-wide socket every logged-in page opens.

It joins `notices.<user id>` and passes each notice sent there (`social.notices.notify_user`)
to the page as `{"type": "notice", "kind": ..., ...data}`. Its pings mark the player online
(social/presence.py). A page may also `watch` one public topic on it, instead of a socket of
its own, among the topics apps register (`social.notices.watch_topic_register`): the tournaments
list (`{"type": "watch", "topic": "tournaments"}`) or one event (`{"type": "watch", "topic":
"tournament", "id": 5}`); their changes arrive as notices (kind `tournament_changed`). Bad input
is answered with an `error` and the socket stays open.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from django.utils.translation import gettext as _

from dominoes_site.consumers import HouseConsumer, server_time
from social import presence
from social.notices import WATCH_TOPICS, notice_group


class NoticeConsumer(HouseConsumer):
    notices: str | None = None
    #: The public topic's group this socket watches, if any (one at a time).
    watching: str | None = None
    presence_slot: int | None = None

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
        for group in (self.notices, self.watching):
            if group:
                await self.channel_layer.group_discard(group, self.channel_name)
        await super().disconnect(code)

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        if content["type"] == "ping":
            await self.mark_online()
        elif content["type"] == "watch":
            await self.watch(content)
            return
        await super().receive_json(content, **kwargs)

    async def watch(self, content: dict[str, Any]) -> None:
        name = content.get("topic")
        group: str | None = None
        if name is not None:
            topic = WATCH_TOPICS.get(name) if isinstance(name, str) else None
            if topic is None:
                await self.send_error("bad_watch", _("There is nothing by that name to watch."))
                return
            number = content.get("id")
            if topic.needs_id and (type(number) is not int or number <= 0):
                await self.send_error("bad_watch", _("Say which one to watch, by number."))
                return
            group = topic.group(number if topic.needs_id else None)
        if group != self.watching:
            if self.watching:
                await self.channel_layer.group_discard(self.watching, self.channel_name)
            if group:
                await self.channel_layer.group_add(group, self.channel_name)
            self.watching = group
        await self.send_json({"type": "watching", "topic": name, "id": content.get("id")})

    async def notice_send(self, message: dict[str, Any]) -> None:
        await self.send_json({**message["data"], "type": "notice", "kind": message["kind"]})
