"""Arena rules (tournaments/arena.py): pure functions, no database.

Hand-made cases for each rule, then property tests that recompute the rules the most naive way.
"""

from __future__ import annotations

import doctest
import random
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from fractions import Fraction
from math import floor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments import arena
from tournaments.arena import (
    ACTIONS_PER_50,
    GAME_START_SECONDS,
    ArenaEntrant,
    ArenaError,
    ArenaGame,
    ArenaStanding,
    Waiting,
    arena_standings,
    berserk_allowed,
    berserk_clock_ms,
    check_minutes,
    club_standings,
    expected_game_seconds,
    game_points,
    may_meet,
    on_fire,
    pair_wave,
    pairing_open,
    performance,
    streak_after,
)

T0 = datetime(2025, 3, 1, 19, 0)
FAST = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def entrants(*players: int, rating: float = 1500) -> list[ArenaEntrant]:
    """Everyone joins one second after the one before, at the same rating."""
    return [ArenaEntrant(p, rating, T0 + timedelta(seconds=i)) for i, p in enumerate(players)]


def row(rows: Sequence[ArenaStanding], player: int) -> ArenaStanding:
    return next(r for r in rows if r.player == player)


def test_doctests() -> None:
    failures, tried = doctest.testmod(arena)
    assert tried > 20 and failures == 0


# --- length, clock and berserk -----------------------------------------------------------------


@pytest.mark.parametrize("minutes", [30, 31, 60, 90, 120])
def test_arena_lengths_allowed(minutes: int) -> None:
    assert check_minutes(minutes) == minutes


@pytest.mark.parametrize("bad", [0, 29, 121, -30, 45.0, "60", None, True])
def test_arena_lengths_refused(bad: object) -> None:
    with pytest.raises(ArenaError):
        check_minutes(bad)  # type: ignore[arg-type]


def test_berserk_only_at_gym_tables_with_a_clock_before_the_first_move() -> None:
    assert berserk_allowed("citizen_gym", 10, moved=False)
    assert berserk_allowed("inmate_gym", 20, moved=False)
    assert not berserk_allowed("inmate_gym", 20, moved=True)
    assert not berserk_allowed("citizen_gym", None, moved=False)
    for mode in ("citizen", "inmate", "fives", "threes"):
        assert not berserk_allowed(mode, None, moved=False)
        with pytest.raises(ArenaError):
            berserk_allowed(mode, 10, moved=False)  # no clock at those tables


def test_berserk_halves_the_clock() -> None:
    assert [berserk_clock_ms(c) for c in (3, 10, 20, 60)] == [1500, 5000, 10000, 30000]
    with pytest.raises(ArenaError):
        berserk_clock_ms(0)


# --- when pairing stops ------------------------------------------------------------------------


def test_expected_game_length_from_the_table() -> None:
    # 30 s to start, then actions x 4 s (or the Gym clock when shorter).
    assert expected_game_seconds("citizen", 150) == 30 + 27 * 3 * 4
    assert expected_game_seconds("citizen", 250) == 30 + 27 * 5 * 4
    assert expected_game_seconds("inmate", 150) == 30 + 32 * 3 * 4
    assert expected_game_seconds("fives", 100) == 30 + 36 * 2 * 4
    assert expected_game_seconds("threes", 60) == 30 + 32 * 4  # 26 x 60 / 50 = 31.2, so 32
    assert expected_game_seconds("citizen_gym", 150, 10) == expected_game_seconds("citizen", 150)
    assert expected_game_seconds("inmate_gym", 150, 2) == 30 + 30 * 3 * 2


@pytest.mark.parametrize("mode", list(ACTIONS_PER_50))
def test_expected_length_grows_with_the_target(mode: str) -> None:
    lengths = [expected_game_seconds(mode, t) for t in range(50, 501, 25)]
    assert lengths == sorted(lengths) and lengths[0] > GAME_START_SECONDS


