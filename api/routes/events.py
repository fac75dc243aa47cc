"""The account's event stream (NDJSON): what a bot or an app needs to know without polling.

The first line is the state now (`state`: the games you are seated in and the challenges open
to you or from you), so a client that (re)connects starts from the truth; then every notice the
site's pages get on their notices socket (`notice`: a challenge received or answered, a Play now
match, a table ready, a tournament about to start, ...: docs/protocol.md, "Notices"), and a
`state` line again whenever notices may have been lost (the server's Redis restarted)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from django.http import HttpRequest, StreamingHttpResponse
from django.utils.translation import gettext_noop
from ninja import Router

from api.access import caller, needs_async
from api.routes.tables import REFUSALS
from api.streams import (
    GroupListener,
    line,
    ndjson_response,
    open_stream,
    still_allowed,
    ticking,
)
from dominoes_site import db_hop

router = Router(tags=["Play"])
NDJSON = "application/x-ndjson"


def state_now(user: Any) -> dict[str, Any]:
    """Where the account stands now: its games in progress, the challenges waiting for an
    answer from it or to it (as `GET /api/challenges` shows them)."""
    from api.routes.account import live_games
    from api.routes.challenges import challenge_json
    from social import selectors

    lists = selectors.challenges_for(user)
    waiting = [*lists.get("received", []), *lists.get("sent", [])]
    return {
        "type": "state",
        "you": user.pk,
        "playing": live_games(user),
        "challenges": [challenge_json(c, user) for c in waiting],
    }


async def event_lines(user: Any, token_id: int | None) -> AsyncIterator[bytes]:
    """The stream; a read of the state that fails on a database restarting ends it with
    `reconnect` (the next connection's first line is the state)."""
    try:
        with open_stream("events"):
            async for chunk in _event_lines(user, token_id):
                yield chunk
    except db_hop.DatabaseUnavailable:
        yield line({"type": "reconnect"})


async def _event_lines(user: Any, token_id: int | None) -> AsyncIterator[bytes]:
    from social.notices import notice_group

    listener = GroupListener()
    await listener.open()
    try:
        await listener.join(notice_group(user.pk))  # first: nothing between read and listen
        yield line(await db_hop.run(state_now, user))
        async for message in ticking(listener, still_allowed(user.pk, token_id)):
            if message == "keepalive":
                yield b"\n"
            elif message == "reconnect":
                yield line({"type": "reconnect"})
                return
            elif isinstance(message, str):
                yield line({"type": "end", "code": message.removeprefix("end:")})
                return
            elif message.get("type") == "layer.resync":
                # notices may have been lost: the state again
                yield line(await db_hop.run(state_now, user))
            elif message.get("type") == "notice.send":
                yield line({**message["data"], "type": "notice", "kind": message["kind"]})
    finally:
        await listener.close()


EVENT_LINES = {
    "responses": {
        200: {
            "description": (
                "One JSON object per line: first the state now, then notices as they come; an "
                "empty line every 15 s; a reconnect when the server restarts; an end when the "
                "stream may not go on (docs/api.md, Streams)."
            ),
            "content": {
                NDJSON: {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "type": {
                                "type": "string",
                                "enum": ["state", "notice", "reconnect", "end"],
                            },
                            "kind": {"type": "string"},
                            "you": {"type": "integer"},
                            "playing": {"type": "array", "items": {"type": "object"}},
                            "challenges": {"type": "array", "items": {"type": "object"}},
                            "code": {"type": "string"},
                        },
                        "required": ["type"],
                    }
                }
            },
        }
    }
}


@router.get(
    "/events",
    response={200: None, **REFUSALS},
    auth=needs_async("read"),
    summary=gettext_noop("Your event stream"),
    description=gettext_noop(
        "The state now (your games in progress, your open challenges), then every notice "
        "as it comes: a challenge received or answered, a match found, a table ready, a "
        "tournament about to start. Reconnect at any time: the first line is the state again."
    ),
    openapi_extra=EVENT_LINES,
)
async def events(request: HttpRequest) -> StreamingHttpResponse:
    who = caller(request)
    return ndjson_response(event_lines(who.user, who.token_id))
