"""The club's leaderboard: its members by their rating in one pool (as the ratings app reads
them), best first; members without a rated game in the pool counted apart; the pool chosen on
the page, or the one most members play."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.utils import timezone

from clubs import selectors, services
from clubs.models import Policy
from ratings.models import Rating
from ratings.pools import Pool
from tests.clubs.conftest import found, logged_in, member_of

pytestmark = pytest.mark.django_db


def rate(user: Any, pool: Pool, rating: float, games: int, deviation: float = 60.0) -> None:
    Rating.objects.create(
        user=user,
        pool=pool.value,
        rating=rating,
        deviation=deviation,
        games=games,
        last_game_at=timezone.now(),
    )


@pytest.fixture
def club(alice: Any, bob: Any, carol: Any, dave: Any, make_user: Any) -> Any:
    """Alice leads; Bob, Carol and Dave are members; Eve asks to join; Olga is not in it."""
    club = found(alice, policy=Policy.REQUEST)
    member_of(club, bob, carol, dave)
    eve, olga = make_user("Eve"), make_user("Olga")
    services.club_join(club_id=club.pk, user=eve)
    rate(alice, Pool.FIVES, 1620, 30)
    rate(bob, Pool.FIVES, 1710, 12)
    rate(carol, Pool.FIVES, 1620, 44)  # Alice's rating, more games: above her
    rate(eve, Pool.FIVES, 2000, 50)  # asking to join: not on the board
    rate(olga, Pool.FIVES, 1900, 50)  # not a member
    rate(dave, Pool.THREES, 1450, 3, deviation=200)  # provisional, another pool
    return club


def test_members_by_rating_best_first(club: Any) -> None:
    board = selectors.club_leaderboard(club, Pool.FIVES.value)
    assert [(r.rank, r.user.display_name, round(r.rating.rating)) for r in board["rows"]] == [
        (1, "Bob", 1710),
        (2, "Carol", 1620),
        (3, "Alice", 1620),
    ]
    assert board["unrated"] == 1  # Dave: no rated Fives game
    threes = selectors.club_leaderboard(club, Pool.THREES.value)
    (dave,) = threes["rows"]
    assert dave.user.display_name == "Dave" and dave.rating.provisional
    assert threes["unrated"] == 3


def test_the_page_shows_the_pool_most_members_play_and_any_other(
    club: Any, alice: Any, bob: Any
) -> None:
    assert selectors.pool_default(club) == Pool.FIVES
    page = logged_in(bob).get(club.get_absolute_url())
    assert page.context["board"]["pool"] == Pool.FIVES
    shown = html.unescape(page.content.decode())
    table = shown[shown.index('id="club-board"') : shown.index("</table>")]
    assert table.index("Bob") < table.index("Carol") < table.index("Alice")
    assert 'class="mine"' in table  # Bob's own row
    assert "1 more member has no rated game in this pool yet." in shown
    assert 'title="The Glicko-2 rating; ? while provisional"' in shown
    page = logged_in(bob).get(club.get_absolute_url(), {"pool": "threes"})
    assert page.context["board"]["pool"] == Pool.THREES
    assert "1450?" in page.content.decode()  # provisional, marked
    assert 'href="?pool=threes#leaderboard" aria-current="page"' in page.content.decode()
    # An unknown pool: the default, not an error.
    page = logged_in(bob).get(club.get_absolute_url(), {"pool": "chess"})
    assert page.status_code == 200 and page.context["board"]["pool"] == Pool.FIVES


def test_a_club_without_rated_games(alice: Any) -> None:
    club = found(alice, "Fresh Club")
    assert selectors.pool_default(club) == Pool.ALLFIVES_1V1
    page = logged_in(alice).get(club.get_absolute_url())
    assert "No member has played a rated game in All Fives, one on one yet." in html.unescape(
        page.content.decode()
    )
