"""Staff and chat reports: handling records who and when, a report leads to timing the reported
player out, and the time-out form finds the player and the table by search."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from chat import services as chat
from chat.models import ChatReport, ChatTimeout
from tables import services as tables

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    with translation.override("en"):
        yield


def reported(alice: Any, bob: Any) -> ChatReport:
    table = tables.table_create(host=alice, mode="fives")
    tables.seat_take(table_id=table.pk, user=bob, number=1)
    chat.chat_send(table_id=table.pk, user=bob, content={"text": "you play like a rookie"})
    return chat.chat_report(table_id=table.pk, reporter=alice, reported_id=bob.pk, reason="rude")


def test_marking_reports_handled_records_who_and_when(
    client: Client, warden: Any, alice: Any, bob: Any
) -> None:
    report = reported(alice, bob)
    client.force_login(warden)
    url = reverse("admin:chat_chatreport_changelist")
    before = timezone.now()
    done = client.post(
        url, {"action": "mark_handled", "_selected_action": [report.pk]}, follow=True
    )
    assert "1 report marked handled by you." in done.content.decode()
    report.refresh_from_db()
    assert report.handled and report.handled_by == warden
    assert report.handled_at is not None and report.handled_at >= before
    first = report.handled_at
    # Marked again by someone else: the first who and when stay.
    other = type(warden).objects.create_superuser(
        "other@example.com", "x", display_name="Other", date_of_birth=warden.date_of_birth
    )
    client.force_login(other)
    client.post(url, {"action": "mark_handled", "_selected_action": [report.pk]})
    report.refresh_from_db()
    assert report.handled_by == warden and report.handled_at == first
    listing = client.get(url).content.decode()
    assert "Warden" in listing
    # Unticked on the report's page: back in the queue, who and when cleared; ticked: recorded.
    page = reverse("admin:chat_chatreport_change", args=[report.pk])
    client.post(page, {})
    report.refresh_from_db()
    assert (report.handled, report.handled_by, report.handled_at) == (False, None, None)
    client.post(page, {"handled": "on"})
    report.refresh_from_db()
    assert report.handled and report.handled_by == other


def test_only_staff_handle_reports(alice: Any, bob: Any) -> None:
    report = reported(alice, bob)
    with pytest.raises(PermissionError):
        chat.reports_handled(report_ids=[report.pk], by=alice)
    report.refresh_from_db()
    assert not report.handled


def test_a_report_links_to_timing_the_reported_player_out(
    client: Client, warden: Any, alice: Any, bob: Any
) -> None:
    report = reported(alice, bob)
    client.force_login(warden)
    page = client.get(reverse("admin:chat_chatreport_change", args=[report.pk]))
    html = page.content.decode()
    assert "Time Bob out" in html
    add = reverse("admin:chat_chattimeout_add")
    start = html.index(f'href="{add}?') + len('href="')
    link = html[start : html.index('"', start)].replace("&amp;", "&")
    query = parse_qs(urlparse(link).query)
    assert query["user"] == [str(bob.pk)] and query["table"] == [str(report.table_id)]
    assert query["reason"] == [f"Report {report.pk}: rude"]
    # The form opens with Bob and the table already chosen, and the report's reason.
    form = client.get(link).content.decode()
    assert f'<option value="{bob.pk}" selected>Bob</option>' in form
    assert f'<option value="{report.table_id}" selected>' in form
    assert f"Report {report.pk}: rude" in form
    client.post(
        link, {"user": bob.pk, "table": report.table_id, "minutes": 15, "reason": "rude (1)"}
    )
    timeout = ChatTimeout.objects.get()
    assert (timeout.user, timeout.table_id, timeout.by) == (bob, report.table_id, warden)


def test_the_time_out_form_searches_players_and_tables(
    client: Client, warden: Any, alice: Any, bob: Any
) -> None:
    table = tables.table_create(host=alice, mode="fives")
    client.force_login(warden)
    form = client.get(reverse("admin:chat_chattimeout_add")).content.decode()
    # Two search boxes (admin's autocomplete), not a list of every account or a raw id.
    assert form.count('class="admin-autocomplete') == 2
    assert 'data-field-name="user"' in form and 'data-field-name="table"' in form
    assert f'<option value="{alice.pk}"' not in form and "vRawIdAdminField" not in form
    found = client.get(
        reverse("admin:autocomplete"),
        {"app_label": "chat", "model_name": "chattimeout", "field_name": "user", "term": "bo"},
    ).json()
    assert [r["text"] for r in found["results"]] == ["Bob"]
    found = client.get(
        reverse("admin:autocomplete"),
        {"app_label": "chat", "model_name": "chattimeout", "field_name": "table", "term": "ali"},
    ).json()
    assert [r["id"] for r in found["results"]] == [str(table.pk)]