@pytest.mark.parametrize(
    ("mode", "target", "clock"),
    [("domino", 150, None), ("citizen", 0, None), ("citizen", -5, None), ("fives", 100, 10)],
)
def test_expected_length_refuses_what_no_table_plays(
    mode: str, target: int, clock: int | None
) -> None:
    with pytest.raises(ArenaError):
        expected_game_seconds(mode, target, clock)


def test_pairing_stops_when_a_game_would_not_fit() -> None:
    end = T0 + timedelta(minutes=60)
    need = expected_game_seconds("citizen", 250)
    assert pairing_open(ends_at=end, now=T0, mode="citizen", target=250)
    assert pairing_open(ends_at=end, now=end - timedelta(seconds=need), mode="citizen", target=250)
    late = end - timedelta(seconds=need - 1)
    assert not pairing_open(ends_at=end, now=late, mode="citizen", target=250)
    # A shorter target still fits then.
    assert pairing_open(ends_at=end, now=late, mode="citizen", target=150)
    assert not pairing_open(ends_at=end, now=end, mode="citizen", target=150)
    assert not pairing_open(ends_at=end, now=end + timedelta(hours=1), mode="citizen", target=150)


def test_a_quick_gym_clock_pairs_later() -> None:
    end = T0 + timedelta(minutes=30)
    now = end - timedelta(seconds=expected_game_seconds("citizen_gym", 150, 3))
    assert pairing_open(ends_at=end, now=now, mode="citizen_gym", target=150, clock=3)
    assert not pairing_open(ends_at=end, now=now, mode="citizen_gym", target=150, clock=10)


# --- scoring -----------------------------------------------------------------------------------


def test_points_and_the_streak() -> None:
    results = [True, True, True, True, False, True, True, True]
    streak, points = 0, []
    for won in results:
        points.append(game_points(won=won, berserk=False, streak=streak))
        streak = streak_after(streak, won=won)
    assert points == [2, 2, 4, 4, 0, 2, 2, 4]
    assert streak == 3 and on_fire(streak)
    assert [on_fire(s) for s in range(4)] == [False, False, True, True]


def test_the_berserk_point_is_never_doubled() -> None:
    assert game_points(won=True, berserk=True, streak=0) == 3
    assert game_points(won=True, berserk=True, streak=1) == 3
    assert game_points(won=True, berserk=True, streak=2) == 5
    assert game_points(won=False, berserk=True, streak=2) == 0


def test_standings_rows() -> None:
    people = entrants(1, 2, 3)
    games = [
        ArenaGame(1, 2, 1),
        ArenaGame(1, 3, 1),
        ArenaGame(1, 2, 1, frozenset({1, 2})),  # on fire and berserk: 4 + 1
        ArenaGame(3, 1, 3),
        ArenaGame(1, 2, 1, frozenset({1})),
    ]
    rows = arena_standings(people, games)
    one = row(rows, 1)
    assert (one.rank, one.score, one.games, one.wins, one.losses) == (1, 2 + 2 + 5 + 0 + 3, 5, 4, 1)
    assert (one.streak, one.fire, one.berserks) == (1, False, 2)
    assert one.recent == ("W", "W", "B", "L", "B")
    assert one.recent_points == (2, 2, 5, 0, 3)
    two = row(rows, 2)
    assert (two.score, two.games, two.berserks, two.recent) == (0, 3, 1, ("L", "L", "L"))
    three = row(rows, 3)
    assert (three.score, three.streak, three.recent) == (2, 1, ("L", "W"))
    assert [r.player for r in rows] == [1, 3, 2] and [r.rank for r in rows] == [1, 2, 3]


def test_a_game_without_a_winner_scores_nothing_and_ends_the_streak() -> None:
    games = [ArenaGame(1, 2, 1), ArenaGame(1, 3, 1), ArenaGame(1, 2, None), ArenaGame(1, 3, 1)]
    rows = arena_standings(entrants(1, 2, 3), games)
    one = row(rows, 1)
    assert one.recent == ("W", "W", "N", "W") and one.recent_points == (2, 2, 0, 2)
    assert (one.score, one.games, one.wins, one.losses, one.streak) == (6, 4, 3, 0, 1)
    two = row(rows, 2)
    assert (two.games, two.wins, two.losses, two.recent) == (2, 0, 1, ("L", "N"))
    # In the performance, like a draw: (1500 + 1500) / 2 + 400 x (0 - 1) / 2.
    assert two.performance == 1300


