"""The player's own data: their clubs in the download, and what closing their account does to
the clubs they were in (docs/privacy.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from clubs import services
from clubs.models import Club, Membership, Policy, Role, Status
from privacy.services import account_close
from tests.clubs.conftest import found, logged_in, member_of

pytestmark = pytest.mark.django_db


def test_the_download_holds_the_player_s_clubs(alice: Any, bob: Any, carol: Any) -> None:
    mine = found(alice, "Alice's Own")
    member_of(mine, bob)
    theirs = found(bob, "Bob's Club", policy=Policy.REQUEST)
    services.club_join(club_id=theirs.pk, user=alice)
    response = logged_in(alice).get("/profile/my-data/")
    assert response.status_code == 200
    data = json.loads(response.content)["clubs"]
    memberships = data["memberships"]
    assert [(m["club"], m["role"], m["status"]) for m in memberships] == [
        ("Alice's Own", "leader", "active"),
        ("Bob's Club", "member", "requested"),
    ]
    assert memberships[0]["joined_at"] and memberships[0]["requested_at"] is None
    assert memberships[1]["requested_at"] and memberships[1]["joined_at"] is None
    assert memberships[0]["address"] == f"/clubs/{mine.slug}/"
    assert [c["club"] for c in data["founded"]] == ["Alice's Own"]
    # Nothing of Bob's: not his e-mail, not his own membership.
    text = response.content.decode()
    assert "bob@example.com" not in text
    assert len(memberships) == 2


def test_closing_ends_memberships_and_hands_on_the_lead(
    alice: Any, bob: Any, carol: Any, dave: Any
) -> None:
    led = found(alice, "Alice's Own")
    member_of(led, carol, bob)  # Carol joined first: she leads next
    alone = found(alice, "Alone Club", policy=Policy.REQUEST)
    services.club_join(club_id=alone.pk, user=dave)
    theirs = found(bob, "Bob's Club", policy=Policy.REQUEST)
    services.club_join(club_id=theirs.pk, user=alice)

    closing = account_close(user=alice, by=alice)
    assert sorted(closing.withdrawn["clubs"]) == sorted([led.pk, alone.pk, theirs.pk])
    assert not Membership.objects.filter(user=alice).exists()
    assert Membership.objects.get(club=led, user=carol).role == Role.LEADER
    assert Membership.objects.get(club=led, user=bob).role == Role.MEMBER
    assert not Membership.objects.filter(club=alone).exists()  # kept, without members
    assert Club.objects.filter(pk=alone.pk).exists()
    assert list(Membership.objects.filter(club=theirs).values_list("status", flat=True)) == [
        Status.ACTIVE
    ]
    # The club's page names its founder as a closed account now.
    page = logged_in(carol).get(led.get_absolute_url()).content.decode()
    assert f"Closed account #{alice.pk}" in page and "Alice," not in page
