"""Arena rules, as pure functions: no Django, no database, no clock of its own.

Players are plain integers (the site uses user ids). Times are passed in (`now`), never read.

The arena
    An arena runs for a set time (30 to 120 minutes). Players join at any moment while it runs,
    and may pause or leave; nobody is eliminated, and a player who pauses or leaves keeps their
    points and their streak (only games change a streak). Games are one on one.

Pairing in waves
    Every few seconds the site pairs the players waiting for a game (`pair_wave`). House players
    are never paired. Two players never meet if either one's last opponent was the other (no
    game against the same opponent twice in a row), nor when they belong to the same club (a
    club battle: no club may feed its own points). The waiting players are sorted by arena score,
    then by rating at the start of the arena (best first), and paired from the top: each player
    takes the next one down the list who may meet them. A player with nobody they may meet waits
    for the next wave; so, with an odd number, does the last one. The wave never leaves two
    players waiting who could have met each other.

Scoring
    A win scores 2 points, a loss 0. After two wins in a row a player is **on fire**: each further
    win scores double (4) until a game that is not a win. At Gym tables with a turn clock a player
    may **berserk** before their first move: their own clock is halved, and a win scores 1 point
    more. Decided: the berserk point is never doubled (a berserk win is 3, or 5 on fire), as at
    lichess; a berserk loss scores 0 like any loss. A game that ends without a winner (aborted,
    or both players absent) scores 0 for both and ends both streaks: it is a game played, not a
    win. A win by the opponent's absence is a win. Games still on when the arena ends are played
    out and count.

When pairing stops
    Nobody is paired once the time left is shorter than a game's expected length
    (`expected_game_seconds`): `GAME_START_SECONDS` to open the table, plus the expected number
    of player actions for the target (`ACTIONS_PER_50` per 50 points, measured) times the seconds
    an action takes (`HUMAN_PACE_SECONDS`, or the Gym turn clock when it is shorter).

Standings
    By score; ties by performance (the average start rating of the opponents met, plus 400 x
    (wins - losses) / games, rounded to a whole number; before a first game, the player's own
    start rating), then fewer games, then earlier join (then the lower player id, so the order is
    always the same). A game without a winner counts in the games, and in the performance like
    a draw.

Club battles
    A club's score is the sum of the points of its best N players (the first N of its players in
    the standings). Ties: the club whose best player stands higher, then the lower club id.

>>> wave = pair_wave([Waiting(1, 6, 1500), Waiting(2, 4, 1600), Waiting(3, 4, 1450, 1),
...                   Waiting(4, 0, 1700, house=True)])
>>> wave.pairs, wave.left
(((1, 2),), (3,))
>>> [game_points(won=True, berserk=False, streak=s) for s in range(4)]
[2, 2, 4, 4]
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Final, Literal

from engine.rules import MODE_RULES, Mode

__all__ = [
    "ACTIONS_PER_50",
    "ARENA_MINUTES",
    "BERSERK_POINTS",
    "GAME_START_SECONDS",
    "HUMAN_PACE_SECONDS",
    "RECENT_RESULTS",
    "STREAK_WINS",
    "WIN_POINTS",
    "ArenaEntrant",
    "ArenaError",
    "ArenaGame",
    "ArenaStanding",
    "ClubStanding",
    "Mark",
    "Waiting",
    "Wave",
    "arena_standings",
    "berserk_allowed",
    "berserk_clock_ms",
    "check_minutes",
    "club_standings",
    "expected_game_seconds",
    "game_points",
    "may_meet",
    "on_fire",
    "pair_wave",
    "pairing_open",
    "performance",
    "streak_after",
]

#: How long an arena may run, in minutes (both ends allowed).
ARENA_MINUTES: Final = (30, 120)
WIN_POINTS: Final = 2
#: Wins in a row after which every further win is doubled (the player is on fire).
STREAK_WINS: Final = 2
#: What a berserk win adds (never doubled).
BERSERK_POINTS: Final = 1
#: How many of a player's last results the standings show.
RECENT_RESULTS: Final = 10

#: Seconds from pairing to a game's first move: the table opens, the players sit and start.
GAME_START_SECONDS: Final = 30
#: Seconds a player takes over an action at a human pace (bench/soak.py plays at 2 to 6 s).
HUMAN_PACE_SECONDS: Final = 4
#: Player actions (plays and draws; forced passes are the server's) in a one-on-one game, per 50
#: points of target: the mean over 200 seeded games of two Regular house players per mode and
#: target (engine only: Citizen and Inmate to 150 and 250, Fives and Threes to 50, 100, 150, 250
#: and 500), the largest over those targets, rounded up.
ACTIONS_PER_50: Final[Mapping[Mode, int]] = {
    Mode.CITIZEN: 27,
    Mode.CITIZEN_GYM: 27,
    Mode.INMATE: 32,
    Mode.INMATE_GYM: 30,
    Mode.FIVES: 36,
    Mode.THREES: 26,
}

#: A result in a player's recent results: a win, a berserk win, a loss, no winner.
Mark = Literal["W", "B", "L", "N"]


class ArenaError(ValueError):
    """Something an arena cannot hold: a length out of range, a game naming a stranger."""


# --- the arena's length and clock ------------------------------------------------------------


def check_minutes(minutes: int) -> int:
    """An arena's length in minutes, if allowed (30 to 120); ArenaError otherwise.

    >>> check_minutes(45)
    45
    >>> check_minutes(20)
    Traceback (most recent call last):
    ...
    tournaments.arena.ArenaError: an arena runs 30 to 120 minutes, not 20
    """
    low, high = ARENA_MINUTES
    if type(minutes) is not int or not low <= minutes <= high:
        raise ArenaError(f"an arena runs {low} to {high} minutes, not {minutes!r}")
    return minutes


def _mode(mode: Mode | str) -> Mode:
    try:
        return Mode(mode)
    except ValueError:
        raise ArenaError(f"no mode {mode!r}") from None


def _check_clock(mode: Mode, clock: int | None) -> None:
    if clock is None:
        return
    if not MODE_RULES[mode].gym:
        raise ArenaError(f"{MODE_RULES[mode].title} tables have no turn clock")
    if type(clock) is not int or clock <= 0:
        raise ArenaError(f"a turn clock is a whole number of seconds above zero, not {clock!r}")


def berserk_allowed(mode: Mode | str, clock: int | None, *, moved: bool) -> bool:
    """Whether a player may berserk: at a Gym table with a turn clock, before their first move.

    >>> berserk_allowed("citizen_gym", 10, moved=False)
    True
    >>> berserk_allowed("citizen", None, moved=False)
    False
    >>> berserk_allowed("inmate_gym", None, moved=False)  # a Gym table played without a clock
    False
    >>> berserk_allowed("inmate_gym", 20, moved=True)
    False
    """
    checked = _mode(mode)
    _check_clock(checked, clock)
    return MODE_RULES[checked].gym and clock is not None and not moved


def berserk_clock_ms(clock: int) -> int:
    """A berserker's own turn clock, in milliseconds: half the table's (in seconds).

    >>> berserk_clock_ms(10), berserk_clock_ms(3)
    (5000, 1500)
    """
    if type(clock) is not int or clock <= 0:
        raise ArenaError(f"a turn clock is a whole number of seconds above zero, not {clock!r}")
    return clock * 1000 // 2


def expected_game_seconds(mode: Mode | str, target: int, clock: int | None = None) -> int:
    """How long a one-on-one game to `target` is expected to take, in seconds, from pairing.

    `GAME_START_SECONDS` + ceil(`ACTIONS_PER_50`[mode] x target / 50) x the seconds per action:
    `HUMAN_PACE_SECONDS`, or the Gym turn clock when it is shorter. Berserk is not counted (it
    only makes a game shorter, so pairing stops no later than it should).

    >>> expected_game_seconds("citizen", 150)  # 30 + 81 actions x 4 s
    354
    >>> expected_game_seconds("citizen_gym", 150, clock=3)  # 30 + 81 x 3 s
    273
    >>> expected_game_seconds("fives", 75)  # 30 + 54 x 4 s
    246
    """
    checked = _mode(mode)
    _check_clock(checked, clock)
    if type(target) is not int or target <= 0:
        raise ArenaError(f"a target is a whole number of points above zero, not {target!r}")
    actions = -(-ACTIONS_PER_50[checked] * target // 50)
    pace = HUMAN_PACE_SECONDS if clock is None else min(HUMAN_PACE_SECONDS, clock)
    return GAME_START_SECONDS + actions * pace


def pairing_open(
    *, ends_at: datetime, now: datetime, mode: Mode | str, target: int, clock: int | None = None
) -> bool:
    """Whether a wave may still pair players: a game paired now is expected to end by `ends_at`
    (`expected_game_seconds`). False once the arena has ended.

    >>> end = datetime(2025, 1, 1, 20, 0)
    >>> pairing_open(ends_at=end, now=end - timedelta(seconds=354), mode="citizen", target=150)
    True
    >>> pairing_open(ends_at=end, now=end - timedelta(seconds=353), mode="citizen", target=150)
    False
    """
    needed = timedelta(seconds=expected_game_seconds(mode, target, clock))
    return now < ends_at and ends_at - now >= needed


# --- pairing ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Waiting:
    """A player waiting for a game in this wave."""

    player: int
    score: int
    """Arena points so far."""
    rating: float
    """Rating when they joined the arena."""
    last_opponent: int | None = None
    """Who they played last in this arena (None: nobody yet)."""
    house: bool = False
    """A house player: never paired."""
    club: int | None = None
    """Their club in a club battle: clubmates are never paired."""


@dataclass(frozen=True, slots=True)
class Wave:
    """One wave's pairings, best-placed pair first, each (higher-placed, lower-placed); and the
    players (not house players) left waiting for the next wave, best-placed first."""

    pairs: tuple[tuple[int, int], ...]
    left: tuple[int, ...]


def may_meet(a: Waiting, b: Waiting) -> bool:
    """Whether two waiting players may be paired: not the same, neither a house player, neither
    the other's last opponent, not clubmates."""
    return (
        a.player != b.player
        and not a.house
        and not b.house
        and a.last_opponent != b.player
        and b.last_opponent != a.player
        and (a.club is None or a.club != b.club)
    )


