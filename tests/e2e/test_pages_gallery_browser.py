"""In a real browser: every page a player or a visitor sees, at the six standard sizes (360x640,
375x812, 390x844, 812x375, 1280x720, 1440x900) in English and Spanish. Each page scrolls no
sideways, its header is one row, nothing sticks out past the right edge, and every page shows
its own heading. Screenshots go to var/screenshots/gallery-*.png to look at.

The table page itself is measured more strictly (everything inside the viewport) in
test_table_fit_browser.py. The page layout does not depend on the stack: this runs on the
embedded default only (CI runs the suite on both stacks side by side, and time is short).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.urls import reverse

from clubs import services as clubs
from history.services import games_archive_pending
from social.presence import mark_online
from tests.e2e.conftest import screenshot
from tests.e2e.test_header_browser import SIZES, open_page
from tests.history.helpers import play, start_table
from tests.social.test_challenges import send
from tests.social.test_watch import play_now_table
from tests.tournaments.conftest import make_event
from tournaments.services import ORGANIZERS_GROUP

pytestmark = pytest.mark.skipif(
    bool(settings.DATABASE_URL), reason="page layout: checked once, on the embedded default"
)

#: What a page must not do at any size: scroll sideways, or put a visible element past the
#: right edge (but inside a box that scrolls or clips on its own, as wide tables are).
CHECK = """() => {
  const width = innerWidth;
  const boxed = (e) => {
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      if (["auto", "scroll", "hidden", "clip"].includes(getComputedStyle(p).overflowX)) return true;
    }
    return false;
  };
  const out = [...document.querySelectorAll("body *")].filter((e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.right > width + 1
      && !e.closest(".visually-hidden, .skip-link") && !boxed(e);
  }).map((e) => `${e.tagName}.${e.className}`).slice(0, 5);
  // text squeezed into a column a word or two wide: a long name beside it took the room
  const texts = document.querySelectorAll("main p, main dd, main td, main li");
  const squeezed = [...texts].filter((e) => {
    const r = e.getBoundingClientRect();
    return e.textContent.trim().length > 24 && r.width > 0 && r.width < 64 && r.height > 120;
  }).map((e) => `${e.tagName}: ${e.textContent.trim().slice(0, 30)}`).slice(0, 5);
  const bar = document.querySelector(".site-header");
  const header = bar ? bar.getBoundingClientRect().height : -1;
  const heading = document.querySelector("main h1, main h2");
  return {scroll: document.documentElement.scrollWidth, out, squeezed, header,
          heading: heading ? heading.textContent.trim() : ""};
}"""


def check(page: Any, name: str, language: str, width: int, height: int) -> None:
    seen = page.evaluate(CHECK)
    where = (name, language, width, height)
    assert seen["scroll"] <= width, (where, seen)
    assert not seen["out"], (where, seen)
    assert not seen["squeezed"], (where, seen)
    assert 0 < seen["header"] <= 68, (where, seen)  # one row: full or compact
    assert seen["heading"], (where, "no heading")
    screenshot(page, f"gallery-{name}-{language}-{width}x{height}")


def test_every_page_at_every_size(
    live_server_url: str, browser: Any, alice: Any, bob: Any, make_user: Any
) -> None:
    game = play(start_table([alice, bob], "fives", limit=50), [alice, bob], seed=6)
    games_archive_pending()
    carol, dave = make_user("Carol"), make_user("Dave")
    play_now_table([carol, dave])
    for user in (bob, carol, dave):
        mark_online(user.pk)
    olga = make_user("Olga")
    olga.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    event = make_event(olga)
    send(bob, alice)
    # A club Alice leads (a long name), with a member and a request waiting.
    club = clubs.club_found(
        user=alice, name="Los Tranques de la Esquina del Barrio", policy="request"
    )
    clubs.club_join(club_id=club.pk, user=carol)
    clubs.membership_approve(club_id=club.pk, member_id=carol.pk, by=alice)
    clubs.club_join(club_id=club.pk, user=dave)

    pages = {
        "home": "/",
        "lobby": reverse("tables:lobby"),
        "my-games": reverse("my_games"),
        "watch": reverse("social:watch"),
        "online": reverse("social:online"),
        "friends": reverse("social:friends"),
        "challenges": reverse("social:challenges"),
        "challenge-new": reverse("social:challenge_new", args=[bob.pk]),
        "locker": reverse("ledger:locker"),
        "commissary": reverse("ledger:commissary"),
        "tournaments": reverse("tournaments:list"),
        "tournament": reverse("tournaments:detail", args=[event.pk]),
        "clubs": reverse("clubs:list"),
        "club": club.get_absolute_url(),
        "leaderboards": reverse("ratings:leaderboard"),
        "leaderboard": reverse("ratings:pool", args=["fives"]),
        "profile": reverse("accounts:my_profile"),
        "player": reverse("accounts:profile", args=[bob.pk]),
        "profile-edit": reverse("accounts:profile_edit"),
        "close-account": reverse("privacy:close"),
        "password": reverse("account_change_password"),
        "game": reverse("history:game", args=[game.pk]),
        "rules": reverse("rules"),
    }
    visitor = {
        "visitor-home": "/",
        "login": reverse("account_login"),
        "signup": reverse("account_signup"),
        "password-reset": reverse("account_reset_password"),
        "visitor-rules": reverse("rules"),
    }
    for language in ("en", "es"):
        for width, height in SIZES:
            for user, seen in ((alice, pages), (None, visitor)):
                page = open_page(browser, live_server_url, user, (width, height), language)
                for name, url in seen.items():
                    page.goto(live_server_url + url)
                    check(page, name, language, width, height)
                page.context.close()
