"""Small things from the site review: no emoji for pictures (a box without an emoji font), the
Spanish for "no bones left" agrees with "fichas"."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from house import services as house
from ledger.models import Good

pytestmark = pytest.mark.django_db

EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf]")


def test_commissary_goods_are_drawn_not_emoji(client: Client, alice: Any) -> None:
    assert Good.objects.exists()  # the opening catalogue
    client.force_login(alice)
    html = client.get(reverse("ledger:commissary")).content.decode()
    assert html.count('class="good-icon"') == Good.objects.count()
    main = html[html.index("<main") : html.index("</main>")]
    assert not EMOJI.search(main), EMOJI.findall(main)


def test_the_review_marks_a_hint_with_a_drawing() -> None:
    script = (settings.BASE_DIR / "static" / "js" / "coach.js").read_text()
    assert "💡" not in script and "bulbIcon()" in script


def test_no_bones_left_is_ninguna_in_spanish(client: Client, alice: Any) -> None:
    table = house.practice_start(user=alice, mode="fives", level="rookie", players=2)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    client.force_login(alice)
    html = client.get(table.get_absolute_url()).content.decode()
    raw = html.split('id="table-strings">', 1)[1].split("</script>", 1)[0]
    strings = json.loads(raw)
    assert strings["summary_no_bones"] == "Ninguna"
    assert strings["summary_bones_left"] == "Fichas restantes"