def pair_wave(waiting: Iterable[Waiting]) -> Wave:
    """Pair the waiting players (see the module's docstring): sorted by score then start rating,
    best first (then player id); the best still unpaired takes the next one down who may meet
    them; a player nobody may meet waits. Raises ArenaError if a player is listed twice.

    >>> pair_wave([Waiting(1, 8, 1500, 2), Waiting(2, 8, 1400, 1), Waiting(3, 6, 1600)]).pairs
    ((1, 3),)
    >>> pair_wave([Waiting(1, 8, 1500, 2), Waiting(2, 8, 1400, 1)])
    Wave(pairs=(), left=(1, 2))
    """
    players = [w for w in waiting if not w.house]
    if len({w.player for w in players}) != len(players):
        raise ArenaError("a player is listed twice in one wave")
    unpaired = sorted(players, key=lambda w: (-w.score, -w.rating, w.player))
    pairs: list[tuple[int, int]] = []
    left: list[int] = []
    # The list shrinks as players are paired, so each search skips everyone already placed; it
    # usually stops at the very next player. Only clubmates can make it long: a player whose
    # club holds everyone still unpaired waits without looking (so a club battle dominated by
    # one club costs little more than any other wave).
    clubmates = Counter(w.club for w in unpaired if w.club is not None)
    while unpaired:
        top = unpaired.pop(0)
        strangers = len(unpaired) - (clubmates[top.club] - 1 if top.club is not None else 0)
        partner = None
        if strangers > 0:
            partner = next((i for i, w in enumerate(unpaired) if may_meet(top, w)), None)
        if partner is None:
            left.append(top.player)
        else:
            other = unpaired.pop(partner)
            pairs.append((top.player, other.player))
            if other.club is not None:
                clubmates[other.club] -= 1
        if top.club is not None:
            clubmates[top.club] -= 1
    return Wave(tuple(pairs), tuple(left))


