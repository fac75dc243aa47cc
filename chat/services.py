"""Table chat: the only code that writes chat messages, reports and reads time-outs.

Players talk in the players' chat, which everyone at the table sees. Anyone else watching talks
in the spectators' chat, which goes only to the spectators' group: players never receive it, so
an onlooker has no channel to pass on what they see. Seated players have no private channel to
each other. Text is stored and sent as plain text; pages set it with textContent, never as HTML.
"""

from __future__ import annotations

import unicodedata
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from chat.models import Audience, ChatMessage, ChatReport, ChatTimeout
from dominoes_site import limits
from dominoes_site.layer import group_send_many
from tables import broadcast
from tables.models import Game, Seat, Table

MAX_LENGTH = 200
#: At most this many messages per user per table in this window.
RATE_COUNT = 5
RATE_WINDOW = timedelta(seconds=10)
#: Messages a page gets when it (re)connects, per audience.
RECENT = 50
#: A report keeps this many of the reported player's latest messages at the table.
REPORT_KEEPS = 30
#: Reports one player may send a minute, repeats included (anywhere on the site).
REPORTS_PER_MINUTE = 5

#: Quick-chat phrases: stored by key, shown in each reader's own language.
QUICK = {
    "gg": gettext_lazy("Good game!"),
    "nice": gettext_lazy("Nice play!"),
    "thanks": gettext_lazy("Thanks!"),
    "luck": gettext_lazy("Good luck!"),
    "oops": gettext_lazy("Oops!"),
    "wow": gettext_lazy("Wow!"),
    "sorry": gettext_lazy("Sorry!"),
    "think": gettext_lazy("Let me think…"),
}
EMOTES = ("👍", "👏", "😂", "😮", "😢", "🔥", "🎉", "🤝")


class ChatError(Exception):
    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra


def _clean(text: object) -> str:
    """Plain text: no control characters (newlines become spaces), trimmed."""
    if not isinstance(text, str):
        raise ChatError("bad_field", _("A chat message is text."), field="text")
    kept = "".join(
        " " if ch in "\r\n\t" else ch
        for ch in text
        if ch in "\r\n\t" or unicodedata.category(ch)[0] != "C"
    )
    kept = " ".join(kept.split())
    if not kept:
        raise ChatError("bad_field", _("Say something first."), field="text")
    if len(kept) > MAX_LENGTH:
        raise ChatError(
            "too_long",
            _("A chat message is at most %(n)d characters.") % {"n": MAX_LENGTH},
            field="text",
        )
    return kept


def audience_of(table_id: int, user_id: int) -> str:
    """Players: seated at the table (in its current or last game). Everyone else watches."""
    game = Game.objects.filter(table_id=table_id).order_by("-number").first()
    if game is not None and game.status != Game.Status.WAITING and user_id in game.players:
        return Audience.PLAYERS
    if Seat.objects.filter(table_id=table_id, user_id=user_id).exists():
        return Audience.PLAYERS
    return Audience.SPECTATORS


def active_timeout(user: Any, table_id: int) -> ChatTimeout | None:
    return (
        ChatTimeout.objects.filter(user=user, until__gt=timezone.now())
        .filter(Q(table_id=table_id) | Q(table__isnull=True))
        .order_by("-until")
        .first()
    )


def chat_send(*, table_id: int, user: Any, content: dict[str, Any]) -> dict[str, Any]:
    """Post one message (typed `text`, a `quick` phrase key or an `emote`) to the sender's
    audience. Refused: timed out by staff, too fast, too long, empty, unknown phrase."""
    if "quick" in content:
        kind, text = ChatMessage.Kind.QUICK, content["quick"]
        if text not in QUICK:
            raise ChatError("bad_field", _("There is no such quick phrase."), field="quick")
    elif "emote" in content:
        kind, text = ChatMessage.Kind.EMOTE, content["emote"]
        if text not in EMOTES:
            raise ChatError("bad_field", _("There is no such emote."), field="emote")
    else:
        kind, text = ChatMessage.Kind.TEXT, _clean(content.get("text"))
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise ChatError("no_table", _("There is no such table."))
    timeout = active_timeout(user, table_id)
    if timeout is not None:
        raise ChatError(
            "chat_timeout",
            _("Staff have paused your chat until %(until)s: %(reason)s")
            % {
                "until": timezone.localtime(timeout.until).strftime("%H:%M"),
                "reason": timeout.reason,
            },
        )
    now = timezone.now()
    recent = ChatMessage.objects.filter(
        table_id=table_id, user=user, created_at__gte=now - RATE_WINDOW
    ).count()
    if recent >= RATE_COUNT:
        raise ChatError("chat_rate", _("You are chatting too fast; wait a few seconds."))
    audience = audience_of(table_id, user.pk)
    with transaction.atomic():
        message = ChatMessage.objects.create(
            table_id=table_id, user=user, audience=audience, kind=kind, text=text
        )
        shown = message_view(message, user)
        groups = (
            broadcast.all_groups(table_id, table.players)
            if audience == Audience.PLAYERS
            else [broadcast.public_group(table_id)]
        )
        transaction.on_commit(
            lambda: group_send_many(
                [(g, {"type": "chat.message", "message": shown}) for g in groups]
            )
        )
    return shown