def test_recent_results_keep_the_last_ten_oldest_first() -> None:
    games = [ArenaGame(1, 2, 1 if i % 3 else 2) for i in range(14)]
    one = row(arena_standings(entrants(1, 2), games), 1)
    marks = ["L" if i % 3 == 0 else "W" for i in range(14)]
    assert one.recent == tuple(marks[-10:]) and len(one.recent_points) == 10
    assert row(arena_standings(entrants(1, 2), games, recent=3), 1).recent == tuple(marks[-3:])
    assert row(arena_standings(entrants(1, 2), games, recent=0), 1).recent == ()


def test_ties_by_performance_then_earlier_join() -> None:
    people = [
        ArenaEntrant(1, 1500, T0),
        ArenaEntrant(2, 1500, T0 + timedelta(minutes=1)),
        ArenaEntrant(3, 1900, T0 + timedelta(minutes=2)),
        ArenaEntrant(4, 1100, T0 + timedelta(minutes=3)),
        ArenaEntrant(5, 1500, T0 + timedelta(minutes=4)),
        ArenaEntrant(6, 1500, T0 + timedelta(minutes=5)),
    ]
    # 1 and 2 each win once, 1 against the strong 3 and 2 against the weak 4: 1 is ahead.
    rows = arena_standings(people, [ArenaGame(1, 3, 1), ArenaGame(2, 4, 2)])
    assert [(r.player, r.performance) for r in rows[:2]] == [(1, 2300), (2, 1500)]
    # Both beat a 1500 player: same score, performance and games; 1 joined first.
    rows = arena_standings(people, [ArenaGame(1, 5, 1), ArenaGame(2, 6, 2)])
    assert [(r.player, r.performance) for r in rows[:2]] == [(1, 1900), (2, 1900)]
    # On 0 points: 3 has not played (performance: their own 1900); 4 has not played (1100);
    # 5 and 6 each lost to a 1500 player (1100, one game): 4 first (fewer games), then 5, who
    # joined before 6.
    assert [(r.player, r.performance, r.games) for r in rows[2:]] == [
        (3, 1900, 0),
        (4, 1100, 0),
        (5, 1100, 1),
        (6, 1100, 1),
    ]


def test_fewer_games_breaks_a_tie_on_performance() -> None:
    people = [*entrants(1, 2), ArenaEntrant(3, 1700, T0), ArenaEntrant(4, 1300, T0)]
    # 1 beats 3 (1700) and loses to 3: 2 points, perf 1700, 2 games.
    # 2 beats 4 (1300) once, no other game: 2 points, perf 1700, 1 game: 2 comes first although
    # 1 joined earlier.
    games = [ArenaGame(1, 3, 1), ArenaGame(1, 3, 3), ArenaGame(2, 4, 2)]
    rows = arena_standings(people, games)
    assert (row(rows, 1).score, row(rows, 1).performance, row(rows, 1).games) == (2, 1700, 2)
    assert (row(rows, 2).score, row(rows, 2).performance, row(rows, 2).games) == (2, 1700, 1)
    assert row(rows, 2).rank < row(rows, 1).rank


def test_performance() -> None:
    assert performance([1500], wins=1, losses=0) == 1900
    assert performance([1500, 1600], wins=0, losses=2) == 1150
    assert performance([1500, 1600, 1700], wins=1, losses=1) == 1600
    with pytest.raises(ArenaError):
        performance([], wins=0, losses=0)


@pytest.mark.parametrize(
    "game",
    [
        ArenaGame(1, 1, 1),
        ArenaGame(1, 9, 1),
        ArenaGame(1, 2, 3),
        ArenaGame(1, 2, 1, frozenset({3})),
    ],
)
def test_impossible_games_are_refused(game: ArenaGame) -> None:
    with pytest.raises(ArenaError):
        arena_standings(entrants(1, 2, 3), [game])