# --- scoring ---------------------------------------------------------------------------------


def game_points(*, won: bool, berserk: bool, streak: int) -> int:
    """A player's points for one game, given their wins in a row before it (`streak`).

    >>> [game_points(won=True, berserk=True, streak=s) for s in (0, 1, 2, 3)]
    [3, 3, 5, 5]
    >>> game_points(won=False, berserk=True, streak=5)
    0
    """
    if not won:
        return 0
    points = WIN_POINTS * (2 if on_fire(streak) else 1)
    return points + (BERSERK_POINTS if berserk else 0)


def on_fire(streak: int) -> bool:
    """Whether a player with `streak` wins in a row scores double for their next win."""
    return streak >= STREAK_WINS


def streak_after(streak: int, *, won: bool) -> int:
    """Wins in a row after a game: one more for a win; back to 0 after anything else."""
    return streak + 1 if won else 0


@dataclass(frozen=True, slots=True)
class ArenaGame:
    """One finished arena game (or one still on when the arena ended, once it is over)."""

    a: int
    b: int
    winner: int | None
    """None: nobody won (aborted, or both absent)."""
    berserk: frozenset[int] = frozenset()
    """The players who berserked."""


@dataclass(frozen=True, slots=True)
class ArenaEntrant:
    """A player who joined the arena."""

    player: int
    rating: float
    """Their rating when they joined: what pairing and performance use."""
    joined: datetime


