"""Spanish everywhere: every main page, rendered in Spanish, shows none of the catalog's English.

The catalog test (test_site.py) proves every marked string has a translation; this one proves
the pages use them. Each page is rendered with the language cookie "es", its visible text (and
titles, labels, placeholders) taken out of the HTML, and every English phrase the catalog knows
(a msgid of three or more words whose Spanish differs, split at its placeholders) must be absent.
A string a page shows without marking it, or marks but renders before the language is set, or
an English refusal from the engine, fails here with its phrase and page.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import cache
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import polib
import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from house import services as house
from tables import services as tables
from tests.history.helpers import play, start_table

CATALOG = Path(__file__).resolve().parents[2] / "locale" / "es" / "LC_MESSAGES" / "django.po"
PLACEHOLDER = re.compile(r"%\(\w+\)[sdr]|%[sd]|\{\w*\}|<[^>]*>")
WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")


@cache
def english_phrases() -> frozenset[str]:
    """The English pieces (3+ words) of every catalog entry whose Spanish differs."""
    po = polib.pofile(str(CATALOG))
    spanish = " ".join(
        " ".join([e.msgstr, *e.msgstr_plural.values()]) for e in po if e.translated()
    )
    spanish = " ".join(spanish.split())
    phrases = set()
    for entry in po:
        if not entry.translated():
            continue
        translations = [entry.msgstr, *entry.msgstr_plural.values()]
        for msgid in filter(None, (entry.msgid, entry.msgid_plural)):
            if msgid in translations:
                continue  # the same in both languages (a name)
            for piece in PLACEHOLDER.split(" ".join(msgid.split())):
                piece = piece.strip(" .,:;()\"'“”")
                if len(WORD.findall(piece)) >= 3 and piece not in spanish:
                    phrases.add(piece)
    return frozenset(phrases)


class _Text(HTMLParser):
    """What a reader sees or hears: text outside <script>/<style>, and the attributes shown as
    text (titles, labels, placeholders, alt texts)."""

    SHOWN = ("title", "aria-label", "placeholder", "alt", "data-default-label")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.hidden += 1
        for name, value in attrs:
            if name in self.SHOWN and value:
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self.hidden:
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(unescape(" ".join(parser.parts)).split())


#: Words Spanish never uses (no Spanish message of the catalog has one): a page showing one shows
#: English the catalog does not know yet (a string nobody marked, or marked after makemessages).
ENGLISH_ONLY = frozenset(
    [
        "the",
        "your",
        "you",
        "with",
        "this",
        "that",
        "and",
        "is",
        "are",
        "of",
        "for",
        "when",
        "what",
        "who",
        "have",
        "will",
        "from",
        "which",
        "there",
        "their",
        "they",
        "it's",
        "can't",
        "don't",
        "won't",
        "isn't",
        "only",
        "been",
        "by",
        "at",
        "or",
        "to",
        "be",
        "it",
    ]
)


def english_in(html: str) -> list[str]:
    """The catalog's English phrases on the page, and any English-only word (in context)."""
    text = visible_text(html)
    found = sorted(p for p in english_phrases() if p in text)
    for match in re.finditer(r"[\w'/.@-]+", text):  # "Europe/Isle_of_Man" is one word
        if match.group().strip(".").lower() in ENGLISH_ONLY:
            found.append("…" + text[max(0, match.start() - 30) : match.end() + 30] + "…")
    return found


def test_the_check_finds_english() -> None:
    """The check itself: English catalog phrases are found, their Spanish passes."""
    assert "Live dominoes for play money" in english_phrases()
    assert english_in("<p>Pull up a chair. The bones are washed.</p>")
    assert english_in('<a title="Read the house rules">x</a>')
    assert not english_in("<script>const a = 'Read the house rules';</script>")
    assert english_in("<p>Only Gym tables play on the clock.</p>")
    assert english_in("<p>A string nobody marked for translation</p>")
    assert not english_in("<p>Acerca una silla. Las fichas están lavadas.</p>")