def test_joining_twice_is_refused() -> None:
    with pytest.raises(ArenaError):
        arena_standings([*entrants(1, 2), *entrants(1)], [])


def test_a_player_without_games_stands_with_nothing() -> None:
    rows = arena_standings(entrants(7), [])
    assert rows == [
        ArenaStanding(
            rank=1,
            player=7,
            score=0,
            games=0,
            wins=0,
            losses=0,
            streak=0,
            fire=False,
            berserks=0,
            performance=1500,
            recent=(),
            recent_points=(),
        )
    ]


# --- pairing -----------------------------------------------------------------------------------


def test_neighbours_by_score_then_rating() -> None:
    waiting = [
        Waiting(1, 0, 1500),
        Waiting(2, 10, 1400),
        Waiting(3, 4, 1800),
        Waiting(4, 10, 1600),
        Waiting(5, 4, 1200),
        Waiting(6, 0, 1900),
    ]
    wave = pair_wave(waiting)
    assert wave.pairs == ((4, 2), (3, 5), (6, 1)) and wave.left == ()


def test_never_the_last_opponent_the_next_candidate_instead() -> None:
    waiting = [
        Waiting(1, 10, 1500, last_opponent=2),
        Waiting(2, 9, 1500, last_opponent=1),
        Waiting(3, 8, 1500),
        Waiting(4, 7, 1500),
    ]
    assert pair_wave(waiting).pairs == ((1, 3), (2, 4))


def test_the_last_opponent_counts_either_way() -> None:
    # 1 played 2 last; 2 has played 5 since (and 5 is not waiting): still no 1 v 2.
    waiting = [Waiting(1, 10, 1500, last_opponent=2), Waiting(2, 9, 1500, last_opponent=5)]
    assert pair_wave(waiting).pairs == ()
    waiting = [Waiting(1, 10, 1500, last_opponent=5), Waiting(2, 9, 1500, last_opponent=1)]
    assert pair_wave(waiting).pairs == ()


def test_only_the_last_opponent_left_means_waiting() -> None:
    waiting = [
        Waiting(1, 10, 1500),
        Waiting(2, 9, 1500),
        Waiting(3, 8, 1500, last_opponent=4),
        Waiting(4, 7, 1500, last_opponent=3),
    ]
    wave = pair_wave(waiting)
    assert wave.pairs == ((1, 2),) and wave.left == (3, 4)


def test_house_players_are_never_paired() -> None:
    waiting = [Waiting(1, 10, 1500, house=True), Waiting(2, 9, 1500), Waiting(3, 8, 1500)]
    wave = pair_wave(waiting)
    assert wave.pairs == ((2, 3),) and wave.left == ()
    assert pair_wave([Waiting(1, 0, 1500, house=True), Waiting(2, 0, 1500)]).left == (2,)
    assert not may_meet(Waiting(1, 0, 1500, house=True), Waiting(2, 0, 1500))


def test_clubmates_are_never_paired() -> None:
    waiting = [
        Waiting(1, 10, 1500, club=7),
        Waiting(2, 9, 1500, club=7),
        Waiting(3, 8, 1500, club=8),
        Waiting(4, 7, 1500),
        Waiting(5, 6, 1500),
    ]
    wave = pair_wave(waiting)
    assert wave.pairs == ((1, 3), (2, 4)) and wave.left == (5,)


def test_an_odd_one_out_waits() -> None:
    wave = pair_wave([Waiting(p, 10 - p, 1500) for p in (1, 2, 3)])
    assert wave.pairs == ((1, 2),) and wave.left == (3,)
    assert pair_wave([]).pairs == () and pair_wave([Waiting(1, 0, 1500)]).left == (1,)


def test_a_player_listed_twice_is_refused() -> None:
    with pytest.raises(ArenaError):
        pair_wave([Waiting(1, 0, 1500), Waiting(1, 2, 1500)])


