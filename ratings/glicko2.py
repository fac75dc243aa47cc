"""Glicko-2, exactly as Mark Glickman defines it ("Example of the Glicko-2 system", 2022),
as pure functions on the original (Glicko) scale: rating, deviation, volatility.

One change of use, not of formula, taken from lichess: a rating period is not a fixed calendar
slice but a length of time (`PERIODS_PER_DAY`), and each game is rated at once as a period of
its own. Step 6 of the paper adds one period's worth of volatility to the deviation before the
games are counted; here the periods that actually went by since the player's last game are
added instead (`elapsed`), so a player away for a month comes back less certain, and two games
in a row do not inflate the deviation twice. With ``elapsed=1`` the functions are the paper's.

>>> me = Glicko(1500, 200, 0.06)
>>> after = rate(me, [Result(Glicko(1400, 30, 0), 1), Result(Glicko(1550, 100, 0), 0),
...                   Result(Glicko(1700, 300, 0), 0)], tau=0.5)
>>> round(after.rating, 2), round(after.deviation, 2), round(after.volatility, 5)
(1464.05, 151.52, 0.05999)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: The paper's conversion between the Glicko scale and the Glicko-2 scale (400 / ln 10).
SCALE = 173.7178
#: A new player: the paper's starting values.
DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06
#: A deviation never grows past a new player's: nobody is less known than a stranger.
MAX_DEVIATION = DEFAULT_DEVIATION
#: The system constant. lichess's value (Glickman suggests 0.3 to 1.2): volatility may move
#: fairly quickly, which suits a site where players improve fast while learning.
TAU = 0.75
#: lichess's rating period: 0.21436 periods a day (one every ~4.7 days).
PERIODS_PER_DAY = 0.21436
#: The convergence tolerance of step 5 (the paper's ε).
EPSILON = 0.000001


@dataclass(frozen=True)
class Glicko:
    """A player's rating, deviation and volatility on the Glicko scale."""

    rating: float
    deviation: float
    volatility: float


NEW_PLAYER = Glicko(DEFAULT_RATING, DEFAULT_DEVIATION, DEFAULT_VOLATILITY)


@dataclass(frozen=True)
class Result:
    """One game of the period: the opponent (as they stood before it) and the score, 1 for a
    win, 0.5 for a draw, 0 for a loss."""

    opponent: Glicko
    score: float


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected_score(player: Glicko, opponent: Glicko) -> float:
    """The paper's E: the player's expected score against the opponent."""
    return _e(
        (player.rating - DEFAULT_RATING) / SCALE,
        (opponent.rating - DEFAULT_RATING) / SCALE,
        opponent.deviation / SCALE,
    )


def deviation_after(player: Glicko, elapsed: float) -> float:
    """The deviation after `elapsed` rating periods without a game (step 6 without games),
    never above MAX_DEVIATION."""
    phi = player.deviation / SCALE
    grown = math.sqrt(phi * phi + max(elapsed, 0.0) * player.volatility**2) * SCALE
    return min(grown, MAX_DEVIATION)


def _volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm as the paper gives it."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def rate(
    player: Glicko, results: Sequence[Result], *, tau: float = TAU, elapsed: float = 1.0
) -> Glicko:
    """The player's rating after a rating period with these results (steps 2 to 8).

    `elapsed` is how many rating periods the deviation grows by before the results count (the
    paper: one), up to MAX_DEVIATION. With no results only the deviation grows. The new
    deviation is never above MAX_DEVIATION."""
    if not results:
        return Glicko(player.rating, deviation_after(player, elapsed), player.volatility)
    mu = (player.rating - DEFAULT_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    v_inverse = 0.0
    improvement = 0.0
    for r in results:
        mu_j = (r.opponent.rating - DEFAULT_RATING) / SCALE
        phi_j = r.opponent.deviation / SCALE
        g = _g(phi_j)
        e = _e(mu, mu_j, phi_j)
        v_inverse += g * g * e * (1.0 - e)
        improvement += g * (r.score - e)
    v = 1.0 / v_inverse
    delta = v * improvement
    new_sigma = _volatility(phi, sigma, delta, v, tau)
    # Step 6, with the cap: the pre-period deviation is never above a newcomer's (a player
    # back after years away is rated as a newcomer would be, not as someone less known).
    phi_star = min(
        math.sqrt(phi * phi + max(elapsed, 0.0) * new_sigma * new_sigma), MAX_DEVIATION / SCALE
    )
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement
    return Glicko(
        rating=new_mu * SCALE + DEFAULT_RATING,
        deviation=min(new_phi * SCALE, MAX_DEVIATION),
        volatility=new_sigma,
    )


def periods_between(days: float) -> float:
    """Rating periods in `days` days."""
    return max(days, 0.0) * PERIODS_PER_DAY
