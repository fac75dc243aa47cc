"""Club services: founding, joining (open, by request, an empty club), the leaders' answers and
powers, leaving (the last leader's rule), editing; every refusal with a code and clear words,
and nothing changed by a refusal."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import AgeStatus
from clubs import selectors, services
from clubs.models import Club, Membership, Policy, Role, Status
from clubs.services import ClubError
from house.services import house_player_get
from tests.clubs.conftest import found, member_of

pytestmark = pytest.mark.django_db


def refused(code: str, call: Any) -> ClubError:
    with pytest.raises(ClubError) as caught:
        call()
    assert caught.value.code == code, caught.value.message
    return caught.value


def roles(club: Club) -> dict[str, tuple[str, str]]:
    return {
        m.user.display_name: (m.status, m.role)
        for m in Membership.objects.filter(club=club).select_related("user")
    }


# --- founding ------------------------------------------------------------------------------------


def test_the_founder_is_the_first_leader(alice: Any) -> None:
    club = found(alice, "  Los   Tranques ")
    assert club.name == "Los Tranques"  # spaces trimmed, runs made one
    assert club.slug == "los-tranques"
    assert club.founded_by == alice and club.policy == Policy.OPEN
    assert roles(club) == {"Alice": (Status.ACTIVE, Role.LEADER)}
    assert selectors.is_member(club.pk, alice) and selectors.is_leader(club.pk, alice)


def test_a_name_is_taken_whatever_its_capitals(alice: Any, bob: Any) -> None:
    found(alice, "Los Tranques")
    error = refused("name_taken", lambda: found(bob, "LOS TRANQUES"))
    assert error.field == "name"
    assert error.message == "There is already a club called LOS TRANQUES: choose another name."
    assert Club.objects.count() == 1 and not Membership.objects.filter(user=bob).exists()


def test_the_database_refuses_a_second_name_in_other_capitals(alice: Any) -> None:
    found(alice, "Bones")
    with pytest.raises(IntegrityError), transaction.atomic():
        Club.objects.create(name="bONES", slug="bones-x", founded_by=alice)


def test_names_that_make_the_same_address_are_numbered(alice: Any, bob: Any) -> None:
    assert found(alice, "Bones!").slug == "bones"
    assert found(bob, "Bones?").slug == "bones-2"
    assert found(bob, "¡Bones!").slug == "bones-3"
    assert found(alice, "¿¡!?¿ 7").slug == "7"
    assert found(alice, "Дом").slug == "club"  # no letter an address can hold


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("ab", "A club's name is 3 to 40 characters long."),
        ("x" * 41, "A club's name is 3 to 40 characters long."),
        ("!!!", "A club's name needs at least one letter or digit."),
        ("Bo\u200bnes", "A club's name can't hold invisible characters."),
    ],
)
def test_a_bad_name_is_refused_on_its_field(alice: Any, name: str, words: str) -> None:
    error = refused("bad_name", lambda: found(alice, name))
    assert (error.field, error.message) == ("name", words)
    assert not Club.objects.exists()


def test_a_player_founds_three_clubs_at_most(alice: Any) -> None:
    for name in ("One Club", "Two Club", "Three Club"):
        found(alice, name)
    error = refused("too_many_clubs", lambda: found(alice, "Four Club"))
    assert "3 clubs" in error.message
    # Leaving them does not give the right back: the names stay taken.
    club = Club.objects.get(name="One Club")
    services.club_leave(club_id=club.pk, user=alice)
    refused("too_many_clubs", lambda: found(alice, "Four Club"))
    assert Club.objects.count() == 3


def test_accounts_that_may_not_play_found_and_join_nothing(alice: Any, make_user: Any) -> None:
    suspended = make_user("Sam", status=AgeStatus.SUSPENDED)
    refused("may_not_play", lambda: found(suspended, "Sam's Club"))
    club = found(alice)
    error = refused("may_not_play", lambda: services.club_join(club_id=club.pk, user=suspended))
    assert "suspended" in error.message
    minor = make_user("Kid", born=timezone.localdate() - dt.timedelta(days=365 * 17))
    refused("may_not_play", lambda: services.club_join(club_id=club.pk, user=minor))
    shark = house_player_get(level="shark")
    refused("house_player", lambda: services.club_join(club_id=club.pk, user=shark))
    assert roles(club) == {"Alice": (Status.ACTIVE, Role.LEADER)}


def test_the_description_and_policy_are_checked(alice: Any) -> None:
    error = refused(
        "bad_description",
        lambda: services.club_found(user=alice, name="Bones", description="x" * 2001),
    )
    assert error.field == "description"
    error = refused(
        "bad_policy", lambda: services.club_found(user=alice, name="Bones", policy="secret")
    )
    assert error.field == "policy"
    assert not Club.objects.exists()


# --- joining and answers -------------------------------------------------------------------------


def test_an_open_club_takes_a_member_at_once(
    alice: Any, bob: Any, sent: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    club = found(alice)
    with django_capture_on_commit_callbacks(execute=True):
        membership = services.club_join(club_id=club.pk, user=bob)
    assert (membership.status, membership.role) == (Status.ACTIVE, Role.MEMBER)
    assert membership.joined_at is not None and membership.requested_at is None
    assert selectors.is_member(club.pk, bob) and not selectors.is_leader(club.pk, bob)
    assert sent == []  # nobody to ask
    error = refused("already_member", lambda: services.club_join(club_id=club.pk, user=bob))
    assert error.message == "You are already a member of Los Tranques."


def test_a_request_tells_every_leader(
    alice: Any, bob: Any, carol: Any, sent: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    club = found(alice, policy=Policy.REQUEST)
    member_of(club, carol)
    services.leader_appoint(club_id=club.pk, member_id=carol.pk, by=alice)
    with django_capture_on_commit_callbacks(execute=True):
        membership = services.club_join(club_id=club.pk, user=bob)
    assert membership.status == Status.REQUESTED and membership.joined_at is None
    assert not selectors.is_member(club.pk, bob)
    data = {
        "club": club.pk,
        "player": bob.pk,
        "from": "Bob",
        "card_url": f"/clubs/{club.slug}/notice/?about=request&player={bob.pk}",
    }
    assert sorted(sent, key=lambda n: n[0]) == [
        (alice.pk, "club_request", data),
        (carol.pk, "club_request", data),
    ]
    error = refused("already_requested", lambda: services.club_join(club_id=club.pk, user=bob))
    assert error.message == "You have already asked to join Los Tranques: a leader will answer."


def test_a_leader_approves_and_the_player_is_told(
    alice: Any, bob: Any, sent: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    club = found(alice, policy=Policy.REQUEST)
    services.club_join(club_id=club.pk, user=bob)
    with django_capture_on_commit_callbacks(execute=True):
        membership = services.membership_approve(club_id=club.pk, member_id=bob.pk, by=alice)
    assert (membership.status, membership.role) == (Status.ACTIVE, Role.MEMBER)
    assert membership.requested_at is not None and membership.joined_at is not None
    assert sent == [
        (
            bob.pk,
            "club_joined",
            {
                "club": club.pk,
                "url": f"/clubs/{club.slug}/",
                "card_url": f"/clubs/{club.slug}/notice/?about=joined",
            },
        )
    ]
    # Approving again: the player is in already, and nobody is told twice.
    with django_capture_on_commit_callbacks(execute=True):
        error = refused(
            "already_member",
            lambda: services.membership_approve(club_id=club.pk, member_id=bob.pk, by=alice),
        )
    assert error.message == "Bob is already a member: another leader let them in."
    assert len(sent) == 1


def test_only_leaders_answer_requests(alice: Any, bob: Any, carol: Any) -> None:
    club = found(alice, policy=Policy.REQUEST)
    services.club_join(club_id=club.pk, user=bob)
    for by in (carol, bob):  # a stranger; the player asking
        error = refused(
            "not_leader",
            lambda by=by: services.membership_approve(club_id=club.pk, member_id=bob.pk, by=by),
        )
        assert error.message == "Only the club's leaders can do that."
        refused(
            "not_leader",
            lambda by=by: services.membership_decline(club_id=club.pk, member_id=bob.pk, by=by),
        )
    assert roles(club)["Bob"] == (Status.REQUESTED, Role.MEMBER)


def test_a_declined_request_is_dropped(
    alice: Any, bob: Any, sent: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    club = found(alice, policy=Policy.REQUEST)
    services.club_join(club_id=club.pk, user=bob)
    with django_capture_on_commit_callbacks(execute=True):
        services.membership_decline(club_id=club.pk, member_id=bob.pk, by=alice)
    assert "Bob" not in roles(club) and sent == []
    error = refused(
        "no_request",
        lambda: services.membership_decline(club_id=club.pk, member_id=bob.pk, by=alice),
    )
    assert error.message == "Bob has no request waiting: it was answered or withdrawn."
    # Bob may ask again.
    assert services.club_join(club_id=club.pk, user=bob).status == Status.REQUESTED


def test_a_player_who_may_no_longer_play_is_not_let_in(alice: Any, bob: Any) -> None:
    club = found(alice, policy=Policy.REQUEST)
    services.club_join(club_id=club.pk, user=bob)
    bob.age_status = AgeStatus.SUSPENDED
    bob.save()
    error = refused(
        "unavailable",
        lambda: services.membership_approve(club_id=club.pk, member_id=bob.pk, by=alice),
    )
    assert error.message == "Bob can't join a club at the moment."
    assert roles(club)["Bob"] == (Status.REQUESTED, Role.MEMBER)


def test_requests_to_join_are_limited(alice: Any, bob: Any, make_user: Any) -> None:
    club = found(alice, policy=Policy.REQUEST)
    for _ in range(services.REQUESTS_TO_ONE_PER_DAY):
        services.club_join(club_id=club.pk, user=bob)
        services.club_leave(club_id=club.pk, user=bob)  # withdrawn, and asked again
    error = refused("request_rate", lambda: services.club_join(club_id=club.pk, user=bob))
    assert error.message == "You have asked to join Los Tranques often today: try again tomorrow."
    assert "Bob" not in roles(club)


def test_a_waiting_request_joins_at_once_when_the_club_opens(alice: Any, bob: Any) -> None:
    club = found(alice, policy=Policy.REQUEST)
    services.club_join(club_id=club.pk, user=bob)
    services.club_update(club_id=club.pk, by=alice, description="", policy=Policy.OPEN)
    assert roles(club)["Bob"] == (Status.REQUESTED, Role.MEMBER)  # the leaders still answer
    assert services.club_join(club_id=club.pk, user=bob).status == Status.ACTIVE


# --- leaders -------------------------------------------------------------------------------------


def test_a_leader_appoints_another_leader(alice: Any, bob: Any, carol: Any) -> None:
    club = found(alice)
    member_of(club, bob, carol)
    refused(
        "not_leader",
        lambda: services.leader_appoint(club_id=club.pk, member_id=carol.pk, by=bob),
    )
    services.leader_appoint(club_id=club.pk, member_id=bob.pk, by=alice)
    assert selectors.is_leader(club.pk, bob)
    # Leaders are equals: Bob appoints Carol.
    services.leader_appoint(club_id=club.pk, member_id=carol.pk, by=bob)
    error = refused(
        "already_leader",
        lambda: services.leader_appoint(club_id=club.pk, member_id=carol.pk, by=alice),
    )
    assert error.message == "Carol is already a leader."


def test_only_members_are_appointed(alice: Any, bob: Any, carol: Any) -> None:
    club = found(alice, policy=Policy.REQUEST)
    services.club_join(club_id=club.pk, user=bob)  # asking, not in
    for member in (bob, carol):
        error = refused(
            "not_member",
            lambda m=member: services.leader_appoint(club_id=club.pk, member_id=m.pk, by=alice),
        )
        assert error.message == f"{member.display_name} is not a member of this club."


def test_leaders_remove_members_and_other_leaders(alice: Any, bob: Any, carol: Any) -> None:
    club = found(alice)
    member_of(club, bob, carol)
    refused(
        "not_leader", lambda: services.member_remove(club_id=club.pk, member_id=carol.pk, by=bob)
    )
    services.member_remove(club_id=club.pk, member_id=carol.pk, by=alice)
    assert not selectors.is_member(club.pk, carol)
    services.leader_appoint(club_id=club.pk, member_id=bob.pk, by=alice)
    services.member_remove(club_id=club.pk, member_id=alice.pk, by=bob)
    assert roles(club) == {"Bob": (Status.ACTIVE, Role.LEADER)}
    error = refused(
        "remove_self", lambda: services.member_remove(club_id=club.pk, member_id=bob.pk, by=bob)
    )
    assert error.message == "You can't remove yourself: to go, leave the club."


def test_leaders_edit_the_club(alice: Any, bob: Any) -> None:
    club = found(alice)
    member_of(club, bob)
    refused(
        "not_leader",
        lambda: services.club_update(club_id=club.pk, by=bob, description="", policy="request"),
    )
    services.club_update(
        club_id=club.pk, by=alice, description="  Thursdays.  ", policy=Policy.REQUEST
    )
    club.refresh_from_db()
    assert (club.description, club.policy) == ("Thursdays.", Policy.REQUEST)


# --- leaving -------------------------------------------------------------------------------------


def test_the_last_leader_cannot_leave_while_others_remain(alice: Any, bob: Any) -> None:
    club = found(alice)
    member_of(club, bob)
    error = refused("last_leader", lambda: services.club_leave(club_id=club.pk, user=alice))
    assert error.message == (
        "You are the club's only leader: make another member a leader before you leave."
    )
    assert roles(club)["Alice"] == (Status.ACTIVE, Role.LEADER)
    services.leader_appoint(club_id=club.pk, member_id=bob.pk, by=alice)
    assert services.club_leave(club_id=club.pk, user=alice) is True
    assert roles(club) == {"Bob": (Status.ACTIVE, Role.LEADER)}


def test_a_member_leaves_and_a_request_is_withdrawn(alice: Any, bob: Any, carol: Any) -> None:
    club = found(alice, policy=Policy.REQUEST)
    member_of(club, bob)
    services.club_join(club_id=club.pk, user=carol)
    assert services.club_leave(club_id=club.pk, user=bob) is True
    assert services.club_leave(club_id=club.pk, user=carol) is False
    assert roles(club) == {"Alice": (Status.ACTIVE, Role.LEADER)}
    error = refused("not_member", lambda: services.club_leave(club_id=club.pk, user=bob))
    assert error.message == "You are not a member of Los Tranques."


def test_the_last_member_leaves_an_empty_club_that_the_next_joiner_leads(
    alice: Any, bob: Any, carol: Any
) -> None:
    club = found(alice, policy=Policy.REQUEST)
    services.club_join(club_id=club.pk, user=bob)  # waiting for Alice's answer
    services.club_leave(club_id=club.pk, user=alice)
    assert Club.objects.filter(pk=club.pk).exists()
    assert roles(club) == {}  # Bob's request went with the last member who could answer it
    # By request, but nobody could approve: Carol joins at once, and leads it.
    membership = services.club_join(club_id=club.pk, user=carol)
    assert (membership.status, membership.role) == (Status.ACTIVE, Role.LEADER)
    assert services.club_join(club_id=club.pk, user=bob).status == Status.REQUESTED


def test_the_database_keeps_a_leader_a_member(alice: Any, bob: Any) -> None:
    club = found(alice)
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(
            club=club,
            user=bob,
            role=Role.LEADER,
            status=Status.REQUESTED,
            requested_at=timezone.now(),
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(
            club=club, user=alice, status=Status.ACTIVE, joined_at=timezone.now()
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(club=club, user=bob, status=Status.ACTIVE)  # joined when?


def test_an_unknown_club_is_refused(alice: Any) -> None:
    error = refused("no_club", lambda: services.club_join(club_id=999, user=alice))
    assert error.message == "There is no such club."


# --- an account closing --------------------------------------------------------------------------


def test_memberships_end_and_the_longest_standing_member_leads(
    alice: Any, bob: Any, carol: Any, dave: Any
) -> None:
    led = found(alice, "Alice's Own")
    member_of(led, carol)
    member_of(led, bob)  # after Carol: Carol has stood longest
    alone = found(alice, "Alone Club", policy=Policy.REQUEST)
    services.club_join(club_id=alone.pk, user=dave)
    shared = found(bob, "Bob's Club", policy=Policy.REQUEST)
    member_of(shared, alice)
    services.leader_appoint(club_id=shared.pk, member_id=alice.pk, by=bob)
    other = found(carol, "Carol's Club", policy=Policy.REQUEST)
    services.club_join(club_id=other.pk, user=alice)

    ended = services.memberships_end(user=alice)
    assert sorted(ended) == sorted([led.pk, alone.pk, shared.pk, other.pk])
    assert not Membership.objects.filter(user=alice).exists()
    assert roles(led) == {
        "Carol": (Status.ACTIVE, Role.LEADER),
        "Bob": (Status.ACTIVE, Role.MEMBER),
    }
    assert roles(alone) == {}  # left without members; Dave's request with it
    assert roles(shared) == {"Bob": (Status.ACTIVE, Role.LEADER)}
    assert roles(other) == {"Carol": (Status.ACTIVE, Role.LEADER)}