@dataclass(frozen=True, slots=True)
class ArenaStanding:
    """One row of the standings."""

    rank: int
    player: int
    score: int
    games: int
    wins: int
    losses: int
    streak: int
    """Wins in a row now."""
    fire: bool
    """On fire: the next win scores double."""
    berserks: int
    """Games in which they berserked (won or not)."""
    performance: int
    recent: tuple[Mark, ...]
    """Their last results (at most RECENT_RESULTS), oldest first."""
    recent_points: tuple[int, ...]
    """The points of those results."""


@dataclass(slots=True)
class _Record:
    score: int = 0
    wins: int = 0
    losses: int = 0
    streak: int = 0
    berserks: int = 0
    opponents: list[float] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    points: list[int] = field(default_factory=list)


def _check_game(game: ArenaGame, known: Mapping[int, object]) -> None:
    if game.a == game.b:
        raise ArenaError("nobody plays themselves")
    if game.a not in known or game.b not in known:
        raise ArenaError("an arena game names someone who did not join the arena")
    if game.winner not in (None, game.a, game.b):
        raise ArenaError("an arena game's winner did not play in it")
    if not game.berserk <= {game.a, game.b}:
        raise ArenaError("only a game's players can berserk in it")


def performance(opponent_ratings: Sequence[float], wins: int, losses: int) -> float:
    """The average start rating of the opponents met, plus 400 x (wins - losses) / games.

    >>> performance([1500, 1700], wins=2, losses=0)
    2000.0
    """
    if not opponent_ratings:
        raise ArenaError("performance needs at least one game")
    # One division: with whole ratings the result is exact wherever it can be (a half included),
    # so rounding it gives the same whole number as rounding the true value.
    return (sum(opponent_ratings) + 400 * (wins - losses)) / len(opponent_ratings)


def _whole(value: float) -> int:
    """Rounded to a whole number, halves up."""
    return math.floor(value + 0.5)


