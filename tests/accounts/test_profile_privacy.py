"""Who sees a profile: each player chooses (everyone, signed-in players, nobody but them), signed-in
players by default; the player and staff always do. A refused profile says why, and no more."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.models import ProfileVisibility, User

pytestmark = pytest.mark.django_db

SHOWN = {
    # visibility: which viewers see the profile
    ProfileVisibility.EVERYONE: {"anonymous", "player", "owner", "staff"},
    ProfileVisibility.PLAYERS: {"player", "owner", "staff"},
    ProfileVisibility.ONLY_ME: {"owner", "staff"},
}


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    with translation.override("en"):
        yield


def viewer_client(who: str, owner: User, other: User, staff: User) -> Client:
    client = Client()
    logged_in = {"player": other, "owner": owner, "staff": staff}.get(who)
    if logged_in is not None:
        client.force_login(logged_in)
    return client


def test_new_players_show_their_profile_to_signed_in_players(alice: User) -> None:
    assert alice.profile_visibility == ProfileVisibility.PLAYERS


@pytest.mark.parametrize("visibility", list(SHOWN))
@pytest.mark.parametrize("who", ["anonymous", "player", "owner", "staff"])
def test_every_visibility_and_viewer(
    visibility: str, who: str, alice: User, bob: User, warden: User
) -> None:
    alice.profile_visibility = visibility
    alice.save()
    client = viewer_client(who, alice, bob, warden)
    response = client.get(reverse("accounts:profile", args=[alice.pk]))
    html = response.content.decode()
    if who in SHOWN[visibility]:
        assert response.status_code == 200
        assert "<h1>Alice</h1>" in html
    else:
        assert response.status_code == 403
        assert "This profile is not shown to you" in html
        assert "Alice" not in html  # not even the name behind the id
        if visibility == ProfileVisibility.PLAYERS:
            assert "signed-in players only" in html
            login = reverse("account_login")
            assert f'href="{login}?next=/players/{alice.pk}/"' in html.replace("%2F", "/")
        else:
            assert "keeps their profile to themselves" in html
    assert alice.profile_visible_to(_user(who, alice, bob, warden)) == (who in SHOWN[visibility])


def _user(who: str, alice: User, bob: User, warden: User) -> Any:
    from django.contrib.auth.models import AnonymousUser

    return {"player": bob, "owner": alice, "staff": warden}.get(who, AnonymousUser())


def test_the_player_chooses_on_the_profile_form(client: Client, alice: User, bob: User) -> None:
    client.force_login(alice)
    form = client.get(reverse("accounts:profile_edit")).content.decode()
    assert "Who sees my profile" in form
    for value in ("everyone", "players", "only_me"):
        assert f'type="radio" name="profile_visibility" value="{value}"' in form
    data = {"display_name": "Alice", "time_zone": "UTC", "language": "en"}
    response = client.post(
        reverse("accounts:profile_edit"), {**data, "profile_visibility": "only_me"}
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.profile_visibility == ProfileVisibility.ONLY_ME
    mine = client.get(reverse("accounts:profile", args=[alice.pk])).content.decode()
    assert "Nobody but me" in mine
    bobs = Client()
    bobs.force_login(bob)
    assert bobs.get(reverse("accounts:profile", args=[alice.pk])).status_code == 403
    # An unknown choice is refused and changes nothing; a form without the field keeps it.
    bad = client.post(reverse("accounts:profile_edit"), {**data, "profile_visibility": "friends"})
    assert bad.status_code == 400 and "Select a valid choice" in bad.content.decode()
    client.post(reverse("accounts:profile_edit"), {**data, "display_name": "Alicia"})
    alice.refresh_from_db()
    assert (alice.display_name, alice.profile_visibility) == ("Alicia", ProfileVisibility.ONLY_ME)


def test_a_profile_that_does_not_exist_is_not_found(client: Client, warden: User) -> None:
    client.force_login(warden)
    assert client.get(reverse("accounts:profile", args=[999_999])).status_code == 404
