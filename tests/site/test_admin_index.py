"""The admin's front page and the players' list: one "Accounts", the house's actions first."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    with translation.override("en"):
        yield


def test_the_index_has_one_accounts_section(client: Client, warden: Any) -> None:
    client.force_login(warden)
    html = client.get(reverse("admin:index")).content.decode()
    sections = re.findall(r'<caption>\s*<a href="[^"]*" class="section"[^>]*>([^<]+)</a>', html)
    assert sections.count("Accounts") == 1, sections
    assert "E-mail addresses" in sections and "House office" in sections
    assert len(sections) == len(set(sections)), sections


def test_the_first_action_on_players_is_not_delete(client: Client, warden: Any, alice: Any) -> None:
    alice.reported_underage = True  # in the age-review queue, so that list has its actions
    alice.save()
    client.force_login(warden)
    for name in ("admin:accounts_user_changelist", "admin:accounts_agereview_changelist"):
        html = client.get(reverse(name)).content.decode()
        select = html[html.index('name="action"') :]
        choices = re.findall(r'<option value="([^"]*)"', select[: select.index("</select>")])
        choices = [c for c in choices if c]
        assert choices[0] == "age_verified", choices
        assert choices[-1] == "delete_selected", choices
