"""Staff and the chat: read messages and reports, and time out a chatter with a reason."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from chat.models import ChatMessage, ChatReport, ChatTimeout
from chat.services import report_reopen, reports_handled


class ReadOnly(admin.ModelAdmin):  # type: ignore[type-arg]
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnly):
    list_display = ["created_at", "table", "audience", "user", "kind", "text"]
    list_filter = ["audience", "kind"]
    search_fields = ["text", "user__display_name", "user__email"]
    readonly_fields = [f.name for f in ChatMessage._meta.fields]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ChatReport)
class ChatReportAdmin(ReadOnly):
    list_display = [
        "created_at",
        "table",
        "reporter",
        "reported",
        "reason",
        "handled",
        "handled_by",
        "handled_at",
        "time_out_link",
    ]
    list_filter = ["handled"]
    list_select_related = ["table", "reporter", "reported", "handled_by"]
    search_fields = ["reported__display_name", "reporter__display_name", "reason"]
    readonly_fields = [
        "table",
        "reporter",
        "reported",
        "reason",
        "created_at",
        "kept_messages",
        "handled_by",
        "handled_at",
        "time_out_link",
    ]
    fields = [*readonly_fields, "handled"]
    actions = ["mark_handled"]

    @admin.display(description=_("Messages kept"))
    def kept_messages(self, obj: ChatReport) -> str:
        return format_html_join(
            "\n",
            "<p><strong>{}</strong>: {}</p>",
            ((m["user"]["name"], m["text"]) for m in obj.messages),
        )

    @admin.display(description=_("Time-out"))
    def time_out_link(self, obj: ChatReport) -> str:
        """The time-out form, with the reported player, the table and the report filled in."""
        query = urlencode(
            {
                "user": obj.reported_id,
                "table": obj.table_id,
                "reason": _("Report %(report)s: %(reason)s")
                % {"report": obj.pk, "reason": obj.reason or _("chat")},
            }
        )
        url = f"{reverse('admin:chat_chattimeout_add')}?{query}"
        return format_html(
            '<a href="{}">{}</a>', url, _("Time %(player)s out") % {"player": obj.reported}
        )

    @admin.action(description=_("Mark as handled"))
    def mark_handled(self, request: HttpRequest, queryset: QuerySet[ChatReport]) -> None:
        done = reports_handled(
            report_ids=list(queryset.values_list("pk", flat=True)), by=request.user
        )
        self.message_user(
            request,
            ngettext(
                "%(n)d report marked handled by you.",
                "%(n)d reports marked handled by you.",
                done,
            )
            % {"n": done},
        )

    def save_model(self, request: HttpRequest, obj: ChatReport, form: Any, change: bool) -> None:
        # Only "handled" can change here: through the services, so who and when are kept.
        if "handled" in form.changed_data:
            if obj.handled:
                reports_handled(report_ids=[obj.pk], by=request.user)
            else:
                report_reopen(report_id=obj.pk, by=request.user)


class ChatTimeoutForm(forms.ModelForm):  # type: ignore[type-arg]
    minutes = forms.IntegerField(
        label=_("For how many minutes"), min_value=1, max_value=60 * 24 * 365, initial=60
    )

    class Meta:
        model = ChatTimeout
        fields = ["user", "table", "minutes", "reason"]


@admin.register(ChatTimeout)
class ChatTimeoutAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """A time-out silences a player at one table (or everywhere when no table is given)."""

    form = ChatTimeoutForm
    list_display = ["user", "table", "until", "reason", "by", "created_at"]
    search_fields = ["user__display_name", "user__email", "reason"]
    autocomplete_fields = ["user", "table"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return ["user", "table", "until", "reason", "by", "created_at"] if obj else []

    def get_form(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        if obj is not None:
            kwargs["form"] = forms.ModelForm
            kwargs["fields"] = []
        return super().get_form(request, obj, **kwargs)

    def save_model(self, request: HttpRequest, obj: ChatTimeout, form: Any, change: bool) -> None:
        if not change:
            obj.by = request.user  # type: ignore[assignment]
            obj.until = timezone.now() + timedelta(minutes=form.cleaned_data["minutes"])
        super().save_model(request, obj, form, change)
