"""Challenges: who may challenge whom, the stake, expiry, answers, and one table per accept."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import AgeStatus
from house.services import house_player_get
from ledger.services import DOLLARS, NotCovered, StakeSpec
from social import services
from social.models import Challenge, ChallengesFrom
from social.services import SocialError
from tables.models import Seat, Table
from tests.concurrency import at_once
from tests.ledger.helpers import give, take_all

ONE_ON_ONE = {"players": 2, "partners": False, "deal": 7, "target": 150}


def send(challenger: Any, challenged: Any, **kwargs: Any) -> Challenge:
    return services.challenge_send(
        challenger=challenger,
        challenged=challenged,
        mode=kwargs.pop("mode", "citizen"),
        options=kwargs.pop("options", ONE_ON_ONE),
        **kwargs,
    )


def refused(call: Callable[[], Any]) -> SocialError:
    with pytest.raises(SocialError) as caught:
        call()
    return caught.value


# --- who may challenge whom -----------------------------------------------------------------------


@pytest.mark.django_db
def test_no_challenging_yourself_or_a_house_player(alice: Any) -> None:
    assert refused(lambda: send(alice, alice)).code == "challenge_self"
    shark = house_player_get(level="shark")
    error = refused(lambda: send(alice, shark))
    assert error.code == "house_player" and "Practice" in error.message
    assert not Challenge.objects.exists()


@pytest.mark.django_db
def test_the_preference_nobody_friends_everyone(alice: Any, bob: Any) -> None:
    services.challenges_from_set(user=bob, value=ChallengesFrom.NOBODY)
    error = refused(lambda: send(alice, bob))
    assert (error.code, error.message) == ("refuses_all", "Bob doesn't take challenges.")

    services.challenges_from_set(user=bob, value=ChallengesFrom.FRIENDS)
    error = refused(lambda: send(alice, bob))
    assert error.code == "refuses_strangers"
    assert error.message == "Bob takes challenges only from players they follow."
    services.follow(follower=alice, followed=bob)  # Alice following Bob is not enough
    assert refused(lambda: send(alice, bob)).code == "refuses_strangers"
    services.follow(follower=bob, followed=alice)  # Bob follows Alice: she is his friend
    assert send(alice, bob).status == Challenge.Status.PENDING

    services.challenges_from_set(user=bob, value=ChallengesFrom.EVERYONE)
    carol = alice.__class__.objects.create_user(
        "carol@example.com",
        "x-long-password-1",
        display_name="Carol",
        date_of_birth=dt.date(1990, 1, 1),
    )
    assert send(carol, bob).status == Challenge.Status.PENDING


@pytest.mark.django_db
def test_an_unknown_preference_is_refused(bob: Any) -> None:
    assert (
        refused(lambda: services.challenges_from_set(user=bob, value="some")).code == "bad_choice"
    )
    assert services.challenges_from(bob) == ChallengesFrom.EVERYONE


@pytest.mark.django_db
def test_a_player_who_may_not_play_is_unavailable_without_saying_why(alice: Any, bob: Any) -> None:
    bob.age_status = AgeStatus.SUSPENDED
    bob.save()
    error = refused(lambda: send(alice, bob))
    assert error.code == "unavailable" and "suspended" not in error.message


@pytest.mark.django_db
def test_one_waiting_challenge_per_player_and_a_few_at_once(
    alice: Any, make_user: Callable[..., Any]
) -> None:
    others = [make_user(f"Player{i}") for i in range(services.MAX_PENDING_SENT + 1)]
    send(alice, others[0])
    assert refused(lambda: send(alice, others[0])).code == "already_pending"
    for other in others[1 : services.MAX_PENDING_SENT]:
        send(alice, other)
    assert refused(lambda: send(alice, others[-1])).code == "too_many"
    # An expired one no longer counts.
    Challenge.objects.filter(challenged=others[0]).update(expires_at=timezone.now())
    send(alice, others[-1])
    assert refused(lambda: send(alice, others[0])).code == "too_many"  # five waiting again


# --- the stake ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_sending_says_nothing_about_whether_the_challenged_can_cover(
    alice: Any,
    bob: Any,
    make_user: Callable[..., Any],
    warden: Any,
    sent: list[Any],
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Bob can't cover twice 30 Dollars, Carol can: a challenge to either is sent alike (else
    halving the stake would find Bob's balance). Bob finds out when he accepts; Alice only that
    he could not be seated."""
    carol = make_user("Carol")
    take_all(bob, DOLLARS, warden)
    give(bob, DOLLARS, 59, warden)  # twice the stake is 60 at a house table
    with django_capture_on_commit_callbacks(execute=True):
        to_bob = send(alice, bob, stake=StakeSpec(dollars=30))
        to_carol = send(alice, carol, stake=StakeSpec(dollars=30))
    assert to_bob.status == to_carol.status == Challenge.Status.PENDING
    assert [(k, sorted(d)) for _u, k, d in sent] == [
        ("challenge", ["card_url", "challenge", "expires_at", "from"])
    ] * 2
    assert not Table.objects.exists()
    error = refused(lambda: services.challenge_accept(challenge_id=to_bob.pk, user=bob))
    assert error.code == "cannot_cover" and "Bob needs 60 Dollars" in error.message
    table = services.challenge_accept(challenge_id=to_carol.pk, user=carol)
    assert {s.number: s.user_id for s in Seat.objects.filter(table=table)} == {
        0: alice.pk,
        1: carol.pk,
    }
    to_bob.refresh_from_db()
    assert (to_bob.status, to_bob.failure) == ("failed", "cannot_cover")


