"""The create-table form: only the choices the mode allows, every refusal explained on its field
(in Spanish too), and a form that works as well without the page's script."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from engine.rules import MODE_RULES, Mode
from tables.forms import TableForm, mode_rules_data
from tables.models import Table

pytestmark = pytest.mark.django_db
LOBBY = "/lobby/"


def create(client: Client, **fields: Any) -> Any:
    data = {"mode": "citizen", "shape": "one_on_one"}
    data.update(fields)
    return client.post(LOBBY, data)


def errors_of(response: Any) -> dict[str, list[str]]:
    assert response.status_code == 400
    assert not Table.objects.exists()
    return dict(response.context["form"].errors)


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        (
            {"mode": "fives", "shape": "cut_throat_3"},
            "shape",
            "Fives and Threes are played one on one, by two players.",
        ),
        (
            {"mode": "threes", "shape": "partners"},
            "shape",
            "Fives and Threes are played one on one, by two players.",
        ),
        (
            {"mode": "citizen_gym", "clock": 12, "clock_off": "on"},
            "clock",
            "Choose a turn clock or “No clock”, not both.",
        ),
        ({"mode": "inmate", "clock_off": "on"}, "clock", "Only Gym tables play on the clock."),
        ({"mode": "inmate", "get_on": 0}, "get_on", "Inmate tables get on with 10, 15 or 20."),
        (
            {"shape": "cut_throat_4", "deal": 9},
            "deal",
            "Four players can't be dealt 9 bones each: the set has only 28.",
        ),
    ],
)
def test_every_refusal_is_explained_on_its_field(
    client: Client, alice: Any, fields: dict[str, Any], field: str, words: str
) -> None:
    client.force_login(alice)
    assert words in errors_of(create(client, **fields))[field]


def test_refusals_are_in_spanish_for_a_spanish_player(client: Client, alice: Any) -> None:
    client.force_login(alice)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    shape = errors_of(create(client, mode="fives", shape="partners"))["shape"]
    assert shape == ["Cincos y Treses se juegan mano a mano, entre dos jugadores."]
    get_on = errors_of(create(client, mode="inmate", get_on=0))["get_on"]
    assert get_on == ["Las mesas Recluso entran al marcador con 10, 15 o 20."]
    clock = errors_of(create(client, mode="citizen_gym", clock=9, clock_off="on"))["clock"]
    assert clock == ["Elige un reloj por turno o «Sin reloj», no ambos."]


def test_an_unforeseen_engine_refusal_still_lands_on_its_field_translated(
    alice: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The form checks what a player can get wrong; should the engine refuse anything else, the
    player still reads why, in their language, not the engine's English."""
    from django.utils import translation

    from engine import SettingsError
    from tables import forms

    def refuse(mode: str, **options: Any) -> Any:
        raise SettingsError("count_by", "Citizen counts round to 5 or 10, not 7")

    monkeypatch.setattr(forms.TableSettings, "build", refuse)
    with translation.override("es"):
        form = TableForm({"mode": "citizen", "shape": "one_on_one"})
        assert not form.is_valid()
        assert form.errors["count_by"] == [
            "Una mesa Ciudadano no se puede preparar así: revisa este ajuste."
        ]


def test_fields_the_mode_does_not_use_may_be_left_out(client: Client, alice: Any) -> None:
    """The page's script disables what it hides, so those fields are not sent at all."""
    client.force_login(alice)
    response = create(client, mode="fives", limit=200)  # no deal, target or house fields
    table = Table.objects.get()
    assert response.status_code == 302
    assert (table.settings["target"], table.settings["set"]) == (200, "double-six")
    response = create(client, mode="citizen_gym", clock_off="on")  # no bone_set
    gym = Table.objects.get(mode="citizen_gym")
    assert response.status_code == 302 and gym.settings["clock"] is None
    assert (gym.settings["deal"], gym.settings["target"]) == (7, 150)


def test_the_form_groups_fields_by_mode_without_stale_help(client: Client, alice: Any) -> None:
    client.force_login(alice)
    page = client.get(LOBBY).content.decode()
    for group in ("house", "head_to_head", "gym"):
        assert f'<fieldset class="rule-group" data-rules-for="{group}">' in page
    assert "Citizen and Inmate tables, Gym or not" in page
    assert "Fives and Threes tables" in page and "Gym tables: the clock and the workout" in page
    for gone in ("Gym modes only", "Fives and Threes only.", "House modes.", "(house modes)"):
        assert gone not in page
    assert "One on one, the other player may claim the game." not in page
    # what the script offers per mode is the engine's own rules
    data = json.loads(re.search(r'id="mode-rules"[^>]*>(.*?)</script>', page, re.S).group(1))
    assert data == json.loads(json.dumps(mode_rules_data()))
    assert data["inmate"]["get_on"] == list(MODE_RULES[Mode.INMATE].get_on_allowed)
    assert data["fives"]["head_to_head"] and not data["citizen"]["head_to_head"]
    assert data["inmate"]["stake"] == "canteen" and data["citizen_gym"]["stake"] == "workout"
    # no inline script or style (the Content-Security-Policy allows neither)
    assert not re.search(r"<script(?![^>]*\b(?:src|type=\"application/json\"))", page)
    assert ' style="' not in page