def random_wave(rng: random.Random, size: int) -> list[Waiting]:
    ids = rng.sample(range(1, 100_000), size)
    return [
        Waiting(
            player,
            rng.randrange(0, 60),
            rng.gauss(1500, 250),
            rng.choice(ids) if rng.random() < 0.8 else None,
            rng.random() < 0.02,
        )
        for player in ids
    ]


def test_a_wave_of_500_is_quick() -> None:
    rng = random.Random(500)
    waves = [random_wave(rng, 500) for _ in range(5)]
    times = []
    for waiting in waves:
        started = time.perf_counter()
        pair_wave(waiting)
        times.append(time.perf_counter() - started)
    assert min(times) < 0.1  # bench/arena_pairing.py measures it properly (about 1 ms)


# --- club battles ------------------------------------------------------------------------------


def test_club_scores_are_their_top_players_sums() -> None:
    people = entrants(1, 2, 3, 4, 5, 6)
    games = [
        ArenaGame(1, 2, 1),
        ArenaGame(3, 4, 3),
        ArenaGame(1, 3, 1),
        ArenaGame(5, 6, 5),
        ArenaGame(1, 4, 1),  # on fire: 4
        ArenaGame(2, 6, 2),
    ]
    rows = arena_standings(people, games)
    # On 2 points: 5 (beat a 1500 player: 1900), then 2 and 3 (a win and a loss: 1500, two
    # games), 2 having joined first.
    assert [(r.player, r.score) for r in rows] == [(1, 8), (5, 2), (2, 2), (3, 2), (4, 0), (6, 0)]
    clubs = {1: 10, 4: 10, 6: 10, 2: 20, 3: 20, 5: 20, 99: 30}
    two = club_standings(rows, clubs, top=2)
    assert [(c.rank, c.club, c.score, c.players) for c in two] == [(1, 10, 8, 3), (2, 20, 4, 3)]
    assert [s.player for s in two[0].top] == [1, 4] and [s.player for s in two[1].top] == [5, 2]
    three = club_standings(rows, clubs, top=3)
    assert [(c.club, c.score) for c in three] == [(10, 8), (20, 6)]
    # Nobody of club 30 played: it is not listed. Players without a club count for nobody.
    assert club_standings(rows, {1: 10}, top=5)[0].score == 8


def test_club_ties_by_the_higher_best_player_then_club_id() -> None:
    rows = arena_standings(entrants(1, 2, 3, 4), [ArenaGame(1, 2, 1), ArenaGame(3, 4, 3)])
    assert [r.player for r in rows] == [1, 3, 2, 4]
    clubs = club_standings(rows, {1: 50, 2: 50, 3: 40, 4: 40}, top=2)
    assert [(c.club, c.score) for c in clubs] == [(50, 2), (40, 2)]  # 1 stands above 3
    clubs = club_standings(rows, {2: 50, 4: 40}, top=2)
    assert [(c.club, c.score) for c in clubs] == [(50, 0), (40, 0)]  # 2 stands above 4
    clubs = club_standings(rows, {1: 50, 2: 40, 3: 40}, top=1)
    assert [c.club for c in clubs] == [50, 40]


@pytest.mark.parametrize("top", [0, -1, 1.5])
def test_club_top_must_be_one_or_more(top: object) -> None:
    with pytest.raises(ArenaError):
        club_standings([], {}, top=top)  # type: ignore[arg-type]


# --- properties --------------------------------------------------------------------------------

PLAYERS = st.integers(min_value=2, max_value=9)