def message_view(message: ChatMessage, user: Any | None = None) -> dict[str, Any]:
    author = user if user is not None else message.user
    return {
        "id": message.pk,
        "audience": message.audience,
        "kind": message.kind,
        "text": message.text,
        "user": {"id": author.pk, "name": author.display_name},
        "at": int(message.created_at.timestamp() * 1000),
    }


def chat_recent(
    *, table_id: int, user_id: int, audience: str | None = None
) -> list[dict[str, Any]]:
    """What a page shows when it opens: the players' chat, and for spectators theirs too.
    `audience`: the user's (`audience_of`), when the caller knows it."""
    audiences = [Audience.PLAYERS]
    if (audience or audience_of(table_id, user_id)) == Audience.SPECTATORS:
        audiences.append(Audience.SPECTATORS)
    rows = list(
        ChatMessage.objects.filter(table_id=table_id, audience__in=audiences)
        .select_related("user")
        .order_by("-created_at", "-pk")[:RECENT]
    )
    return [message_view(m) for m in reversed(rows)]


def chat_report(*, table_id: int, reporter: Any, reported_id: object, reason: object) -> ChatReport:
    """Keep a copy of a player's recent messages at this table for staff to read.

    One open report per reporter, player and table (a database constraint): a repeat is merged
    into it (the copy takes in the messages said since, the reason is kept, or given if it had
    none) and answered like the first. A player may send REPORTS_PER_MINUTE a minute, repeats
    included (`report_rate`)."""
    if type(reported_id) is not int:
        raise ChatError("bad_field", _("Name the player to report."), field="user")
    if reported_id == reporter.pk:
        raise ChatError("bad_field", _("You can't report yourself."), field="user")
    if not limits.hit(f"report:{reporter.pk}", REPORTS_PER_MINUTE, 60):
        raise ChatError(
            "report_rate",
            _("You have sent several reports just now: wait a minute. Staff read every one."),
        )
    reason_text = "" if reason is None else _clean(reason) if reason else ""
    visible = [Audience.PLAYERS]
    if audience_of(table_id, reporter.pk) == Audience.SPECTATORS:
        visible.append(Audience.SPECTATORS)
    kept = list(
        ChatMessage.objects.filter(table_id=table_id, user_id=reported_id, audience__in=visible)
        .select_related("user")
        .order_by("-created_at")[:REPORT_KEEPS]
    )
    if not kept:
        raise ChatError("nothing_to_report", _("That player has said nothing here to report."))
    copy = [message_view(m) for m in reversed(kept)]
    with transaction.atomic():
        try:
            with transaction.atomic():
                return ChatReport.objects.create(
                    table_id=table_id,
                    reporter=reporter,
                    reported_id=reported_id,
                    reason=reason_text,
                    messages=copy,
                )
        except IntegrityError:  # an open report of this player by this reporter: merge
            pass
        report = ChatReport.objects.select_for_update().get(
            table_id=table_id, reporter=reporter, reported_id=reported_id, handled=False
        )
        known = {m["id"] for m in report.messages}
        report.messages = report.messages + [m for m in copy if m["id"] not in known]
        report.reason = report.reason or reason_text
        report.save(update_fields=["messages", "reason"])
        return report


def reports_handled(*, report_ids: list[int], by: Any) -> int:
    """Staff mark reports handled: who and when are kept (the first time only; a report already
    handled keeps its own). Returns how many reports were newly marked."""
    if not (getattr(by, "is_active", False) and getattr(by, "is_staff", False)):
        raise PermissionError("Only staff handle reports.")
    return ChatReport.objects.filter(pk__in=report_ids, handled=False).update(
        handled=True, handled_by=by, handled_at=timezone.now()
    )


def report_reopen(*, report_id: int, by: Any) -> int:
    """Staff put a handled report back in the queue: who handled it, and when, is cleared. If the
    same reporter has an open report of the same player at that table meanwhile, that one is
    merged into this one (one open report each: the constraint)."""
    if not (getattr(by, "is_active", False) and getattr(by, "is_staff", False)):
        raise PermissionError("Only staff handle reports.")
    with transaction.atomic():
        report = ChatReport.objects.select_for_update().filter(pk=report_id, handled=True).first()
        if report is None:
            return 0
        open_one = (
            ChatReport.objects.select_for_update()
            .filter(
                table_id=report.table_id,
                reporter_id=report.reporter_id,
                reported_id=report.reported_id,
                handled=False,
            )
            .first()
        )
        if open_one is not None:
            known = {m["id"] for m in report.messages}
            report.messages = report.messages + [
                m for m in open_one.messages if m["id"] not in known
            ]
            report.reason = report.reason or open_one.reason
            open_one.delete()
        report.handled, report.handled_by, report.handled_at = False, None, None
        report.save(update_fields=["messages", "reason", "handled", "handled_by", "handled_at"])
        return 1