def arena_standings(
    entrants: Sequence[ArenaEntrant], games: Sequence[ArenaGame], *, recent: int = RECENT_RESULTS
) -> list[ArenaStanding]:
    """The standings, best first (see the module's docstring for the order), from everyone who
    joined and the games over, in the order they ended (each player's own games in the order they
    played them: that is what their streak follows).

    >>> t = datetime(2025, 1, 1, 20, 0)
    >>> people = [ArenaEntrant(1, 1500, t), ArenaEntrant(2, 1600, t), ArenaEntrant(3, 1400, t)]
    >>> games = [ArenaGame(1, 2, 1), ArenaGame(1, 3, 1, frozenset({1})), ArenaGame(2, 3, 3)]
    >>> [(s.rank, s.player, s.score, s.streak, s.recent) for s in arena_standings(people, games)]
    [(1, 1, 5, 2, ('W', 'B')), (2, 3, 2, 1, ('L', 'W')), (3, 2, 0, 0, ('L', 'L'))]
    """
    by_player = {e.player: e for e in entrants}
    if len(by_player) != len(entrants):
        raise ArenaError("a player joined the arena twice")
    records = {p: _Record() for p in by_player}
    for game in games:
        _check_game(game, by_player)
        for me, other in ((game.a, game.b), (game.b, game.a)):
            record = records[me]
            won = game.winner == me
            berserk = me in game.berserk
            points = game_points(won=won, berserk=berserk, streak=record.streak)
            record.score += points
            record.streak = streak_after(record.streak, won=won)
            record.wins += won
            record.losses += game.winner == other
            record.berserks += berserk
            record.opponents.append(by_player[other].rating)
            mark: Mark = "N" if game.winner is None else ("B" if berserk else "W") if won else "L"
            record.marks.append(mark)
            record.points.append(points)
    rows = []
    for player, record in records.items():
        played = len(record.opponents)
        if played:
            perf = _whole(performance(record.opponents, record.wins, record.losses))
        else:
            perf = _whole(by_player[player].rating)
        rows.append((player, record, played, perf))
    rows.sort(key=lambda r: (-r[1].score, -r[3], r[2], by_player[r[0]].joined, r[0]))
    keep = max(0, recent)
    return [
        ArenaStanding(
            rank=rank,
            player=player,
            score=record.score,
            games=played,
            wins=record.wins,
            losses=record.losses,
            streak=record.streak,
            fire=on_fire(record.streak),
            berserks=record.berserks,
            performance=perf,
            recent=tuple(record.marks[len(record.marks) - keep :]) if keep else (),
            recent_points=tuple(record.points[len(record.points) - keep :]) if keep else (),
        )
        for rank, (player, record, played, perf) in enumerate(rows, start=1)
    ]


# --- club battles ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClubStanding:
    rank: int
    club: int
    score: int
    """The sum of its top players' points."""
    top: tuple[ArenaStanding, ...]
    """Its best players (at most N), best first, as they stand in the arena."""
    players: int
    """How many of its players are in the arena."""


def club_standings(
    standings: Sequence[ArenaStanding], clubs: Mapping[int, int], *, top: int
) -> list[ClubStanding]:
    """The clubs of a club battle, best first: each club's score is the sum of the points of its
    `top` best players (the first of its players in `standings`). Ties: the club whose best
    player stands higher, then the lower club id. Players without a club (not in `clubs`) count
    for nobody.

    >>> t = datetime(2025, 1, 1, 20, 0)
    >>> people = [ArenaEntrant(p, 1500, t) for p in (1, 2, 3, 4)]
    >>> rows = arena_standings(people, [ArenaGame(1, 2, 1), ArenaGame(3, 4, 3), ArenaGame(1, 3, 1)])
    >>> [(c.club, c.score, [s.player for s in c.top]) for c in club_standings(
    ...     rows, {1: 10, 4: 10, 2: 20, 3: 20}, top=1)]
    [(10, 4, [1]), (20, 2, [3])]
    """
    if type(top) is not int or top < 1:
        raise ArenaError(f"a club counts its best 1 or more players, not {top!r}")
    members: dict[int, list[ArenaStanding]] = {}
    for row in sorted(standings, key=lambda s: s.rank):
        club = clubs.get(row.player)
        if club is not None:
            members.setdefault(club, []).append(row)
    table = sorted(
        members.items(),
        key=lambda item: (-sum(s.score for s in item[1][:top]), item[1][0].rank, item[0]),
    )
    return [
        ClubStanding(
            rank=rank,
            club=club,
            score=sum(s.score for s in rows[:top]),
            top=tuple(rows[:top]),
            players=len(rows),
        )
        for rank, (club, rows) in enumerate(table, start=1)
    ]
