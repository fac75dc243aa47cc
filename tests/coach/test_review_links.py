"""The Shark's review is offered wherever a player's games are listed (the profile's games,
My games) for the games the reader played, and in the game-over dialog (the browser test in
tests/e2e/test_game_over_browser.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from coach.models import Review
from history.services import games_archive_pending
from tests.history.helpers import play, start_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(alice: Any, bob: Any) -> Any:
    game = play(start_table([alice, bob], "fives", limit=50), [alice, bob], seed=6)
    games_archive_pending()
    return game


def review_url(game: Any) -> str:
    return reverse("history:game", args=[game.pk]) + "#review"


def test_my_profile_and_my_games_offer_the_review(
    client: Client, alice: Any, finished: Any
) -> None:
    client.force_login(alice)
    for url in (reverse("accounts:profile", args=[alice.pk]), reverse("my_games")):
        html = client.get(url).content.decode()
        assert (
            f'href="{review_url(finished)}" data-review="none">Ask the Shark for a review' in html
        )
    Review.objects.create(game=finished, user=alice, seat=0, status=Review.Status.DONE)
    html = client.get(reverse("my_games")).content.decode()
    assert f'href="{review_url(finished)}" data-review="done">Read the Shark' in html


def test_a_game_the_reader_did_not_play_has_no_review_link(
    client: Client, alice: Any, make_user: Any, finished: Any
) -> None:
    carol = make_user("Carol")
    client.force_login(carol)
    html = client.get(reverse("accounts:profile", args=[alice.pk])).content.decode()
    assert reverse("history:game", args=[finished.pk]) in html  # the game is listed
    assert "review-link" not in html
    client.force_login(alice)  # a game both played: the reader's own review
    html = client.get(reverse("accounts:profile", args=[finished.players[1]])).content.decode()
    assert review_url(finished) in html
