"""Glicko-2 as Glickman's paper defines it, and what a result may do to a rating."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.glicko2 import (
    DEFAULT_DEVIATION,
    Glicko,
    Result,
    deviation_after,
    expected_score,
    periods_between,
    rate,
)


def test_the_papers_example() -> None:
    """Glickman's worked example: 1500/200/0.06 against 1400/30 (win), 1550/100 (loss) and
    1700/300 (loss), tau 0.5. The paper prints 1464.06 from its rounded mu' = -0.2069; the
    unrounded value is 1464.0507, within 0.01 of it."""
    me = Glicko(1500, 200, 0.06)
    after = rate(
        me,
        [
            Result(Glicko(1400, 30, 0.06), 1),
            Result(Glicko(1550, 100, 0.06), 0),
            Result(Glicko(1700, 300, 0.06), 0),
        ],
        tau=0.5,
    )
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.005)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)  # 0.0599960


def test_no_games_only_the_deviation_grows() -> None:
    me = Glicko(1500, 200, 0.06)
    after = rate(me, [], tau=0.5)
    # Step 6 of the paper: phi* = sqrt(phi^2 + sigma^2), on the Glicko-2 scale
    assert after.deviation == pytest.approx(200.2714, abs=0.001)
    assert (after.rating, after.volatility) == (1500, 0.06)


def test_deviation_grows_with_time_away_and_stops_at_a_strangers() -> None:
    me = Glicko(1600, 60, 0.06)
    week = deviation_after(me, periods_between(7))
    year = deviation_after(me, periods_between(365))
    assert 60 < week < year
    assert deviation_after(me, periods_between(100_000)) == DEFAULT_DEVIATION
    assert deviation_after(me, 0) == pytest.approx(60)


def test_expected_score_is_even_between_equals() -> None:
    assert expected_score(Glicko(1500, 80, 0.06), Glicko(1500, 80, 0.06)) == 0.5


ratings = st.builds(
    Glicko,
    rating=st.floats(600, 2600),
    deviation=st.floats(30, 350),
    volatility=st.floats(0.03, 0.1),
)


@given(me=ratings, opponent=ratings, elapsed=st.floats(0, 5))
def test_a_win_never_lowers_and_a_loss_never_raises_a_rating(
    me: Glicko, opponent: Glicko, elapsed: float
) -> None:
    won = rate(me, [Result(opponent, 1)], elapsed=elapsed)
    lost = rate(me, [Result(opponent, 0)], elapsed=elapsed)
    assert won.rating >= me.rating
    assert lost.rating <= me.rating
    assert won.deviation <= DEFAULT_DEVIATION


def test_time_away_never_makes_a_rating_less_certain_than_a_newcomers() -> None:
    """Glicko-2's cap on the pre-period deviation: a player back after a long absence is rated
    as a newcomer is (1500/350 beating 1500/350: +162.21), not from a deviation above 350 (it
    gave +225.82 after ten years away)."""
    opponent = Glicko(1500, 350, 0.06)
    newcomer = rate(Glicko(1500, 350, 0.06), [Result(opponent, 1)], elapsed=0)
    assert newcomer.rating == pytest.approx(1662.21, abs=0.01)
    assert newcomer.deviation == pytest.approx(290.23, abs=0.01)
    for deviation, years in ((350, 1), (350, 10), (200, 30)):
        back = rate(
            Glicko(1500, deviation, 0.06),
            [Result(opponent, 1)],
            elapsed=periods_between(365 * years),
        )
        assert back.rating == pytest.approx(newcomer.rating, abs=0.01)
        assert back.deviation == pytest.approx(newcomer.deviation, abs=0.01)
    # below the cap, time away still counts: a month adds about six periods
    settled = rate(Glicko(1500, 60, 0.06), [Result(opponent, 1)], elapsed=0)
    month = rate(Glicko(1500, 60, 0.06), [Result(opponent, 1)], elapsed=periods_between(30))
    assert settled.rating < month.rating < newcomer.rating
