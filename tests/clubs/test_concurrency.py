"""Two requests at once: each rule holds when two players (or two leaders) act at the same
moment. These run the services in two threads released together, each with its own database
connection, on a database the test really commits to (transaction=True)."""

from __future__ import annotations

from typing import Any

import pytest

from clubs import services
from clubs.models import Club, Membership, Policy, Role, Status
from clubs.services import ClubError
from tests.clubs.conftest import found, member_of
from tests.concurrency import at_once

pytestmark = pytest.mark.django_db(transaction=True)


def codes(results: list[Any]) -> list[str]:
    """ "ok" for a call that went through, else its ClubError's code (anything else fails)."""
    out = []
    for result in results:
        if isinstance(result, ClubError):
            out.append(result.code)
        else:
            assert not isinstance(result, Exception), result
            out.append("ok")
    return sorted(out)


def test_two_leaders_approve_the_same_request_at_once(
    alice: Any, bob: Any, carol: Any, sent: list[Any]
) -> None:
    club = found(alice, policy=Policy.REQUEST)
    member_of(club, carol)
    services.leader_appoint(club_id=club.pk, member_id=carol.pk, by=alice)
    services.club_join(club_id=club.pk, user=bob)
    sent.clear()
    results = at_once(
        lambda: services.membership_approve(club_id=club.pk, member_id=bob.pk, by=alice),
        lambda: services.membership_approve(club_id=club.pk, member_id=bob.pk, by=carol),
    )
    assert codes(results) == ["already_member", "ok"]
    bob_in = Membership.objects.get(club=club, user=bob)
    assert (bob_in.status, bob_in.role) == (Status.ACTIVE, Role.MEMBER)
    assert [kind for _user, kind, _data in sent] == ["club_joined"]  # told once


def test_an_approval_racing_a_decline_has_one_winner(alice: Any, bob: Any, carol: Any) -> None:
    club = found(alice, policy=Policy.REQUEST)
    member_of(club, carol)
    services.leader_appoint(club_id=club.pk, member_id=carol.pk, by=alice)
    services.club_join(club_id=club.pk, user=bob)
    results = at_once(
        lambda: services.membership_approve(club_id=club.pk, member_id=bob.pk, by=alice),
        lambda: services.membership_decline(club_id=club.pk, member_id=bob.pk, by=carol),
    )
    outcome = codes(results)
    row = Membership.objects.filter(club=club, user=bob).first()
    if outcome == ["already_member", "ok"]:  # approved first: the decline found him in
        assert row is not None and row.status == Status.ACTIVE
    else:  # declined first: nothing left to approve
        assert outcome == ["no_request", "ok"]
        assert row is None


def test_the_last_two_leaders_leave_at_once(alice: Any, bob: Any, carol: Any) -> None:
    """Each sees the other still leading; only one may go, or Carol is left without a leader."""
    club = found(alice)
    member_of(club, bob, carol)
    services.leader_appoint(club_id=club.pk, member_id=bob.pk, by=alice)
    results = at_once(
        lambda: services.club_leave(club_id=club.pk, user=alice),
        lambda: services.club_leave(club_id=club.pk, user=bob),
    )
    assert codes(results) == ["last_leader", "ok"]
    leaders = Membership.objects.filter(club=club, status=Status.ACTIVE, role=Role.LEADER)
    assert leaders.count() == 1
    assert Membership.objects.filter(club=club, user=carol, status=Status.ACTIVE).exists()


def test_two_leaders_remove_each_other_at_once(alice: Any, bob: Any, carol: Any) -> None:
    club = found(alice)
    member_of(club, bob, carol)
    services.leader_appoint(club_id=club.pk, member_id=bob.pk, by=alice)
    results = at_once(
        lambda: services.member_remove(club_id=club.pk, member_id=bob.pk, by=alice),
        lambda: services.member_remove(club_id=club.pk, member_id=alice.pk, by=bob),
    )
    # The second finds its own leadership gone with its membership.
    assert codes(results) == ["not_leader", "ok"]
    assert Membership.objects.filter(club=club, role=Role.LEADER).count() == 1


def test_the_same_name_founded_twice_at_once(alice: Any, bob: Any) -> None:
    results = at_once(
        lambda: services.club_found(user=alice, name="Domino Kings"),
        lambda: services.club_found(user=bob, name="DOMINO KINGS"),
    )
    assert codes(results) == ["name_taken", "ok"]
    club = Club.objects.get()
    assert Membership.objects.get(club=club).role == Role.LEADER


def test_one_player_founding_twice_at_once_counts_both(alice: Any) -> None:
    found(alice, "First Club")
    found(alice, "Second Club")
    results = at_once(
        lambda: services.club_found(user=alice, name="Third Club"),
        lambda: services.club_found(user=alice, name="Fourth Club"),
    )
    assert codes(results) == ["ok", "too_many_clubs"]
    assert Club.objects.filter(founded_by=alice).count() == services.MAX_CLUBS_FOUNDED


def test_two_players_join_an_empty_club_at_once(alice: Any, bob: Any, carol: Any) -> None:
    """Only the first becomes its leader; the second finds it led, and by request."""
    club = found(alice, policy=Policy.REQUEST)
    services.club_leave(club_id=club.pk, user=alice)
    results = at_once(
        lambda: services.club_join(club_id=club.pk, user=bob),
        lambda: services.club_join(club_id=club.pk, user=carol),
    )
    assert codes(results) == ["ok", "ok"]
    rows = sorted((m.status, m.role) for m in Membership.objects.filter(club=club))
    assert rows == [(Status.ACTIVE, Role.LEADER), (Status.REQUESTED, Role.MEMBER)]
