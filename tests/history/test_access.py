"""Who may open a game: players and staff always; other logged-in adults unless the table was
private. The profile lists only the games its viewer may open."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client

from accounts.models import AgeStatus
from tests.history.helpers import play, start_table


def status(user: Any, url: str) -> int:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client.get(url).status_code


@pytest.mark.django_db
def test_a_private_table_s_game_is_for_its_players_and_staff(
    alice: Any, bob: Any, warden: Any, make_user: Any
) -> None:
    table = start_table([alice, bob], "fives", private=True, limit=50)
    game = play(table, [alice, bob], seed=1)
    carol = make_user("Carol")
    for url in (f"/games/{game.pk}/", f"/games/{game.pk}/export.txt"):
        assert status(alice, url) == 200
        assert status(bob, url) == 200
        assert status(warden, url) == 200
        assert status(carol, url) == 404
        assert status(None, url) == 302  # to the log-in page
    # Carol sees Alice's profile, its statistics, but not the private game.
    client = Client()
    client.force_login(carol)
    html = client.get(f"/players/{alice.pk}/").content.decode()
    assert f'href="/games/{game.pk}/"' not in html
    assert "1 game at a private table is not listed." in html
    client.force_login(alice)
    assert f'href="/games/{game.pk}/"' in client.get(f"/players/{alice.pk}/").content.decode()
    client.force_login(warden)
    assert f'href="/games/{game.pk}/"' in client.get(f"/players/{bob.pk}/").content.decode()


@pytest.mark.django_db
def test_a_public_game_is_for_logged_in_adults(alice: Any, bob: Any, make_user: Any) -> None:
    table = start_table([alice, bob], "fives", limit=50)
    game = play(table, [alice, bob], seed=2)
    url = f"/games/{game.pk}/"
    carol = make_user("Carol")
    assert status(carol, url) == 200
    assert status(None, url) == 302
    minor = make_user("Kid", born=dt.date.today() - dt.timedelta(days=365 * 15))
    # Refused: by the age gate's door (403) or by the game's own rule (404).
    assert status(minor, url) in (403, 404)
    suspended = make_user("Sus", status=AgeStatus.SUSPENDED)
    assert status(suspended, url) in (403, 404)
    from history.selectors import may_view_game

    assert not may_view_game(minor, game) and not may_view_game(suspended, game)
    assert may_view_game(carol, game)
    # Anyone may see the statistics of a profile open to everyone; the games need a log-in.
    alice.profile_visibility = "everyone"
    alice.save(update_fields=["profile_visibility"])
    html = Client().get(f"/players/{alice.pk}/").content.decode()
    assert f'href="{url}"' not in html
    assert "Log in to see the games themselves." in html
    client = Client()
    client.force_login(carol)
    assert f'href="{url}"' in client.get(f"/players/{alice.pk}/").content.decode()


@pytest.mark.django_db
def test_no_page_for_a_game_not_started_or_missing(alice: Any) -> None:
    from tables import services
    from tables.models import Game

    table = services.table_create(host=alice, mode="citizen", players=2)
    game = Game.objects.get(table=table)
    assert status(alice, f"/games/{game.pk}/") == 404
    assert status(alice, "/games/999999/") == 404
