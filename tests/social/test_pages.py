"""Social pages: online now (friends first), friends, profile buttons, the challenge form (the
create-table form's checks), the card a notice fetches, answers by form and by script."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from house.services import house_player_get
from ledger.services import DOLLARS
from social import presence, services
from social.models import Challenge, ChallengesFrom, Follow
from tables.models import Table
from tests.ledger.helpers import give, take_all

FORM = {"mode": "citizen", "shape": "one_on_one", "deal": "7", "target": "150", "stake": "0"}


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_online_now_lists_friends_first_and_not_me(alice: Any, bob: Any, make_user: Any) -> None:
    carol, dave, eve = make_user("Carol"), make_user("Dave"), make_user("Eve")
    for user in (alice, bob, carol, dave):
        presence.mark_online(user.pk)
    services.follow(follower=alice, followed=dave)
    page = logged_in(alice).get(reverse("social:online"))
    assert page.status_code == 200
    names = [row.user.display_name for row in page.context["players"]]
    assert names == ["Dave", "Bob", "Carol"]  # the friend first, then by name; no Eve, no Alice
    shown = text(page)
    assert "3 players online now, besides you" in shown
    assert reverse("social:challenge_new", args=[dave.pk]) in shown
    assert eve.display_name not in shown
    # Whoever would refuse Alice's challenge says so instead of offering the button.
    services.challenges_from_set(user=carol, value=ChallengesFrom.NOBODY)
    services.challenges_from_set(user=bob, value=ChallengesFrom.FRIENDS)
    shown = text(logged_in(alice).get(reverse("social:online")))
    assert "Carol doesn't take challenges." in shown
    assert "Bob takes challenges only from players they follow." in shown
    assert reverse("social:challenge_new", args=[bob.pk]) not in shown
    assert reverse("social:challenge_new", args=[dave.pk]) in shown
    services.follow(follower=bob, followed=alice)  # Bob follows Alice: she may challenge him
    shown = text(logged_in(alice).get(reverse("social:online")))
    assert reverse("social:challenge_new", args=[bob.pk]) in shown
    profile = text(logged_in(alice).get(reverse("accounts:profile", args=[carol.pk])))
    assert "Carol doesn't take challenges." in profile
    assert reverse("social:challenge_new", args=[carol.pk]) not in profile


@pytest.mark.django_db
def test_profile_buttons_follow_and_unfollow(alice: Any, bob: Any) -> None:
    client = logged_in(alice)
    profile = reverse("accounts:profile", args=[bob.pk])
    page = text(client.get(profile))
    assert reverse("social:challenge_new", args=[bob.pk]) in page and ">Follow<" in page
    response = client.post(reverse("social:follow", args=[bob.pk]), {"next": profile})
    assert response.status_code == 302 and response["Location"] == profile
    assert Follow.objects.filter(follower=alice, followed=bob).exists()
    page = text(client.get(profile))
    assert ">Unfollow<" in page and "You follow Bob" in page
    friends = text(client.get(reverse("social:friends")))
    assert "Bob" in friends
    client.post(reverse("social:follow", args=[bob.pk]), {"follow": "0"})
    assert not Follow.objects.exists()
    # My own profile has links, no buttons; a house player's has neither.
    assert ">Follow<" not in text(client.get(reverse("accounts:profile", args=[alice.pk])))
    shark = house_player_get(level="shark")
    house_page = text(client.get(reverse("accounts:profile", args=[shark.pk])))
    assert reverse("social:challenge_new", args=[shark.pk]) not in house_page


@pytest.mark.django_db
def test_the_challenge_form_checks_like_the_create_form(alice: Any, bob: Any) -> None:
    client = logged_in(alice)
    url = reverse("social:challenge_new", args=[bob.pk])
    assert client.get(url).status_code == 200
    bad = client.post(url, {**FORM, "mode": "fives", "shape": "partners"})
    assert bad.status_code == 400
    assert "Fives and Threes are played one on one" in text(bad)
    assert not Challenge.objects.exists()
    response = client.post(url, {**FORM, "private": "on", "casual": "on"})
    challenge = Challenge.objects.get()
    assert response["Location"] == reverse("social:challenge", args=[challenge.pk])
    assert challenge.options["target"] == 150 and challenge.private and not challenge.rated
    page = text(client.get(response["Location"]))
    assert "Waiting for Bob to answer" in page and "Withdraw the challenge" in page
    assert "casual (not rated)" in page


@pytest.mark.django_db
def test_a_refusal_is_said_on_the_form(alice: Any, bob: Any, warden: Any) -> None:
    client = logged_in(alice)
    url = reverse("social:challenge_new", args=[bob.pk])
    services.challenges_from_set(user=bob, value=ChallengesFrom.NOBODY)
    page = client.get(url)
    assert page.status_code == 409 and "Bob doesn't take challenges." in text(page)
    services.challenges_from_set(user=bob, value=ChallengesFrom.EVERYONE)
    take_all(alice, DOLLARS, warden)
    give(alice, DOLLARS, 5, warden)
    response = client.post(url, {**FORM, "stake": "50"})
    assert "Alice needs 100 Dollars to sit here" in text(response)  # her own: said
    assert not Challenge.objects.exists()


@pytest.mark.django_db
def test_the_card_and_answers_by_script_and_by_form(alice: Any, bob: Any, make_user: Any) -> None:
    challenge = services.challenge_send(
        challenger=alice, challenged=bob, mode="citizen", options={"players": 2}
    )
    card_url = reverse("social:challenge_card", args=[challenge.pk])
    card = text(logged_in(bob).get(card_url + "?next=/lobby/"))
    assert "Alice challenges you" in card and "Citizen" in card and 'role="alertdialog"' in card
    assert reverse("social:challenge_accept", args=[challenge.pk]) in card
    assert logged_in(make_user("Carol")).get(card_url).status_code == 404  # nobody else's
    # Alice may not accept her own, by script: a JSON refusal.
    refused = logged_in(alice).post(
        reverse("social:challenge_accept", args=[challenge.pk]), HTTP_X_REQUESTED_WITH="fetch"
    )
    assert refused.status_code == 409
    assert refused.json()["message"] == "Only the challenged player can answer this challenge."
    accepted = logged_in(bob).post(
        reverse("social:challenge_accept", args=[challenge.pk]), HTTP_X_REQUESTED_WITH="fetch"
    )
    table = Table.objects.get()
    assert accepted.json() == {"ok": True, "url": table.get_absolute_url()}
    # By form, a second press: back to the list, which says why.
    bobs = logged_in(bob)
    again = bobs.post(reverse("social:challenge_accept", args=[challenge.pk]))
    assert again.status_code == 302
    page = text(bobs.get(again["Location"]))
    declined = services.challenge_send(
        challenger=alice, challenged=bob, mode="citizen", options={"players": 2}
    )
    services.challenge_decline(challenge_id=declined.pk, user=bob)
    told = text(logged_in(alice).get(reverse("social:challenge_card", args=[declined.pk])))
    assert "Bob declined your challenge" in told
    assert reverse("social:challenge_new", args=[bob.pk]) in told  # "Challenge again"
    assert "This challenge was already accepted." in page


@pytest.mark.django_db
def test_the_challenges_page_lists_each_side(alice: Any, bob: Any) -> None:
    services.challenge_send(
        challenger=alice, challenged=bob, mode="citizen", options={"players": 2}
    )
    page = logged_in(bob).get(reverse("social:challenges"))
    assert len(page.context["received"]) == 1 and not page.context["sent"]
    mine = logged_in(alice).get(reverse("social:challenges"))
    assert len(mine.context["sent"]) == 1 and not mine.context["received"]


@pytest.mark.django_db
def test_the_preference_page(bob: Any) -> None:
    client = logged_in(bob)
    url = reverse("social:preference")
    assert client.get(url).status_code == 200
    assert client.post(url, {"challenges_from": "anyone"}).status_code == 400
    assert client.post(url, {"challenges_from": "friends"}).status_code == 302
    assert services.challenges_from(bob) == ChallengesFrom.FRIENDS


@pytest.mark.django_db
def test_the_social_pages_speak_spanish_and_run_no_inline_code(
    alice: Any, bob: Any, make_user: Any
) -> None:
    from django.conf import settings

    from tests.site.test_headers import inline_code
    from tests.site.test_spanish_pages import english_in

    presence.mark_online(bob.pk)
    services.follow(follower=alice, followed=bob)
    received = services.challenge_send(
        challenger=bob, challenged=alice, mode="citizen_gym", options={"players": 2, "clock": 15}
    )
    sent = services.challenge_send(
        challenger=alice, challenged=make_user("Carol"), mode="fives", options={"players": 2}
    )
    client = logged_in(alice)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    pages = {
        "online": reverse("social:online"),
        "friends": reverse("social:friends"),
        "challenges": reverse("social:challenges"),
        "challenge received": reverse("social:challenge", args=[received.pk]),
        "challenge sent": reverse("social:challenge", args=[sent.pk]),
        "card": reverse("social:challenge_card", args=[received.pk]),
        "form": reverse("social:challenge_new", args=[bob.pk]),
        "preference": reverse("social:preference"),
        "profile": reverse("accounts:profile", args=[bob.pk]),
    }
    for name, url in pages.items():
        response = client.get(url, HTTP_HOST="localhost")
        assert response.status_code == 200, (name, response.status_code)
        page = response.content.decode()
        assert english_in(page) == [], (name, english_in(page))
        assert inline_code(page) == [], (name, inline_code(page))
    card = text(client.get(pages["card"], HTTP_HOST="localhost"))
    assert "Bob te desafía" in card and "Aceptar" in card and "Gimnasio" in card


@pytest.mark.django_db
def test_a_failed_challenge_tells_the_challenger_only_that_it_failed(
    alice: Any, bob: Any, warden: Any
) -> None:
    take_all(bob, DOLLARS, warden)
    client = logged_in(alice)
    response = client.post(reverse("social:challenge_new", args=[bob.pk]), {**FORM, "stake": "50"})
    challenge = Challenge.objects.get()
    assert response["Location"] == reverse("social:challenge", args=[challenge.pk])
    with pytest.raises(services.SocialError):
        services.challenge_accept(challenge_id=challenge.pk, user=bob)
    card_url = reverse("social:challenge_card", args=[challenge.pk])
    card = text(client.get(card_url))
    assert "Bob could not be seated at this table." in card and "cover" not in card
    assert "Bob can't cover this table's stake." in text(logged_in(bob).get(card_url))