@st.composite
def arenas(draw: st.DrawFn) -> tuple[list[ArenaEntrant], list[ArenaGame]]:
    """2 to 9 players (ratings 800 to 2400, joined within 4 s, so joins tie), up to 40 games:
    a win for either player (twice as likely as no winner), each player berserking or not."""
    n = draw(PLAYERS)
    ratings = draw(st.lists(st.integers(800, 2400), min_size=n, max_size=n))
    joins = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    people = [
        ArenaEntrant(p, ratings[p - 1], T0 + timedelta(seconds=joins[p - 1]))
        for p in range(1, n + 1)
    ]
    # (a, b - a - 1 mod n: b is someone else, outcome 0-4, berserk bits 0-3)
    shapes = st.tuples(
        st.integers(1, n), st.integers(0, n - 2), st.integers(0, 4), st.integers(0, 3)
    )
    games = []
    for a, step, outcome, bits in draw(st.lists(shapes, max_size=40)):
        b = (a + step) % n + 1
        winner = (a, b, a, b, None)[outcome]
        berserk = frozenset(p for p, bit in ((a, 1), (b, 2)) if bits & bit)
        games.append(ArenaGame(a, b, winner, berserk))
    return people, games


def naive_scores(players: list[int], games: list[ArenaGame]) -> dict[int, dict[str, int]]:
    """Each player's games, one by one: a win 2, or 4 after two wins in a row; a berserk win one
    more (never doubled); anything else 0, and the run of wins starts again."""
    out = {}
    for p in players:
        mine = [g for g in games if p in (g.a, g.b)]
        score = run = wins = losses = berserks = 0
        for g in mine:
            if p in g.berserk:
                berserks += 1
            if g.winner == p:
                wins += 1
                score += 4 if run >= 2 else 2
                if p in g.berserk:
                    score += 1
                run += 1
            else:
                if g.winner is not None:
                    losses += 1
                run = 0
        out[p] = {
            "score": score,
            "streak": run,
            "wins": wins,
            "losses": losses,
            "games": len(mine),
            "berserks": berserks,
        }
    return out


@settings(FAST, max_examples=300)
@given(arenas())
def test_scores_are_the_sum_of_results(case: tuple[list[ArenaEntrant], list[ArenaGame]]) -> None:
    people, games = case
    expected = naive_scores([e.player for e in people], games)
    rows = arena_standings(people, games, recent=100)
    assert len(rows) == len(people)
    for r in rows:
        want = expected[r.player]
        got = {
            "score": r.score,
            "streak": r.streak,
            "wins": r.wins,
            "losses": r.losses,
            "games": r.games,
            "berserks": r.berserks,
        }
        assert got == want
        assert r.fire == (r.streak >= 2)
        assert sum(r.recent_points) == r.score and len(r.recent) == r.games
        assert r.recent.count("W") + r.recent.count("B") == r.wins
        assert r.recent.count("L") == r.losses


def naive_performance(people: list[ArenaEntrant], games: list[ArenaGame], p: int) -> int:
    rating = {e.player: e.rating for e in people}
    mine = [g for g in games if p in (g.a, g.b)]
    if not mine:
        return floor(Fraction(rating[p]) + Fraction(1, 2))
    total = Fraction(0)
    for g in mine:
        other = g.b if g.a == p else g.a
        total += Fraction(rating[other])
        if g.winner == p:
            total += 400
        elif g.winner == other:
            total -= 400
    return floor(total / len(mine) + Fraction(1, 2))


@settings(FAST, max_examples=300)
@given(arenas())
def test_standings_are_sorted_by_the_documented_keys(
    case: tuple[list[ArenaEntrant], list[ArenaGame]],
) -> None:
    people, games = case
    joined = {e.player: e.joined for e in people}
    rows = arena_standings(people, games)
    assert [r.rank for r in rows] == list(range(1, len(people) + 1))
    for r in rows:
        assert r.performance == naive_performance(people, games, r.player)
    keys = [(-r.score, -r.performance, r.games, joined[r.player], r.player) for r in rows]
    assert keys == sorted(keys)


