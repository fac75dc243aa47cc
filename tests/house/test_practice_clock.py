"""Practice at a Gym mode with a clock of the player's choosing (or none)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tables.models import Table

pytestmark = pytest.mark.django_db


def practise(client: Client, mode: str, clock: str) -> Table:
    response = client.post(
        reverse("house:practice"),
        {
            "practice-mode": mode,
            "practice-shape": "one_on_one",
            "practice-level": "rookie",
            "practice-clock": clock,
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    table = Table.objects.filter(host__isnull=False).order_by("-pk").first()
    assert table is not None
    return table


def test_the_practice_form_offers_a_clock(client: Client, alice: Any, eager: None) -> None:
    client.force_login(alice)
    page = client.get(reverse("tables:lobby")).content.decode()
    assert 'name="practice-clock"' in page and "60 seconds" in page
    assert practise(client, "citizen_gym", "60").settings["clock"] == 60
    assert practise(client, "inmate_gym", "off").settings["clock"] is None
    assert practise(client, "citizen_gym", "").settings["clock"] == 10  # the mode's own
    assert practise(client, "fives", "30").settings.get("clock") is None  # no clock at Fives
