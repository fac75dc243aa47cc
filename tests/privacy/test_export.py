"""The download: one JSON file with every kind of the player's own data, and nothing of anyone
else's hidden information or e-mail."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from history.selectors import game_export
from tables.models import Hand
from tests.privacy.conftest import World


def download(user: Any) -> Any:
    client = Client()
    client.force_login(user)
    return client, client.get("/profile/my-data/")


@pytest.mark.django_db
def test_the_download_holds_every_kind_of_data(world: World) -> None:
    alice = world.alice
    _client, response = download(alice)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    disposition = response["Content-Disposition"]
    assert disposition.startswith('attachment; filename="dominologist-Alice-')
    assert disposition.endswith('.json"')
    data = json.loads(response.content)
    assert data["format"] == "dominologist-personal-data" and data["version"] == 1
    account = data["account"]
    assert account["email"] == "alice@example.com"
    assert account["display_name"] == "Alice"
    assert account["date_of_birth"] == "1990-05-17"
    # games, with the game page's own export
    (game,) = data["games"]
    assert game["game"] == world.game.pk and game["seat"] == 0
    assert game["url"] == f"http://testserver/games/{world.game.pk}/"
    assert game["record"] == game_export(world.game, game["url"])
    # the ledger: the sign-up grant, the game, the tournament fee; balances
    reasons = {p["reason"] for p in data["ledger"]["postings"]}
    assert {"signup", "entry_fee"} <= reasons
    assert any(a["code"] == f"player:{alice.pk}:dollars" for a in data["ledger"]["accounts"])
    assert data["ratings"]["current"] and data["ratings"]["changes"]
    assert [m["text"] for m in data["chat"]["messages"]] == ["gg Bob"]
    (report,) = data["chat"]["reports_made"]
    assert report == {**report, "reported_player": "Bob", "reason": "rude"}
    assert [f["player"] for f in data["social"]["following"]] == ["Bob"]
    roles = sorted(c["role"] for c in data["social"]["challenges"])
    assert roles == ["received", "sent"]
    (workout,) = data["workouts_owed"]
    assert workout["amount"] == 20 and workout["game"] == world.game.pk
    (entry,) = data["tournaments"]["entries"]
    assert entry["name"] == "Friday Fives"
    assert [s["table"] for s in data["tables"]["seats_now"]] == [
        world.game.table_id,
        world.open_table.pk,
    ]
    assert "sessions" in data and "coach" in data and "quick_pairing" in data
    # puzzles: her rating and her two tries (the first rated, solved), not Bob's
    puzzles = data["puzzles"]
    assert puzzles["rating"]["first_tries"] == puzzles["rating"]["solved_first_try"] == 1
    assert puzzles["rating"]["rating"] > 1500
    assert [(t["choice"], t["solved"], t["rated"]) for t in puzzles["tries"]] == [
        (1, True, True),
        (0, False, False),
    ]


@pytest.mark.django_db
def test_the_download_holds_nothing_of_anyone_else(world: World) -> None:
    _client, response = download(world.alice)
    text = response.content.decode()
    # No other player's e-mail, and no staff or organizer's either.
    assert "bob@example.com" not in text
    assert "carol@example.com" not in text and "olga@example.com" not in text
    # Not Bob's chat lines, not what a report about Alice says, not the copy Alice's report kept.
    assert "Bob's own line" not in text
    assert "Bob's secret report" not in text and "Bob's reported line" not in text
    # Not who follows Alice: following someone tells them nothing.
    data = json.loads(text)
    assert "followers" not in json.dumps(data["social"])
    # No seed of a hand that was never dealt (committed for the next deal) - hidden information.
    pending = Hand.objects.filter(game=world.game, dealt_at=None)
    for hand in pending:
        assert hand.server_seed not in text


@pytest.mark.django_db
def test_a_game_in_progress_is_not_exported(alice: Any, bob: Any) -> None:
    """Only finished games: a hand in play never leaves the house in a download."""
    from tests.history.helpers import start_table

    table = start_table([alice, bob], "citizen")
    _client, response = download(alice)
    data = json.loads(response.content)
    assert data["games"] == []
    hand = Hand.objects.get(game__table=table, number=1)
    assert hand.server_seed not in response.content.decode()


@pytest.mark.django_db
def test_downloads_are_limited_per_hour(alice: Any, settings: Any) -> None:
    settings.DATA_EXPORTS_PER_HOUR = 2
    client = Client()
    client.force_login(alice)
    assert client.get("/profile/my-data/").status_code == 200
    assert client.get("/profile/my-data/").status_code == 200
    refused = client.get("/profile/my-data/", follow=True)
    assert refused.redirect_chain[-1][0].endswith(f"/players/{alice.pk}/")
    assert "downloaded your data 2 times in the last hour" in refused.content.decode()


@pytest.mark.django_db
def test_the_download_needs_a_log_in() -> None:
    response = Client().get("/profile/my-data/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "es"])
def test_the_account_page_offers_the_download_and_the_closing(alice: Any, language: str) -> None:
    client = Client()
    client.force_login(alice)
    client.cookies["django_language"] = language
    html = client.get(f"/players/{alice.pk}/").content.decode()
    assert 'href="/profile/my-data/"' in html and 'href="/profile/close/"' in html
    words = {"en": "Download my data", "es": "Descargar mis datos"}
    assert words[language] in html


@pytest.mark.django_db
def test_another_player_s_profile_offers_neither(alice: Any, bob: Any) -> None:
    client = Client()
    client.force_login(bob)
    html = client.get(f"/players/{alice.pk}/").content.decode()
    assert "/profile/my-data/" not in html and "/profile/close/" not in html
