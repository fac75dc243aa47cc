"""Club pages: the list (search, founding with every refusal on its field), a club's page as a
visitor, a member, a player asking and a leader sees it, the leaders' buttons and edit page, the
notice cards, the site's navigation, admin, and the pages in Spanish."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.conf import settings
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from clubs import services
from clubs.models import Club, Membership, Policy, Role, Status
from tests.clubs.conftest import found, logged_in, member_of

pytestmark = pytest.mark.django_db

LIST = "/clubs/"


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


def field_errors(page: str, field: str) -> list[str]:
    """The words shown on one field, in its role=alert wrapper."""
    found_ = re.search(
        rf'<div class="field-errors" id="id_{field}_error" role="alert"><ul class="errorlist">'
        r"(.*?)</ul></div>",
        page,
        re.S,
    )
    return re.findall(r"<li>(.*?)</li>", found_.group(1)) if found_ else []


def said(response: Any) -> list[str]:
    """The message this request added (earlier ones wait in the cookie until a page shows
    them: these tests follow no redirect)."""
    return [str(m) for m in get_messages(response.wsgi_request)][-1:]


# --- the list ------------------------------------------------------------------------------------


def test_the_list_shows_clubs_most_members_first(alice: Any, bob: Any, carol: Any) -> None:
    small = found(alice, "Small Club")
    big = found(bob, "Big Club", policy=Policy.REQUEST)
    member_of(big, carol)
    page = logged_in(carol).get(LIST)
    assert page.status_code == 200
    rows = page.context["rows"]
    assert [(r.club, r.members, r.mine) for r in rows] == [
        (big, 2, "member"),
        (small, 1, ""),
    ]
    shown = text(page)
    assert "2 members" in shown and "1 member" in shown
    assert "Open" in shown and "By request" in shown
    assert shown.index("Big Club") < shown.index("Small Club")
    assert "Your clubs" in shown  # Carol's own, first
    assert 'role="search"' in shown


def test_the_search_finds_by_name_whatever_the_capitals(alice: Any, bob: Any) -> None:
    found(alice, "Los Tranques")
    found(bob, "Domino Kings")
    page = logged_in(alice).get(LIST, {"q": "TRAN"})
    assert [r.club.name for r in page.context["rows"]] == ["Los Tranques"]
    assert "Clubs whose name holds “TRAN”" in text(page)
    nothing = logged_in(alice).get(LIST, {"q": "zzz"})
    assert nothing.status_code == 200 and "No club's name holds “zzz”." in text(nothing)


def test_founding_a_club_leads_to_its_page(alice: Any) -> None:
    client = logged_in(alice)
    response = client.post(
        LIST, {"name": "Los Tranques", "description": "Fridays.", "policy": "request"}
    )
    club = Club.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/clubs/{club.slug}/"
    assert said(response) == ["You founded Los Tranques: you are its leader."]
    assert club.policy == Policy.REQUEST and club.description == "Fridays."
    page = text(client.get(response["Location"]))
    assert "You are one of its leaders" in page and "Edit the club" in page


def test_founding_refusals_are_shown_on_their_fields(alice: Any, bob: Any) -> None:
    found(bob, "Los Tranques")
    client = logged_in(alice)
    response = client.post(LIST, {"name": "", "description": "", "policy": "open"})
    assert response.status_code == 400
    page = response.content.decode()
    assert field_errors(page, "name") == ["This field is required."]
    assert 'class="form-errors" role="alert"' in page
    taken = client.post(LIST, {"name": "los tranques", "policy": "open"})
    assert taken.status_code == 400
    assert field_errors(text(taken), "name") == [
        "There is already a club called los tranques: choose another name."
    ]
    bad_name = client.post(LIST, {"name": "!!!", "policy": "open"})
    assert bad_name.status_code == 400
    assert field_errors(text(bad_name), "name") == [
        "A club's name needs at least one letter or digit."
    ]
    bad_policy = client.post(LIST, {"name": "Good Name", "policy": "secret"})
    assert bad_policy.status_code == 400
    assert field_errors(text(bad_policy), "policy") == [
        "Select a valid choice. secret is not one of the available choices."
    ]
    assert Club.objects.count() == 1
    # The list is shown around the refused form.
    assert "Los Tranques" in text(taken)


def test_the_founding_limit_is_said_on_the_form(alice: Any) -> None:
    for name in ("One Club", "Two Club", "Three Club"):
        found(alice, name)
    response = logged_in(alice).post(LIST, {"name": "Four Club", "policy": "open"})
    assert response.status_code == 400
    assert "You have founded 3 clubs: that is as many as one player may found." in text(response)


def test_pages_need_a_log_in(alice: Any) -> None:
    club = found(alice)
    for url in (LIST, club.get_absolute_url()):
        response = Client().get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert Client().post(reverse("clubs:join", args=[club.slug])).status_code == 302
    assert not Membership.objects.exclude(user=alice).exists()


# --- a club's page -------------------------------------------------------------------------------


def test_the_page_offers_what_each_player_may_do(alice: Any, bob: Any, carol: Any) -> None:
    club = found(alice, policy=Policy.REQUEST)
    page = text(logged_in(bob).get(club.get_absolute_url()))
    assert "Ask to join" in page and "Join the club" not in page
    assert "Los Tranques" in page and "We play on Fridays." in page
    assert "1 player is in the club now · 1 of them leads it" in page
    response = logged_in(bob).post(reverse("clubs:join", args=[club.slug]))
    assert response.status_code == 302
    assert said(response) == ["You asked to join Los Tranques: its leaders will answer."]
    page = text(logged_in(bob).get(club.get_absolute_url()))
    assert "You asked to join on" in page and "Withdraw the request" in page
    assert "Approve" not in page  # only leaders see who asks
    # The leader sees the request, with its buttons.
    page = text(logged_in(alice).get(club.get_absolute_url()))
    assert "1 player is waiting for a leader's answer" in page
    assert reverse("clubs:approve", args=[club.slug, bob.pk]) in page
    assert reverse("clubs:decline", args=[club.slug, bob.pk]) in page
    assert "1 asking to join" in page
    # An open club: Join.
    services.club_update(club_id=club.pk, by=alice, description="", policy=Policy.OPEN)
    assert "Join the club" in text(logged_in(carol).get(club.get_absolute_url()))


def test_a_leader_approves_by_the_button(alice: Any, bob: Any, carol: Any) -> None:
    club = found(alice, policy=Policy.REQUEST)
    services.club_join(club_id=club.pk, user=bob)
    # Not a leader: refused, in words, and nothing changes.
    response = logged_in(carol).post(reverse("clubs:approve", args=[club.slug, bob.pk]))
    assert response.status_code == 302
    assert said(response) == ["Only the club's leaders can do that."]
    assert Membership.objects.get(user=bob).status == Status.REQUESTED
    response = logged_in(alice).post(reverse("clubs:approve", args=[club.slug, bob.pk]))
    assert response["Location"] == club.get_absolute_url()
    assert said(response) == ["Bob is a member now."]
    page = text(logged_in(bob).get(club.get_absolute_url()))
    assert "You are a member since" in page and "Leave the club" in page
    # Twice: said, not done twice.
    again = logged_in(alice).post(reverse("clubs:approve", args=[club.slug, bob.pk]))
    assert said(again) == ["Bob is already a member: another leader let them in."]


def test_leaders_buttons_appoint_remove_and_decline(alice: Any, bob: Any, carol: Any) -> None:
    club = found(alice, policy=Policy.REQUEST)
    member_of(club, bob)
    services.club_join(club_id=club.pk, user=carol)
    leader = logged_in(alice)
    page = text(leader.get(club.get_absolute_url()))
    assert reverse("clubs:appoint", args=[club.slug, bob.pk]) in page
    assert 'Make a leader<span class="visually-hidden">: Bob</span>' in page
    assert "You are the club's only leader: make another member a leader" in page
    assert reverse("clubs:leave", args=[club.slug]) not in page
    said_ = said(leader.post(reverse("clubs:decline", args=[club.slug, carol.pk])))
    assert said_ == ["You declined Carol's request."]
    assert said(leader.post(reverse("clubs:appoint", args=[club.slug, bob.pk]))) == [
        "Bob is a leader now."
    ]
    assert reverse("clubs:leave", args=[club.slug]) in text(leader.get(club.get_absolute_url()))
    assert said(leader.post(reverse("clubs:remove", args=[club.slug, bob.pk]))) == [
        "Bob is no longer a member."
    ]
    assert list(Membership.objects.values_list("user__display_name", "role")) == [
        ("Alice", Role.LEADER)
    ]
    # A member's page has none of these buttons.
    member_of(club, carol)
    page = text(logged_in(carol).get(club.get_absolute_url()))
    assert "/appoint/" not in page and "/remove/" not in page and "Edit the club" not in page


def test_the_last_leader_is_told_why_they_cannot_leave(alice: Any, bob: Any) -> None:
    club = found(alice)
    member_of(club, bob)
    response = logged_in(alice).post(reverse("clubs:leave", args=[club.slug]))
    assert said(response) == [
        "You are the club's only leader: make another member a leader before you leave."
    ]
    response = logged_in(bob).post(reverse("clubs:leave", args=[club.slug]))
    assert said(response) == ["You left Los Tranques."]


def test_an_empty_club_says_whoever_joins_leads_it(alice: Any, bob: Any) -> None:
    club = found(alice, policy=Policy.REQUEST)
    logged_in(alice).post(reverse("clubs:leave", args=[club.slug]))
    page = text(logged_in(bob).get(club.get_absolute_url()))
    assert "The club has no members now: whoever joins it first becomes its leader." in page
    assert "0 players are in the club now" in page
    response = logged_in(bob).post(reverse("clubs:join", args=[club.slug]))
    assert said(response) == ["You joined Los Tranques. It had no members: you are its leader."]


def test_an_unknown_club_is_not_found(alice: Any) -> None:
    client = logged_in(alice)
    assert client.get("/clubs/nothing-here/").status_code == 404
    assert client.post("/clubs/nothing-here/join/").status_code == 404
    club = found(alice)
    assert client.post(f"/clubs/{club.slug}/members/999/approve/").status_code == 404
    assert client.get(reverse("clubs:join", args=[club.slug])).status_code == 405


# --- editing -------------------------------------------------------------------------------------


def test_leaders_edit_and_refusals_show_on_their_fields(alice: Any, bob: Any) -> None:
    club = found(alice)
    member_of(club, bob)
    edit = reverse("clubs:edit", args=[club.slug])
    response = logged_in(bob).get(edit)
    assert response.status_code == 302 and said(response) == [
        "Only the club's leaders can do that."
    ]
    leader = logged_in(alice)
    page = leader.get(edit)
    assert page.status_code == 200 and "We play on Fridays." in text(page)
    bad = leader.post(edit, {"description": "x" * 2001, "policy": "nobody"})
    assert bad.status_code == 400
    assert field_errors(text(bad), "description") == [
        "Ensure this value has at most 2000 characters (it has 2001)."
    ]
    assert field_errors(text(bad), "policy") == [
        "Select a valid choice. nobody is not one of the available choices."
    ]
    response = leader.post(edit, {"description": "Thursdays now.", "policy": "request"})
    assert response.status_code == 302 and said(response) == ["The club is saved."]
    club.refresh_from_db()
    assert (club.description, club.policy) == ("Thursdays now.", Policy.REQUEST)


# --- notice cards --------------------------------------------------------------------------------


def test_the_request_card_is_for_leaders_while_the_request_waits(
    alice: Any, bob: Any, carol: Any
) -> None:
    club = found(alice, policy=Policy.REQUEST)
    card = reverse("clubs:notice_card", args=[club.slug])
    asking = {"about": "request", "player": bob.pk, "next": "/rules/"}
    assert logged_in(alice).get(card, asking).status_code == 204  # no request yet
    services.club_join(club_id=club.pk, user=bob)
    response = logged_in(alice).get(card, asking)
    assert response.status_code == 200
    shown = text(response)
    assert f'data-notice="club-{club.pk}-request-{bob.pk}"' in shown
    assert "Bob asks to join the club." in shown
    assert 'role="alertdialog"' in shown and "data-close" in shown
    assert reverse("clubs:approve", args=[club.slug, bob.pk]) in shown and "data-answer" in shown
    assert 'name="next" value="/rules/"' in shown
    services.club_join(club_id=club.pk, user=carol)
    assert "2 players are waiting for a leader's answer." in text(
        logged_in(alice).get(card, asking)
    )
    assert logged_in(carol).get(card, asking).status_code == 204  # not a leader
    assert logged_in(bob).get(card, {"about": "joined"}).status_code == 204  # not in yet
    services.membership_approve(club_id=club.pk, member_id=bob.pk, by=alice)
    assert logged_in(alice).get(card, asking).status_code == 204  # answered
    joined = logged_in(bob).get(card, {"about": "joined"})
    assert joined.status_code == 200
    assert "A leader let you in: you are a member of the club now." in text(joined)
    assert logged_in(bob).get(card, {"about": "other"}).status_code == 204


def test_the_card_s_answers_get_json(alice: Any, bob: Any, carol: Any, dave: Any) -> None:
    club = found(alice, policy=Policy.REQUEST)
    for player in (bob, carol, dave):
        services.club_join(club_id=club.pk, user=player)
    leader = logged_in(alice)
    fetch = {"HTTP_X_REQUESTED_WITH": "fetch"}
    # A card on another page: it closes.
    response = leader.post(
        reverse("clubs:approve", args=[club.slug, bob.pk]), {"next": "/rules/"}, **fetch
    )
    assert response.status_code == 200 and response.json() == {"ok": True}
    # A card on the club's own page: the page loads again.
    response = leader.post(
        reverse("clubs:decline", args=[club.slug, carol.pk]),
        {"next": club.get_absolute_url()},
        **fetch,
    )
    assert response.json() == {"ok": True, "url": club.get_absolute_url()}
    # Somewhere else entirely: not followed.
    response = leader.post(
        reverse("clubs:approve", args=[club.slug, dave.pk]),
        {"next": "https://evil.example/"},
        **fetch,
    )
    assert response.json() == {"ok": True}
    # A refusal: its words, 409.
    response = logged_in(bob).post(reverse("clubs:approve", args=[club.slug, dave.pk]), **fetch)
    assert response.status_code == 409
    assert response.json() == {
        "ok": False,
        "code": "not_leader",
        "message": "Only the club's leaders can do that.",
    }
    statuses = dict(Membership.objects.values_list("user__display_name", "status"))
    assert statuses == {"Alice": "active", "Bob": "active", "Dave": "active"}


# --- the site around the pages -------------------------------------------------------------------


def test_the_navigation_lists_clubs_after_tournaments(alice: Any) -> None:
    page = logged_in(alice).get("/").content.decode()
    nav = page[page.index('class="site-nav"') : page.index("</nav>")]
    assert nav.index(reverse("tournaments:list")) < nav.index(LIST)
    clubs_page = logged_in(alice).get(LIST).content.decode()
    assert f'<a href="{LIST}" aria-current="page">Clubs</a>' in clubs_page


def test_admin_lists_and_searches_clubs_and_memberships(
    client: Client, warden: Any, alice: Any, bob: Any
) -> None:
    club = found(alice)
    member_of(club, bob)
    client.force_login(warden)
    changelist = client.get(reverse("admin:clubs_club_changelist"), {"q": "tranq"})
    assert changelist.status_code == 200 and "Los Tranques" in text(changelist)
    memberships = client.get(reverse("admin:clubs_membership_changelist"), {"q": "Bob"})
    assert memberships.status_code == 200 and "Bob" in text(memberships)
    assert client.get(reverse("admin:clubs_club_change", args=[club.pk])).status_code == 200
    assert client.get(reverse("admin:clubs_club_add")).status_code == 403  # read-only


@pytest.mark.parametrize("language", ["en", "es"])
def test_every_club_page_renders_in_both_languages(
    alice: Any, bob: Any, carol: Any, language: str
) -> None:
    club = found(alice, policy=Policy.REQUEST)
    member_of(club, carol)
    services.club_join(club_id=club.pk, user=bob)
    client = logged_in(alice)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    urls = [
        LIST,
        f"{LIST}?q=tran",
        club.get_absolute_url(),
        f"{club.get_absolute_url()}?pool=fives",
        reverse("clubs:edit", args=[club.slug]),
        f"{reverse('clubs:notice_card', args=[club.slug])}?about=request&player={bob.pk}",
    ]
    for url in urls:
        response = client.get(url, HTTP_HOST="localhost")
        assert response.status_code == 200, url
        if not url.startswith(reverse("clubs:notice_card", args=[club.slug])):
            assert f'<html lang="{language}">' in response.content.decode(), url
    refused = client.post(LIST, {"name": "", "policy": "open"}, HTTP_HOST="localhost")
    assert refused.status_code == 400
    assert f'<html lang="{language}">' in refused.content.decode()
    if language == "es":  # strings already in the catalogue, and Django's own
        page = text(client.get(LIST, HTTP_HOST="localhost"))
        assert "Buscar" in page or "Guardar" in page or "Clasificaciones" in page
        assert "Este campo es obligatorio." in text(refused)