@pytest.mark.django_db
def test_how_often_one_player_may_send_challenges(
    alice: Any, bob: Any, make_user: Callable[..., Any]
) -> None:
    others = [make_user(f"Player{i}") for i in range(services.SENDS_PER_MINUTE)]
    # to one player: withdrawn and sent again, five times in ten minutes
    for _ in range(services.SENDS_TO_ONE_PER_10_MINUTES):
        services.challenge_withdraw(challenge_id=send(alice, bob).pk, user=alice)
    error = refused(lambda: send(alice, bob))
    assert error.code == "challenge_rate"
    assert (
        error.message == "You have challenged Bob often lately: wait a few minutes and try again."
    )
    # in all: ten a minute, refused ones counted too (the sixth to Bob above was one)
    for other in others[: services.SENDS_PER_MINUTE - services.SENDS_TO_ONE_PER_10_MINUTES - 1]:
        services.challenge_withdraw(challenge_id=send(alice, other).pk, user=alice)
    error = refused(lambda: send(alice, others[-1]))
    assert error.code == "challenge_rate"
    assert error.message == "You are sending challenges too fast: wait a minute and try again."
    assert Challenge.objects.filter(challenged=others[-1]).count() == 0
    # others are not held back by Alice's sending
    assert send(bob, alice).status == Challenge.Status.PENDING


@pytest.mark.django_db
def test_the_challenger_must_cover_the_stake(alice: Any, bob: Any, warden: Any) -> None:
    take_all(alice, DOLLARS, warden)
    give(alice, DOLLARS, 10, warden)
    with pytest.raises(NotCovered, match="Alice needs 20 Dollars"):
        send(alice, bob, stake=StakeSpec(dollars=10))
    assert not Table.objects.exists() and not Challenge.objects.exists()


