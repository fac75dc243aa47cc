"""The staff adjustment form: the player is found by search, and a form sent twice says what
was posted (the first time), not what it says now."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from ledger.models import Adjustment
from tests.ledger.helpers import dollars

pytestmark = pytest.mark.django_db

ADJUST = "/ledger/staff/adjust/"


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    with translation.override("en"):
        yield


def test_the_player_is_found_by_search_not_picked_from_every_account(
    client: Client, warden: Any, alice: Any, bob: Any
) -> None:
    client.force_login(warden)
    page = client.get(ADJUST).content.decode()
    assert 'class="admin-autocomplete' in page and 'data-field-name="user"' in page
    assert f'<option value="{alice.pk}"' not in page and f'<option value="{bob.pk}"' not in page
    assert "admin/js/autocomplete.js" in page  # the search box's script is on the page
    found = client.get(
        reverse("admin:autocomplete"),
        {"app_label": "ledger", "model_name": "adjustment", "field_name": "user", "term": "ali"},
    ).json()
    assert [r["id"] for r in found["results"]] == [str(alice.pk)]
    # Opened from a player's page: that player is chosen already.
    chosen = client.get(ADJUST, {"player": bob.pk}).content.decode()
    assert f'<option value="{bob.pk}" selected>Bob</option>' in chosen


def test_a_form_sent_again_names_the_amount_posted_the_first_time(
    client: Client, warden: Any, alice: Any
) -> None:
    client.force_login(warden)
    before = dollars(alice)
    token = uuid.uuid4()
    data = {"player": alice.pk, "unit": "dollars", "token": token, "reason": "bug refund"}
    first = client.post(ADJUST, {**data, "amount": 25}, follow=True)
    words = [str(m) for m in first.context["messages"]]
    assert any("posted against the house: 25 Dollars for Alice" in m for m in words), words
    again = client.post(ADJUST, {**data, "amount": 40}, follow=True)
    words = [str(m) for m in again.context["messages"]]
    adjustment = Adjustment.objects.get()
    assert any(
        f"already sent: adjustment {adjustment.pk} of 25 Dollars for Alice" in m for m in words
    ), words
    assert not any("40" in m for m in words)
    assert dollars(alice) == before + 25 and adjustment.amount == 25


def test_the_staked_games_list_voids_only_with_the_permission(
    client: Client, make_user: Any, alice: Any, bob: Any
) -> None:
    from django.contrib.auth.models import Permission

    from tests.ledger.helpers import staked_game

    staked = staked_game([alice, bob])
    clerk = make_user("Clerk")
    clerk.is_staff = True
    clerk.save()
    clerk.user_permissions.add(Permission.objects.get(codename="view_stakedgame"))
    client.force_login(clerk)
    listing = client.get(reverse("admin:ledger_stakedgame_changelist")).content.decode()
    assert "void_games" not in listing
    client.post(
        reverse("admin:ledger_stakedgame_changelist"),
        {"action": "void_games", "_selected_action": [staked.game.pk], "apply": "1", "reason": "x"},
    )
    staked.game.refresh_from_db()
    assert staked.game.status == "playing"
