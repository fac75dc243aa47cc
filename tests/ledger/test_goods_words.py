"""Commissary goods in words carry no emoji (a box on a device without an emoji font): amounts
say the good's name only, wherever they reach a player (a canteen bet's stake and pot, the
locker's entries, a challenge's terms, a refusal); pages draw the good's icon beside the words."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from ledger import selectors, services
from ledger.models import Good
from ledger.services import StakeSpec, good_unit
from social.models import Challenge
from social.terms import challenge_terms
from tests.ledger.helpers import give, open_table, start

pytestmark = pytest.mark.django_db

#: Emoji: anything outside the Basic Multilingual Plane, the BMP's symbol blocks (☕ ✉) and the
#: variation selector that asks for an emoji picture.
EMOJI = re.compile("[\U00010000-\U0010ffff\u2600-\u27bf\ufe0f]")


def no_emoji(text: str) -> None:
    assert not EMOJI.search(text), EMOJI.findall(text)


def main_of(html: str) -> str:
    return html[html.index("<main") : html.index("</main>")]


@pytest.fixture
def canteen_table(alice: Any, bob: Any, warden: Any, soup: Good, coffee: Good) -> Any:
    for player in (alice, bob):
        give(player, good_unit(soup.pk), 4, warden)
        give(player, good_unit(coffee.pk), 2, warden)
    return open_table(
        [alice, bob], mode="inmate", stake=StakeSpec(bundle=((soup.pk, 2), (coffee.pk, 1)))
    )


def test_every_catalogue_good_is_named_without_its_emoji() -> None:
    goods = list(Good.objects.all())
    assert goods and any(EMOJI.search(g.icon) for g in goods)  # the catalogue keeps its emoji
    for good in goods:
        assert str(good) == good.name
        with translation.override("es"):
            assert str(good) == (good.name_es or good.name)


@pytest.mark.parametrize("language", ["en", "es"])
def test_a_canteen_bets_stake_and_pot_are_words_only(
    canteen_table: Any, alice: Any, bob: Any, language: str
) -> None:
    with translation.override(language):
        stake = selectors.stake_view(canteen_table)
        times = "\N{MULTIPLICATION SIGN}"
        soup = "Soup" if language == "en" else Good.objects.get(name="Soup").label
        assert stake.text.startswith(f"2 {times} {soup}")
        for text in (stake.text, stake.needed_text, stake.skunk_text, stake.pot_text(2)):
            no_emoji(text)
        assert [good is not None for good, _text in stake.parts] == [True, True]
        start(canteen_table, [alice, bob])
        pot = selectors.pot_text(canteen_table)
        assert pot and times in pot
        no_emoji(pot)


def test_the_lobby_and_the_table_draw_the_goods(
    client: Client, canteen_table: Any, alice: Any
) -> None:
    client.force_login(alice)
    rows = client.get("/lobby/tables/").content.decode()
    no_emoji(rows)
    assert rows.count('class="good-icon"') >= 2  # soup and coffee, in the stake chip
    page = client.get(canteen_table.get_absolute_url()).content.decode()
    panel = page[page.index('id="stake-panel"') :]
    panel = panel[: panel.index("</section>")]
    no_emoji(panel)
    assert panel.count('class="good-icon"') == 2 and "Soup" in panel


def test_the_lockers_entries_draw_the_goods(
    client: Client, canteen_table: Any, alice: Any, bob: Any
) -> None:
    start(canteen_table, [alice, bob])  # the stakes go into the pot: two entries of goods
    client.force_login(alice)
    html = main_of(client.get(reverse("ledger:locker")).content.decode())
    no_emoji(html)
    changes = re.findall(r'<ul class="changes">(.*?)</ul>', html, re.S)
    held = [c for c in changes if "Soup" in c]
    assert held and all('class="good-icon"' in c for c in held)


def test_a_challenges_terms_and_a_refusal_are_words_only(
    alice: Any, bob: Any, soup: Good, coffee: Good
) -> None:
    challenge = Challenge(
        challenger=alice,
        challenged=bob,
        mode="inmate",
        options={"players": 2},
        stake_bundle=[[soup.pk, 2], [coffee.pk, 1]],
    )
    terms = " · ".join(challenge_terms(challenge))
    assert "Soup" in terms
    no_emoji(terms)
    with pytest.raises(services.NotCovered) as refused:
        open_table([alice], mode="inmate", stake=StakeSpec(bundle=((soup.pk, 10),)))
    assert "Soup" in refused.value.message
    no_emoji(refused.value.message)