@pytest.fixture
def world(make_user: Any, alice: User, bob: User) -> dict[str, Any]:
    """Something on every page: open and practice tables, a finished game, an event."""
    from django.contrib.auth.models import Group

    from tournaments import services as tournament_services
    from tournaments.models import ORGANIZERS_GROUP

    carol = make_user("Carol")
    finished = start_table([alice, bob], mode="fives", limit=50)
    game = play(finished, [alice, bob], seed=3)
    open_table = tables.table_create(host=bob, mode="citizen", players=3)
    tables.seat_take(table_id=open_table.pk, user=carol, number=1)
    practice = house.practice_start(user=alice, mode="citizen", level="shark", players=2)
    organizer = make_user("Olga")
    organizer.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    now = timezone.now()
    event = tournament_services.tournament_create(
        organizer=organizer,
        name="Viernes de Fives",
        description="Rápido.",
        rules_text="Fives a 50.",
        mode="fives",
        table_options={"players": 2, "limit": 50},
        format="single",
        swiss_rounds=None,
        best_of=1,
        fee_kind="free",
        fee_dollars=0,
        fee_canteen={},
        prize_split=[100],
        max_entrants=8,
        registration_opens=now - dt.timedelta(minutes=1),
        registration_closes=now + dt.timedelta(minutes=10),
        starts_at=now + dt.timedelta(minutes=20),
        checkin_minutes=15,
        round_minutes=0,
        noshow_minutes=3,
        seeding="random",
    )
    event = tournament_services.tournament_publish(tournament_id=event.pk, by=organizer)
    tournament_services.entry_register(tournament_id=event.pk, user=bob)
    bot = User.objects.exclude(house_level="").first()
    return {
        "game": game,
        "open": open_table,
        "practice": practice,
        "event": event,
        "bot": bot,
    }


def spanish(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    return client


def get(client: Client, url: str, **data: Any) -> str:
    response = client.get(url, data, HTTP_HOST="localhost")
    assert response.status_code == 200, (url, response.status_code)
    html = response.content.decode()
    assert '<html lang="es">' in html or url.startswith("/lobby/tables/"), url
    return html


@pytest.mark.django_db
def test_every_main_page_is_spanish(client: Client, alice: User, world: dict[str, Any]) -> None:
    anonymous = spanish(Client())
    pages: dict[str, str] = {}
    for name in ("home", "rules", "account_login", "account_signup", "account_reset_password"):
        pages[f"{name} (logged out)"] = get(anonymous, reverse(name))
    pages["password reset sent"] = get(anonymous, reverse("account_reset_password_done"))
    refused_login = anonymous.post(
        reverse("account_login"), {"login": "nobody@example.com", "password": "x"}
    )
    pages["log-in refused"] = refused_login.content.decode()

    spanish(client).force_login(alice)
    urls = {
        "home": reverse("home"),
        "my games": reverse("my_games"),
        "lobby": reverse("tables:lobby"),
        "lobby list": reverse("tables:lobby_tables"),
        "open table": world["open"].get_absolute_url(),
        "practice table": world["practice"].get_absolute_url(),
        "finished game": reverse("history:game", args=[world["game"].pk]),
        "my profile": reverse("accounts:profile", args=[alice.pk]),
        "house player's profile": reverse("accounts:profile", args=[world["bot"].pk]),
        "profile edit": reverse("accounts:profile_edit"),
        "leaderboard": reverse("ratings:pool", args=["fives"]),
        "tournaments": reverse("tournaments:list"),
        "tournament": reverse("tournaments:detail", args=[world["event"].pk]),
        "locker": reverse("ledger:locker"),
        "commissary": reverse("ledger:commissary"),
        "log out": reverse("account_logout"),
        "password change": reverse("account_change_password"),
        "e-mail addresses": reverse("account_email"),
    }
    for name, url in urls.items():
        pages[name] = get(client, url)
    for fields in (
        {"mode": "fives", "shape": "partners", "limit": 40},
        {"mode": "inmate", "shape": "partners", "deal": 9, "get_on": 0, "target": 150},
        {"mode": "citizen_gym", "shape": "one_on_one", "clock": 12, "clock_off": "on"},
        {"mode": "citizen", "shape": "one_on_one", "clock": 12, "deal": 7, "target": 150},
    ):
        response = client.post(reverse("tables:lobby"), fields, HTTP_HOST="localhost")
        assert response.status_code == 400
        pages[f"create form refused {fields}"] = response.content.decode()
    refused_practice = client.post(
        reverse("house:practice"),
        {"practice-mode": "fives", "practice-shape": "partners", "practice-level": "shark"},
    )
    pages["practice refused"] = refused_practice.content.decode()

    found = {name: english_in(html) for name, html in pages.items()}
    english = [f"{name}: {phrases}" for name, phrases in found.items() if phrases]
    assert not english, "English on Spanish pages:\n" + "\n".join(english)


@pytest.mark.django_db
def test_house_players_are_labelled_in_spanish(
    client: Client, alice: User, world: dict[str, Any]
) -> None:
    bot = world["bot"]
    assert bot.display_name.endswith("(house)")
    spanish(client).force_login(alice)
    for url in (
        reverse("home"),
        reverse("accounts:profile", args=[bot.pk]),
        world["practice"].get_absolute_url(),
    ):
        text = visible_text(get(client, url))
        assert "(house)" not in text, url
    home = visible_text(get(client, reverse("home")))
    assert "(de la casa)" in home
