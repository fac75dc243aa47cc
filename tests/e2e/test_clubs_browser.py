"""In a real browser: Alice founds a club by request, Bob asks to join, Alice is told on the page
she has open and approves, Bob is told and sees himself a member. Alice on a desktop, Bob on a
phone; each page is also pictured at the other size (var/screenshots/clubs-*.png)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from clubs.models import Club, Membership
from tests.e2e.conftest import WIDTHS, log_in, screenshot


def no_sideways_scroll(page: Any) -> None:
    # The header fits itself to a new width on the next animation frame after the resize
    # (static/js/menu.js): wait for the frame after that before measuring.
    page.evaluate(
        "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0


def both_sizes(page: Any, name: str) -> None:
    """A picture of the page at the phone and the desktop size, checked for sideways scroll."""
    for width, (w, h) in WIDTHS.items():
        page.set_viewport_size({"width": w, "height": h})
        no_sideways_scroll(page)
        screenshot(page, f"clubs-{name}-{width}")


def test_a_club_by_request_from_founding_to_a_new_member(
    live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    url = live_server_url
    leader = new_page("desktop")
    log_in(leader, url, alice)
    player = new_page("phone")
    log_in(player, url, bob)

    # Alice founds the club from the list's form (Enter sends it).
    leader.goto(url + "/clubs/")
    leader.get_by_role("link", name="Clubs", exact=True).wait_for()  # in the site's navigation
    summary = leader.locator("#found summary")  # the form folds away: opened by keyboard
    summary.focus()
    leader.keyboard.press("Enter")
    leader.get_by_label("Club name").fill("Los Tranques")
    leader.get_by_label("About the club").fill("Fives on Friday nights, all levels welcome.")
    leader.get_by_label("By request: a leader approves each new member").check()
    leader.get_by_label("Club name").press("Enter")
    leader.wait_for_url(url + "/clubs/los-tranques/")
    expect(leader.get_by_text("You founded Los Tranques: you are its leader.")).to_be_visible()
    club = Club.objects.get()
    assert club.policy == "request"
    both_sizes(leader, "leader-founded")
    leader.set_viewport_size({"width": 1440, "height": 900})
    leader.wait_for_function("() => window.noticesReady === true")

    # Bob finds it in the list and asks to join, by keyboard.
    player.goto(url + "/clubs/")
    expect(player.locator("#club-list")).to_contain_text("1 member")
    both_sizes(player, "list")
    player.set_viewport_size({"width": 375, "height": 812})
    player.get_by_role("link", name="Los Tranques").click()
    player.wait_for_url(url + "/clubs/los-tranques/")
    ask = player.get_by_role("button", name="Ask to join")
    ask.focus()
    player.keyboard.press("Enter")
    expect(
        player.get_by_text("You asked to join Los Tranques: its leaders will answer.")
    ).to_be_visible()
    assert Membership.objects.get(user=bob).status == "requested"
    player.wait_for_function("() => window.noticesReady === true")

    # Alice's open page is told, with the answers in the card: she approves there.
    card = leader.locator(f"#notices [data-notice='club-{club.pk}-request-{bob.pk}']")
    expect(card).to_contain_text("Bob asks to join the club.")
    screenshot(leader, "clubs-leader-request-card-desktop", full_page=False)
    leader.set_viewport_size({"width": 375, "height": 812})
    screenshot(leader, "clubs-leader-request-card-phone", full_page=False)
    leader.set_viewport_size({"width": 1440, "height": 900})
    card.get_by_role("button", name="Approve").click()
    # The card was on the club's own page: it loads again, Bob among the members.
    expect(leader.locator("#members")).to_contain_text("Bob")
    expect(leader.locator("#requests")).to_have_count(0)
    assert Membership.objects.get(user=bob).status == "active"
    both_sizes(leader, "leader")

    # Bob is told on the page he has open, and sees himself a member.
    joined = player.locator(f"#notices [data-notice='club-{club.pk}-joined']")
    expect(joined).to_contain_text("A leader let you in: you are a member of the club now.")
    screenshot(player, "clubs-member-joined-card-phone", full_page=False)
    joined.get_by_role("button", name="Close").click()
    player.reload()
    expect(player.get_by_text("You are a member since")).to_be_visible()
    expect(player.locator("#members")).to_contain_text("Bob")
    expect(player.get_by_role("button", name="Leave the club")).to_be_visible()
    both_sizes(player, "member")
