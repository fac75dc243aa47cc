"""Rating finished games: one on one, Cut Throat by standing, Partners by team; what is never
rated; the farming limit; once only, also under races."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, transaction

from accounts.models import User
from ratings import glicko2, services
from ratings.glicko2 import Glicko, Result
from ratings.models import RatedGame, Rating, RatingChange
from ratings.pools import Pool
from ratings.services import FARMING_LIMIT, game_rate
from tables.models import Game
from tests.ratings.helpers import finished_game, set_rating

NEW = glicko2.NEW_PLAYER


@pytest.fixture
def four(make_user: Callable[..., User]) -> list[User]:
    return [make_user(n) for n in ("Alice", "Bob", "Carol", "Dave")]


def rating(user: User, pool: str) -> Rating:
    return Rating.objects.get(user=user, pool=pool)


def g_(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / math.pi**2)


@pytest.mark.django_db
def test_one_on_one_as_the_paper_rates_one_game(four: list[User]) -> None:
    alice, bob = four[:2]
    game = finished_game([alice, bob], mode="fives", winner=1, scores=[80, 150])
    rated = game_rate(game=game)
    assert rated is not None and rated.rated and rated.pool == Pool.FIVES
    a, b = rating(alice, Pool.FIVES), rating(bob, Pool.FIVES)
    # Two strangers: E = 0.5 each; by hand, mu' = mu + phi'^2 g(phi) (s - E) with
    # phi' = 1/sqrt(1/phi*^2 + 1/v), v = 1/(g^2 E (1-E)), phi* = phi (no time went by).
    phi = 350 / glicko2.SCALE
    g = g_(phi)
    v = 1 / (g * g * 0.25)
    new_phi = 1 / math.sqrt(1 / (phi * phi) + 1 / v)
    assert b.deviation == pytest.approx(new_phi * glicko2.SCALE, abs=0.5)  # sigma' ~ sigma
    assert b.rating - 1500 == pytest.approx(b.deviation**2 / glicko2.SCALE * g * 0.5, abs=0.01)
    assert a.rating == pytest.approx(3000 - b.rating)  # the loser loses what the winner won
    assert (a.games, b.games) == (1, 1)
    loss, win = (
        RatingChange.objects.get(user=alice).delta,
        RatingChange.objects.get(user=bob).delta,
    )
    assert win > 0 and loss == -win


@pytest.mark.django_db
def test_cut_throat_counts_pairwise_results_by_final_standing(four: list[User]) -> None:
    alice, bob, carol = four[:3]
    pool = Pool.ALLFIVES_CUTTHROAT
    set_rating(alice, pool, 1500, 100)
    set_rating(bob, pool, 1600, 80)
    set_rating(carol, pool, 1450, 120)
    before = {
        u.pk: Glicko(r.rating, r.deviation, r.volatility)
        for u in (alice, bob, carol)
        for r in [rating(u, pool)]
    }
    # Carol won (side 2); Alice (110) finished ahead of Bob (95).
    game = finished_game([alice, bob, carol], mode="citizen", winner=2, scores=[110, 95, 150])
    assert game_rate(game=game) is not None
    a, b, c = before[alice.pk], before[bob.pk], before[carol.pk]
    expected = {
        alice.pk: glicko2.rate(a, [Result(b, 1), Result(c, 0)], elapsed=0),
        bob.pk: glicko2.rate(b, [Result(a, 0), Result(c, 0)], elapsed=0),
        carol.pk: glicko2.rate(c, [Result(a, 1), Result(b, 1)], elapsed=0),
    }
    for user in (alice, bob, carol):
        got = rating(user, pool)
        assert got.rating == pytest.approx(expected[user.pk].rating, abs=0.05)
        assert got.deviation == pytest.approx(expected[user.pk].deviation, abs=0.05)
    assert rating(carol, pool).rating > 1450 and rating(bob, pool).rating < 1600


@pytest.mark.django_db
def test_cut_throat_level_scores_are_a_draw_and_a_leaver_loses_to_all(four: list[User]) -> None:
    a, b, c, d = (
        services.Standing(False, True, 90),
        services.Standing(False, True, 90),
        services.Standing(True, True, 150),
        services.Standing(False, False, 120),
    )
    assert services.pair_score(a, b) == 0.5
    assert services.pair_score(c, a) == 1.0
    assert services.pair_score(d, a) == 0.0  # left the game: behind everyone still there


@pytest.mark.django_db
def test_partners_rate_the_team_result_against_the_other_team(four: list[User]) -> None:
    alice, bob, carol, dave = four
    pool = Pool.ALLFIVES_PARTNERS
    # Alice and Carol (seats 0 and 2) against Bob and Dave (seats 1 and 3).
    set_rating(alice, pool, 1600, 100)
    set_rating(carol, pool, 1400, 100)
    set_rating(bob, pool, 1550, 60)
    set_rating(dave, pool, 1550, 80)
    game = finished_game([alice, bob, carol, dave], mode="citizen", winner=0, partners=True)
    assert game_rate(game=game) is not None
    # By hand: team means 1500 and 1550, a gap of +50; the other team's RMS deviation.
    rms_bd = math.sqrt((60**2 + 80**2) / 2)
    rms_ac = math.sqrt((100**2 + 100**2) / 2)
    expected = {
        alice: glicko2.rate(
            Glicko(1600, 100, 0.06), [Result(Glicko(1650, rms_bd, 0.06), 1)], elapsed=0
        ),
        carol: glicko2.rate(
            Glicko(1400, 100, 0.06), [Result(Glicko(1450, rms_bd, 0.06), 1)], elapsed=0
        ),
        bob: glicko2.rate(
            Glicko(1550, 60, 0.06), [Result(Glicko(1500, rms_ac, 0.06), 0)], elapsed=0
        ),
        dave: glicko2.rate(
            Glicko(1550, 80, 0.06), [Result(Glicko(1500, rms_ac, 0.06), 0)], elapsed=0
        ),
    }
    for user, want in expected.items():
        assert rating(user, pool).rating == pytest.approx(want.rating, abs=0.05)
    # Equal deviations, same team: Alice and Carol gain the same (the team's expected score).
    gain_a = rating(alice, pool).rating - 1600
    gain_c = rating(carol, pool).rating - 1400
    assert gain_a == pytest.approx(gain_c, abs=0.05) and gain_a > 0
    # The surer partner (Bob, deviation 60) moves less than Dave (80).
    assert 0 > rating(bob, pool).rating - 1550 > rating(dave, pool).rating - 1550


@pytest.mark.django_db
def test_never_rated_casual_house_and_rated_once(four: list[User]) -> None:
    alice, bob = four[:2]
    casual = finished_game([alice, bob], rated=False)
    assert game_rate(game=casual).why_not == RatedGame.WhyNot.CASUAL  # type: ignore[union-attr]
    bob.house_level = "shark"
    bob.save(update_fields=["house_level"])
    house = finished_game([alice, bob])
    assert game_rate(game=house).why_not == RatedGame.WhyNot.HOUSE  # type: ignore[union-attr]
    assert not RatingChange.objects.exists()
    assert not Rating.objects.filter(games__gt=0).exists()
    bob.house_level = ""
    bob.save(update_fields=["house_level"])
    game = finished_game([alice, bob])
    assert game_rate(game=game) is not None
    after = rating(alice, Pool.FIVES).rating
    assert game_rate(game=game) is None  # already considered: nothing changes
    assert rating(alice, Pool.FIVES).rating == after
    assert RatingChange.objects.count() == 2


@pytest.mark.django_db
def test_aborted_games_are_never_rated(four: list[User]) -> None:
    game = finished_game(four[:2])
    Game.objects.filter(pk=game.pk).update(status=Game.Status.ABORTED, result=None)
    game.refresh_from_db()
    assert game_rate(game=game).why_not == RatedGame.WhyNot.NO_RESULT  # type: ignore[union-attr]


@pytest.mark.django_db
def test_the_farming_limit_one_on_one(four: list[User]) -> None:
    alice, bob, carol = four[:3]
    for _ in range(FARMING_LIMIT):
        assert game_rate(game=finished_game([alice, bob])).rated  # type: ignore[union-attr]
    fourth = game_rate(game=finished_game([bob, alice]))
    assert fourth is not None and not fourth.rated
    assert fourth.why_not == RatedGame.WhyNot.FARMING
    assert rating(alice, Pool.FIVES).games == FARMING_LIMIT
    # Another pool, or another opponent, is still rated.
    assert game_rate(game=finished_game([alice, bob], mode="threes")).rated  # type: ignore[union-attr]
    assert game_rate(game=finished_game([alice, carol])).rated  # type: ignore[union-attr]


@pytest.mark.django_db
def test_the_farming_limit_drops_only_that_pair_at_cut_throat(four: list[User]) -> None:
    alice, bob, carol = four[:3]
    for _ in range(FARMING_LIMIT):
        game_rate(game=finished_game([alice, bob]))
    pool = Pool.ALLFIVES_CUTTHROAT
    game = finished_game([alice, bob, carol], mode="citizen", winner=2, scores=[100, 90, 150])
    assert game_rate(game=game).rated  # type: ignore[union-attr]
    # Fives pairs do not count here: every pair of the Cut Throat game is in.
    assert {c.user_id for c in RatingChange.objects.filter(pool=pool)} == {
        alice.pk,
        bob.pk,
        carol.pk,
    }
    for _ in range(FARMING_LIMIT - 1):
        game_rate(
            game=finished_game([alice, bob, carol], mode="citizen", winner=2, scores=[100, 90, 150])
        )
    # Now Alice-Bob, Alice-Carol and Bob-Carol all have 3: a game of Alice, Bob and Dave counts
    # only the pairs with Dave.
    dave = four[3]
    set_rating(dave, pool, 1500, 200)
    before_dave = rating(dave, pool).rating
    game = finished_game([alice, bob, dave], mode="citizen", winner=0, scores=[150, 90, 100])
    assert game_rate(game=game).rated  # type: ignore[union-attr]
    dave_after = rating(dave, pool)
    # Dave lost to Alice and beat Bob: both his pairs counted.
    a = RatingChange.objects.filter(user=alice, pool=pool).count()
    assert a == FARMING_LIMIT + 1
    assert dave_after.games == 21 and dave_after.rating != before_dave


@pytest.mark.django_db
def test_the_farming_limit_at_partners_rates_no_one(four: list[User]) -> None:
    alice, bob, carol, dave = four
    for _ in range(FARMING_LIMIT):
        game_rate(game=finished_game([alice, bob, carol, dave], mode="citizen", partners=True))
    # Alice and Bob have met three times as opponents: a fourth is not rated for anyone.
    late = game_rate(game=finished_game([alice, bob, carol, dave], mode="citizen", partners=True))
    assert late is not None and late.why_not == RatedGame.WhyNot.FARMING
    assert not RatingChange.objects.filter(rated_game=late).exists()
    # Any two against the other two puts a pair of them across the board again: the limit holds
    # whichever way they sit.
    swapped = game_rate(
        game=finished_game([alice, carol, bob, dave], mode="citizen", partners=True)
    )
    assert swapped is not None and swapped.why_not == RatedGame.WhyNot.FARMING


def _race(work: list[Callable[[], Any]]) -> list[BaseException]:
    barrier = threading.Barrier(len(work))
    errors: list[BaseException] = []

    def run(job: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=30)
            with transaction.atomic():
                job()
        except BaseException as exc:  # reported by the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(job,)) for job in work]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return errors


@pytest.mark.django_db(transaction=True)
def test_one_game_rated_at_once_by_many_is_rated_once(make_user: Callable[..., User]) -> None:
    alice, bob = make_user("Alice"), make_user("Bob")
    game = finished_game([alice, bob])

    def rate() -> None:
        game_rate(game=Game.objects.select_related("table").get(pk=game.pk))

    assert _race([rate] * 6) == []
    assert RatedGame.objects.filter(game=game).count() == 1
    assert RatingChange.objects.count() == 2
    assert Rating.objects.get(user=alice, pool=Pool.FIVES).games == 1


@pytest.mark.django_db(transaction=True)
def test_games_of_one_pair_ending_at_once_keep_the_farming_limit(
    make_user: Callable[..., User],
) -> None:
    alice, bob = make_user("Alice"), make_user("Bob")
    games = [finished_game([alice, bob], winner=n % 2) for n in range(FARMING_LIMIT + 3)]

    def rater(game_id: int) -> Callable[[], Any]:
        return lambda: game_rate(game=Game.objects.select_related("table").get(pk=game_id))

    assert _race([rater(g.pk) for g in games]) == []
    assert RatedGame.objects.count() == len(games)
    assert RatedGame.objects.filter(rated=True).count() == FARMING_LIMIT
    assert Rating.objects.get(user=alice, pool=Pool.FIVES).games == FARMING_LIMIT