@settings(FAST, max_examples=300)
@given(arenas(), st.integers(min_value=1, max_value=4), st.data())
def test_club_scores_are_top_n_sums(
    case: tuple[list[ArenaEntrant], list[ArenaGame]], top: int, data: st.DataObject
) -> None:
    people, games = case
    clubs = {
        e.player: club
        for e in people
        if (club := data.draw(st.sampled_from([None, 1, 2, 3]))) is not None
    }
    rows = arena_standings(people, games)
    table = club_standings(rows, clubs, top=top)
    score = {r.player: r.score for r in rows}
    assert {c.club for c in table} == set(clubs.values())
    for c in table:
        members = sorted((score[p] for p, k in clubs.items() if k == c.club), reverse=True)
        assert c.score == sum(members[:top]) == sum(s.score for s in c.top)
        assert len(c.top) == min(top, len(members)) and c.players == len(members)
        assert all(clubs[s.player] == c.club for s in c.top)
    assert [c.score for c in table] == sorted((c.score for c in table), reverse=True)
    assert [c.rank for c in table] == list(range(1, len(table) + 1))


@st.composite
def waves(draw: st.DrawFn) -> list[Waiting]:
    """Up to 24 waiting players with close scores and ratings, most with a last opponent (often
    waiting too, sometimes not), one in six a house player, most in one of three clubs."""
    ids = draw(st.lists(st.integers(1, 60), max_size=24, unique=True))
    others = [*ids, 99]  # 99: a last opponent who is not waiting
    shape = st.tuples(
        st.integers(0, 12),
        st.integers(1200, 1800),
        st.integers(-1, len(others) - 1),
        st.integers(0, 5),
        st.integers(0, 3),
    )
    rows = draw(st.lists(shape, min_size=len(ids), max_size=len(ids)))
    return [
        Waiting(p, score, rating, others[last] if last >= 0 else None, house == 0, club or None)
        for p, (score, rating, last, house, club) in zip(ids, rows, strict=True)
    ]


def forbidden(a: Waiting, b: Waiting) -> bool:
    """Said again the plain way: house players, last opponents, clubmates."""
    if a.house or b.house:
        return True
    if a.last_opponent == b.player or b.last_opponent == a.player:
        return True
    return a.club is not None and a.club == b.club


@settings(FAST, max_examples=500)
@given(waves())
def test_pairing_never_breaks_its_rules(waiting: list[Waiting]) -> None:
    wave = pair_wave(waiting)
    by_id = {w.player: w for w in waiting}
    paired = [p for pair in wave.pairs for p in pair]
    # Disjoint, only waiting players, never a house player, never a forbidden pair.
    assert len(paired) == len(set(paired))
    assert set(paired) <= set(by_id)
    for a, b in wave.pairs:
        assert not forbidden(by_id[a], by_id[b])
        # Higher-placed first.
        wa, wb = by_id[a], by_id[b]
        assert (-wa.score, -wa.rating, a) < (-wb.score, -wb.rating, b)
    # Everyone who is not a house player is either paired or left waiting, once.
    people = {w.player for w in waiting if not w.house}
    assert set(paired) | set(wave.left) == people
    assert not set(paired) & set(wave.left) and len(wave.left) == len(set(wave.left))
    # Nobody is left waiting who could have met another player left waiting.
    left = [by_id[p] for p in wave.left]
    for i, one in enumerate(left):
        for other in left[i + 1 :]:
            assert forbidden(one, other)
    # So: if any two waiting players may meet, somebody is paired.
    possible = any(
        not forbidden(one, other) for i, one in enumerate(waiting) for other in waiting[i + 1 :]
    )
    assert bool(wave.pairs) == possible


@settings(FAST, max_examples=200)
@given(waves())
def test_without_conflicts_neighbours_meet(waiting: list[Waiting]) -> None:
    """With no last opponents, clubs or house players, the wave pairs 1-2, 3-4, ... of the order
    by score then rating: the closest scores meet."""
    plain = [Waiting(w.player, w.score, w.rating) for w in waiting]
    order = [w.player for w in sorted(plain, key=lambda w: (-w.score, -w.rating, w.player))]
    wave = pair_wave(plain)
    assert list(wave.pairs) == [(order[i], order[i + 1]) for i in range(0, len(order) - 1, 2)]
    assert wave.left == tuple(order[len(order) - len(order) % 2 :])
