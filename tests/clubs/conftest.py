"""Clubs fixtures: English answers, more named players, clubs ready made, and the notices each
test's services send after commit."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from accounts.models import User
from clubs import services
from clubs.models import Club, Policy


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    with translation.override("en"):
        yield


@pytest.fixture
def carol(make_user: Callable[..., User]) -> User:
    return make_user("Carol")


@pytest.fixture
def dave(make_user: Callable[..., User]) -> User:
    return make_user("Dave")


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str, dict[str, Any]]]:
    """The notices sent (user id, kind, data), as they leave after commit."""
    from social import notices

    out: list[tuple[int, str, dict[str, Any]]] = []

    def record(messages: list[tuple[str, dict[str, Any]]]) -> None:
        for group, message in messages:
            assert message["type"] == "notice.send"
            out.append((int(group.split(".")[1]), message["kind"], message["data"]))

    monkeypatch.setattr(notices, "group_send_many", record)
    return out


def found(leader: User, name: str = "Los Tranques", policy: str = Policy.OPEN) -> Club:
    return services.club_found(
        user=leader, name=name, description="We play on Fridays.", policy=policy
    )


def member_of(club: Club, *users: User) -> None:
    """Each player in the club as a plain member (asked and approved if need be)."""
    for user in users:
        membership = services.club_join(club_id=club.pk, user=user)
        if membership.status == membership.Status.REQUESTED:
            leader = club.memberships.filter(role="leader", status="active").first()
            assert leader is not None
            services.membership_approve(club_id=club.pk, member_id=user.pk, by=leader.user)


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client