@pytest.mark.django_db
def test_a_stake_no_longer_covered_at_accept_fails_and_both_are_told(
    alice: Any, bob: Any, warden: Any, sent: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    take_all(bob, DOLLARS, warden)
    give(bob, DOLLARS, 60, warden)
    challenge = send(alice, bob, stake=StakeSpec(dollars=30))
    give(bob, DOLLARS, -1, warden)  # spent elsewhere meanwhile
    with django_capture_on_commit_callbacks(execute=True):
        error = refused(lambda: services.challenge_accept(challenge_id=challenge.pk, user=bob))
    assert error.code == "cannot_cover"
    challenge.refresh_from_db()
    assert (challenge.status, challenge.failure, challenge.table) == (
        "failed",
        "cannot_cover",
        None,
    )
    assert not Table.objects.exists()
    assert [(u, k) for u, k, _d in sent] == [
        (alice.pk, "challenge_failed"),
        (bob.pk, "challenge_closed"),
    ]


# --- answers --------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_accept_seats_both_at_a_new_table_the_challenger_hosts(
    alice: Any, bob: Any, sent: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        challenge = send(alice, bob, mode="fives", options={"players": 2, "limit": 100})
    assert [(u, k) for u, k, _d in sent] == [(bob.pk, "challenge")]
    notice = sent[0][2]
    assert notice["challenge"] == challenge.pk and notice["from"] == "Alice"
    assert notice["expires_at"] == int(challenge.expires_at.timestamp() * 1000)
    assert challenge.expires_at - challenge.created_at == dt.timedelta(seconds=120)
    sent.clear()

    with django_capture_on_commit_callbacks(execute=True):
        table = services.challenge_accept(challenge_id=challenge.pk, user=bob)
    assert table.host == alice and table.mode == "fives" and table.private
    assert table.settings["limit"] == 100
    seats = {s.number: s.user_id for s in Seat.objects.filter(table=table)}
    assert seats == {0: alice.pk, 1: bob.pk}
    challenge.refresh_from_db()
    assert (challenge.status, challenge.table_id) == ("accepted", table.pk)
    assert sorted((u, k) for u, k, _d in sent) == sorted(
        [(alice.pk, "challenge_accepted"), (bob.pk, "challenge_accepted")]
    )
    assert all(d["url"] == table.get_absolute_url() for _u, _k, d in sent)


@pytest.mark.django_db
def test_a_casual_challenge_opens_a_casual_table(alice: Any, bob: Any) -> None:
    rated = services.challenge_accept(challenge_id=send(alice, bob).pk, user=bob)
    casual = services.challenge_accept(challenge_id=send(alice, bob, rated=False).pk, user=bob)
    assert rated.rated and not casual.rated


@pytest.mark.django_db
def test_only_the_challenged_accepts_and_only_once(alice: Any, bob: Any) -> None:
    challenge = send(alice, bob)
    error = refused(lambda: services.challenge_accept(challenge_id=challenge.pk, user=alice))
    assert error.message == "Only the challenged player can answer this challenge."
    services.challenge_accept(challenge_id=challenge.pk, user=bob)
    again = refused(lambda: services.challenge_accept(challenge_id=challenge.pk, user=bob))
    assert again.message == "This challenge was already accepted."
    assert Table.objects.count() == 1
    assert refused(
        lambda: services.challenge_decline(challenge_id=challenge.pk, user=bob)
    ).code == ("challenge_accepted")


@pytest.mark.django_db
def test_a_stranger_cannot_see_or_answer_it(alice: Any, bob: Any, make_user: Any) -> None:
    challenge = send(alice, bob)
    carol = make_user("Carol")
    for answer in (
        services.challenge_accept,
        services.challenge_decline,
        services.challenge_withdraw,
    ):
        error = refused(lambda answer=answer: answer(challenge_id=challenge.pk, user=carol))
        assert error.code == "no_challenge"


@pytest.mark.django_db
def test_decline_and_withdraw_tell_the_other_side(
    alice: Any, bob: Any, sent: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    first = send(alice, bob)
    with django_capture_on_commit_callbacks(execute=True):
        services.challenge_decline(challenge_id=first.pk, user=bob)
    assert [(u, k) for u, k, _d in sent] == [
        (alice.pk, "challenge_declined"),
        (bob.pk, "challenge_closed"),
    ]
    error = refused(lambda: services.challenge_accept(challenge_id=first.pk, user=bob))
    assert error.message == "This challenge was declined."

    sent.clear()
    second = send(alice, bob)  # a declined one does not block the next
    assert refused(
        lambda: services.challenge_withdraw(challenge_id=second.pk, user=bob)
    ).message == ("Only the player who sent this challenge can withdraw it.")
    with django_capture_on_commit_callbacks(execute=True):
        services.challenge_withdraw(challenge_id=second.pk, user=alice)
    assert [(u, k) for u, k, _d in sent] == [(bob.pk, "challenge_closed")]
    error = refused(lambda: services.challenge_accept(challenge_id=second.pk, user=bob))
    assert error.message == "This challenge was withdrawn."
    assert not Table.objects.exists()


# --- expiry ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_challenge_expires_after_two_minutes(alice: Any, bob: Any) -> None:
    start = timezone.now()
    challenge = send(alice, bob, now=start)
    late = start + dt.timedelta(seconds=services.CHALLENGE_SECONDS)
    error = refused(
        lambda: services.challenge_accept(challenge_id=challenge.pk, user=bob, now=late)
    )
    assert error.code == "challenge_expired"
    assert "expired" in error.message
    assert not Table.objects.exists()
    # Still marked pending until read: the rule is the deadline, not the row.
    challenge.refresh_from_db()
    assert challenge.status == "pending"
    assert services.challenges_expire(now=late) == 1
    challenge.refresh_from_db()
    assert challenge.status == "expired"


@pytest.mark.django_db
def test_a_second_before_the_deadline_still_counts(alice: Any, bob: Any) -> None:
    start = timezone.now()
    challenge = send(alice, bob, now=start)
    just = start + dt.timedelta(seconds=services.CHALLENGE_SECONDS - 1)
    table = services.challenge_accept(challenge_id=challenge.pk, user=bob, now=just)
    assert table.seats.get(number=1).user == bob


# --- follows --------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_follow_and_unfollow(alice: Any, bob: Any) -> None:
    assert services.follow(follower=alice, followed=bob) is True
    assert services.follow(follower=alice, followed=bob) is False  # once
    assert services.is_following(alice.pk, bob.pk) and not services.is_following(bob.pk, alice.pk)
    assert services.unfollow(follower=alice, followed=bob) is True
    assert services.unfollow(follower=alice, followed=bob) is False
    assert refused(lambda: services.follow(follower=alice, followed=alice)).code == "follow_self"
    shark = house_player_get(level="shark")
    assert refused(lambda: services.follow(follower=alice, followed=shark)).code == "house_player"


# --- a double accept, really at once --------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_double_accept_at_once_seats_once(alice: Any, bob: Any) -> None:
    for _round in range(3):
        number = send(alice, bob).pk

        def accept(number: int = number) -> Table:
            return services.challenge_accept(challenge_id=number, user=bob)

        results = at_once(accept, accept)
        tables = [r for r in results if isinstance(r, Table)]
        errors = [r for r in results if not isinstance(r, Table)]
        assert len(tables) == 1, results
        assert len(errors) == 1 and isinstance(errors[0], SocialError), results
        assert errors[0].code == "challenge_accepted"
        assert Challenge.objects.get(pk=number).table_id == tables[0].pk
    assert Table.objects.count() == 3
