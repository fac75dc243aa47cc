"""The plain-text export: the whole game, hand by hand, with the values that prove each deal."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from history.selectors import game_replay
from tables.models import GameAction, Hand
from tests.history.helpers import play, start_table


@pytest.mark.django_db
def test_the_export_holds_the_whole_game(four: list[Any]) -> None:
    players = four
    table = start_table(players, "citizen", partners=True)
    game = play(table, players, seed=11)
    client = Client()
    client.force_login(players[1])
    response = client.get(f"/games/{game.pk}/export.txt")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert f"dominologist-game-{game.pk}.txt" in response["Content-Disposition"]
    text = response.content.decode()
    lines = text.splitlines()
    assert lines[0] == f"Dominologist: game {game.pk} at table {table.pk} (Citizen)"
    assert lines[1] == f"http://testserver/games/{game.pk}/"
    for seat, user in enumerate(players):
        assert f"  Seat {seat}: {user.display_name}" in lines
    winner = game.result["winner"]
    names = {0: "Alice & Carol", 1: "Bob & Dave"}
    assert f"{names[winner]} wins the game!" in lines
    scores = game.state["scores"]
    assert f"Scores: Alice & Carol {scores[0]}, Bob & Dave {scores[1]}" in lines
    # Every dealt hand: its number, commitment, seed, washes and deal.
    dealt = list(Hand.objects.filter(game=game, dealt_at__isnull=False).order_by("number"))
    replay = game_replay(game)
    for row, hand in zip(dealt, replay.hands, strict=True):
        assert f"Hand {row.number}" in lines
        assert f"  Commitment (SHA-256 of the seed): {row.commitment}" in lines
        assert f"  Seed: {row.server_seed}" in lines
        for seat, value in row.contributions.items():
            name = players[int(seat)].display_name
            assert f"  Wash by {name} (seat {seat}): {value}" in lines
        for seat, bones in enumerate(hand.dealt):
            assert f"  {players[seat].display_name} was dealt: {' '.join(bones)}" in lines
    # One numbered line per play: every action that is not a deal.
    numbered = [line for line in lines if line[:6].strip().rstrip(".").isdigit()]
    assert len(numbered) == GameAction.objects.filter(game=game).exclude(kind="deal").count()
    # The undealt, committed hand is not in it.
    pending = Hand.objects.get(game=game, dealt_at=None)
    assert pending.server_seed not in text and pending.commitment not in text


@pytest.mark.django_db
def test_the_export_speaks_spanish(alice: Any, bob: Any) -> None:
    table = start_table([alice, bob], "citizen")
    game = play(table, [alice, bob], seed=2)
    client = Client()
    client.force_login(alice)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    text = client.get(f"/games/{game.pk}/export.txt").content.decode()
    assert "Semilla:" in text and "Seed:" not in text
    html = client.get(f"/games/{game.pk}/").content.decode()
    assert "Verificar este reparto" in html


@pytest.mark.django_db
def test_the_chart_keeps_its_decimal_points_in_spanish(alice: Any, bob: Any) -> None:
    """SVG coordinates are numbers for the browser, not for the reader: never "12,5"."""
    import re

    table = start_table([alice, bob], "citizen")
    game = play(table, [alice, bob], seed=9)
    client = Client()
    client.force_login(alice)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    html = client.get(f"/games/{game.pk}/").content.decode()
    svg = html[
        html.index('<svg viewBox="0 0 640 240"') : html.index("</svg>", html.index("chart-svg"))
    ]
    coordinates = re.findall(r'\b(?:x|y|x1|x2|y1|y2|cx|cy|points)="([^"]*)"', svg)
    assert coordinates
    assert not any("," in c and " " not in c for c in coordinates), coordinates
    assert all(re.fullmatch(r"[\d.]+(,[\d.]+)?( [\d.]+,[\d.]+)*", c) for c in coordinates)
