"""Brackets and Swiss pairings, as pure functions: no Django, no database, no clock.

Entrants are plain integers (the site uses entry ids), given in seed order: seed 1 first.

Single elimination
    The bracket has the next power of two at or above the number of entrants; the seeds past the
    last entrant are byes. Round one pairs seeds in the standard order (1 v 8, 4 v 5, 2 v 7,
    3 v 6 for eight), so the byes fall to the top seeds and seeds 1 and 2 can meet only in the
    final.

Double elimination
    A winners bracket as above; its losers drop into a losers bracket (losers of winners round j
    meet the survivors of the losers bracket, in reversed order every other round so that two
    players who just met do not meet again at once); a loser there is out. The grand final pits
    the winners bracket's champion against the losers bracket's. Decided: a **bracket reset** is
    played. If the losers-bracket player wins the grand final, both players have now lost once,
    so a second grand final decides the event (everyone is out only after two losses).

Results, walkovers and absences
    A match's result is the winning entrant, or None when neither player showed up (both
    forfeit). A match against nobody (a bye, or the empty place left by a double forfeit) is a
    walkover: the entrant goes on without playing. Decided: a player who forfeits by absence
    simply loses that match (in double elimination they drop to the losers bracket like any
    loser); when **both** are absent, both are out of the event and nobody goes on from that
    match, so their next opponent, if any, goes through on a walkover.

Placings
    The champion is first; everyone else is placed by how late they went out (the round of their
    last match), later first; players who went out in the same round share a place (e.g. the two
    losing semi-finalists share third and fourth), those who lost it ahead of those who were both
    absent from it. If nobody wins the final, the finalists share first and second.

Swiss
    A set number of rounds (never more than entrants - 1). A win scores 1 point, a bye 1 point, a
    loss or an absence 0. Standings: points, then Buchholz (the sum of the points of every
    opponent met; a bye counts nothing), then Sonneborn-Berger (the sum of the points of the
    opponents beaten), then seed. Each round pairs players with equal points where it can, the
    top half of a score group against its bottom half, and never two players who have met; with
    an odd number the bye goes to the lowest-ranked player who has not had one. When no pairing
    without a rematch exists the event ends after the rounds already played.

>>> seeding_order(8)
[1, 8, 4, 5, 2, 7, 3, 6]
>>> b = single_elimination(3)
>>> [(m.key, m.sources) for m in b.matches]
[('W1-1', (('seed', 1), ('seed', 4))), ('W1-2', (('seed', 2), ('seed', 3))), \
('W2-1', (('winner', 'W1-1'), ('winner', 'W1-2')))]
>>> states = resolve(b, [10, 20, 30], {})
>>> states["W1-1"].status, states["W1-1"].winner, states["W1-2"].status
('walkover', 10, 'ready')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final, Literal

__all__ = [
    "EMPTY",
    "MAX_ENTRANTS",
    "MIN_ENTRANTS",
    "PENDING",
    "Bracket",
    "BracketError",
    "BracketMatch",
    "MatchState",
    "Nobody",
    "Standing",
    "SwissError",
    "SwissGame",
    "bracket_size",
    "double_elimination",
    "elimination_placings",
    "prize_amounts",
    "resolve",
    "seeding_order",
    "single_elimination",
    "swiss_pair",
    "swiss_rounds_possible",
    "swiss_standings",
]

MIN_ENTRANTS: Final = 2
MAX_ENTRANTS: Final = 64
#: The most steps the Swiss pairing search may take before it gives up.
SWISS_SEARCH_BUDGET: Final = 200_000


class BracketError(ValueError):
    """Something a bracket cannot hold: a size out of range, a result for the wrong players."""


class SwissError(ValueError):
    """No Swiss pairing exists without a rematch."""


class Nobody(Enum):
    """A place in a match that holds no entrant: nobody will come (EMPTY), or not known yet."""

    EMPTY = "empty"
    PENDING = "pending"


EMPTY: Final = Nobody.EMPTY
PENDING: Final = Nobody.PENDING

#: A place in a match: an entrant, or nobody.
Side = int | Nobody
#: Where a place in a match is filled from: a seed (1-based), or a match's winner or loser.
Source = tuple[Literal["seed"], int] | tuple[Literal["winner", "loser"], str]
Status = Literal["pending", "ready", "done", "walkover", "empty", "skipped"]
#: The statuses after which a match needs nothing more.
FINAL_STATUSES: Final = frozenset({"done", "walkover", "empty", "skipped"})


# --- building brackets -------------------------------------------------------------------------


def bracket_size(entrants: int) -> int:
    """The smallest power of two that holds `entrants` (2 to 64).

    >>> [bracket_size(n) for n in (2, 3, 5, 8, 9, 33, 64)]
    [2, 4, 8, 8, 16, 64, 64]
    """
    if type(entrants) is not int or not MIN_ENTRANTS <= entrants <= MAX_ENTRANTS:
        raise BracketError(
            f"a bracket holds {MIN_ENTRANTS} to {MAX_ENTRANTS} entrants, not {entrants!r}"
        )
    size = 2
    while size < entrants:
        size *= 2
    return size


def seeding_order(size: int) -> list[int]:
    """The seeds in bracket order: neighbours meet in round one, and each seed meets a better
    one only as late as possible (seeds 1 and 2 in the final, 1 to 4 in the semi-finals...).

    >>> seeding_order(4), seeding_order(16)[:6]
    ([1, 4, 2, 3], [1, 16, 8, 9, 4, 13])
    """
    if size < 2 or size & (size - 1):
        raise BracketError(f"a bracket's size is a power of two, not {size}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


@dataclass(frozen=True, slots=True)
class BracketMatch:
    """One match of an elimination bracket, as drawn and as scheduled."""

    key: str
    """`W<stage>-<n>` (winners bracket), `L<stage>-<n>` (losers bracket), `GF1`, `GF2`."""
    bracket: Literal["W", "L", "F"]
    stage: int
    """The column within its bracket, from 1."""
    number: int
    """The row within its column, from 1."""
    round: int
    """When it is played: 1 + the latest round it waits for."""
    sources: tuple[Source, Source]
    reset: bool = False
    """The bracket reset: played only if the losers-bracket player wins the grand final."""


@dataclass(frozen=True, slots=True)
class Bracket:
    format: Literal["single", "double"]
    entrants: int
    size: int
    matches: tuple[BracketMatch, ...]

    def match(self, key: str) -> BracketMatch:
        for match in self.matches:
            if match.key == key:
                return match
        raise BracketError(f"no match {key!r} in this bracket")

    @property
    def rounds(self) -> int:
        return max(m.round for m in self.matches)

    @property
    def final_keys(self) -> tuple[str, ...]:
        """The match that decides the event, then (double elimination) its reset."""
        if self.format == "double":
            return ("GF1", "GF2")
        return (self.matches[-1].key,)


def _with_rounds(matches: list[BracketMatch]) -> tuple[BracketMatch, ...]:
    """Give every match its round: 1 + the latest round of the matches it waits for."""
    rounds: dict[str, int] = {}
    out = []
    for match in matches:
        waits = [
            rounds[ref] for kind, ref in match.sources if kind != "seed" and isinstance(ref, str)
        ]
        rounds[match.key] = 1 + max(waits, default=0)
        out.append(
            BracketMatch(
                match.key,
                match.bracket,
                match.stage,
                match.number,
                rounds[match.key],
                match.sources,
                match.reset,
            )
        )
    return tuple(out)


def _winners_bracket(size: int) -> list[BracketMatch]:
    order = seeding_order(size)
    matches = []
    first: list[BracketMatch] = [
        BracketMatch(
            f"W1-{i + 1}", "W", 1, i + 1, 0, (("seed", order[2 * i]), ("seed", order[2 * i + 1]))
        )
        for i in range(size // 2)
    ]
    matches += first
    stage, count = 1, size // 2
    while count > 1:
        stage, count = stage + 1, count // 2
        matches += [
            BracketMatch(
                f"W{stage}-{i + 1}",
                "W",
                stage,
                i + 1,
                0,
                (("winner", f"W{stage - 1}-{2 * i + 1}"), ("winner", f"W{stage - 1}-{2 * i + 2}")),
            )
            for i in range(count)
        ]
    return matches


def single_elimination(entrants: int) -> Bracket:
    size = bracket_size(entrants)
    return Bracket("single", entrants, size, _with_rounds(_winners_bracket(size)))


def double_elimination(entrants: int) -> Bracket:
    size = bracket_size(entrants)
    stages = size.bit_length() - 1  # winners-bracket rounds
    matches = _winners_bracket(size)
    losers: list[BracketMatch] = []
    if stages >= 2:
        # L1: the losers of winners round 1 meet each other.
        count = size // 4
        losers += [
            BracketMatch(
                f"L1-{i + 1}",
                "L",
                1,
                i + 1,
                0,
                (("loser", f"W1-{2 * i + 1}"), ("loser", f"W1-{2 * i + 2}")),
            )
            for i in range(count)
        ]
        for j in range(1, stages):
            # L(2j): the survivors of L(2j-1) meet the losers of winners round j+1, in reversed
            # order every other round (so two players who just met are kept apart).
            stage = 2 * j
            reverse = j % 2 == 1
            losers += [
                BracketMatch(
                    f"L{stage}-{i + 1}",
                    "L",
                    stage,
                    i + 1,
                    0,
                    (
                        ("winner", f"L{stage - 1}-{i + 1}"),
                        ("loser", f"W{j + 1}-{(count - i) if reverse else (i + 1)}"),
                    ),
                )
                for i in range(count)
            ]
            if j == stages - 1:
                break
            # L(2j+1): the survivors of L(2j) meet each other.
            count //= 2
            losers += [
                BracketMatch(
                    f"L{stage + 1}-{i + 1}",
                    "L",
                    stage + 1,
                    i + 1,
                    0,
                    (("winner", f"L{stage}-{2 * i + 1}"), ("winner", f"L{stage}-{2 * i + 2}")),
                )
                for i in range(count)
            ]
    winners_final = f"W{stages}-1"
    losers_champion: Source = ("winner", losers[-1].key) if losers else ("loser", winners_final)
    final = [
        BracketMatch("GF1", "F", 1, 1, 0, (("winner", winners_final), losers_champion)),
        BracketMatch("GF2", "F", 2, 1, 0, (("winner", "GF1"), ("loser", "GF1")), reset=True),
    ]
    return Bracket("double", entrants, size, _with_rounds(matches + losers + final))


# --- resolving a bracket from its results ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchState:
    key: str
    sides: tuple[Side, Side]
    status: Status
    """pending: waiting for an earlier match; ready: to be played; done: played (or both
    absent); walkover: one entrant against nobody; empty: nobody at all; skipped: a bracket
    reset that is not needed."""
    winner: Side
    loser: Side

    @property
    def entrants(self) -> tuple[int, ...]:
        return tuple(s for s in self.sides if isinstance(s, int))


def resolve(
    bracket: Bracket, seeds: Sequence[int], results: Mapping[str, int | None]
) -> dict[str, MatchState]:
    """Every match's entrants and state, from the seeds (entrants in seed order) and the results
    so far (match key → winning entrant, or None when both were absent).

    Raises BracketError for seeds that do not fit the bracket, and for a result that is not
    possible: for a match that is not ready, or naming someone who is not in it.
    """
    if len(seeds) != bracket.entrants or len(set(seeds)) != len(seeds):
        raise BracketError(f"the bracket needs {bracket.entrants} different entrants in seed order")
    unknown = set(results) - {m.key for m in bracket.matches}
    if unknown:
        raise BracketError(f"no match {sorted(unknown)[0]!r} in this bracket")
    states: dict[str, MatchState] = {}

    def side(source: Source) -> Side:
        kind, ref = source
        if kind == "seed":
            assert isinstance(ref, int)
            return seeds[ref - 1] if ref <= len(seeds) else EMPTY
        assert isinstance(ref, str)
        earlier = states[ref]
        return earlier.winner if kind == "winner" else earlier.loser

    for match in sorted(bracket.matches, key=lambda m: m.round):
        if match.reset:
            states[match.key] = _reset_state(match, states["GF1"], results)
            continue
        states[match.key] = _state(
            match.key, (side(match.sources[0]), side(match.sources[1])), results
        )
    return {m.key: states[m.key] for m in bracket.matches}


def _state(key: str, sides: tuple[Side, Side], results: Mapping[str, int | None]) -> MatchState:
    a, b = sides
    if PENDING in sides:
        status: Status = "pending"
        winner: Side = PENDING
        loser: Side = PENDING
    elif a is EMPTY and b is EMPTY:
        status, winner, loser = "empty", EMPTY, EMPTY
    elif a is EMPTY or b is EMPTY:
        status, winner, loser = "walkover", (b if a is EMPTY else a), EMPTY
    elif key in results:
        won = results[key]
        if won is None:
            status, winner, loser = "done", EMPTY, EMPTY
        elif won in sides:
            status, winner, loser = "done", won, (b if won == a else a)
        else:
            raise BracketError(f"the result of {key} names {won}, who does not play in it")
        return MatchState(key, sides, status, winner, loser)
    else:
        status, winner, loser = "ready", PENDING, PENDING
    if key in results:
        raise BracketError(f"{key} is not a match to be played ({status})")
    return MatchState(key, sides, status, winner, loser)


def _reset_state(
    match: BracketMatch, final: MatchState, results: Mapping[str, int | None]
) -> MatchState:
    """The bracket reset: the grand final's two players again, if the losers-bracket player
    (the second place) won it; otherwise not needed."""
    if final.status in ("pending", "ready"):
        if match.key in results:
            raise BracketError(f"{match.key} is not a match to be played yet")
        return MatchState(match.key, (PENDING, PENDING), "pending", PENDING, PENDING)
    needed = final.status == "done" and final.winner == final.sides[1] and final.winner is not EMPTY
    if not needed:
        if match.key in results:
            raise BracketError(f"{match.key} is not played: the grand final decided the event")
        return MatchState(match.key, final.sides, "skipped", EMPTY, EMPTY)
    return _state(match.key, final.sides, results)


def is_complete(states: Mapping[str, MatchState]) -> bool:
    return all(s.status in FINAL_STATUSES for s in states.values())


def champion(bracket: Bracket, states: Mapping[str, MatchState]) -> int | None:
    """The event's winner once the bracket is complete (None: nobody won the final)."""
    for key in reversed(bracket.final_keys):
        state = states[key]
        if state.status in ("done", "walkover"):
            return state.winner if isinstance(state.winner, int) else None
    return None


def elimination_placings(bracket: Bracket, states: Mapping[str, MatchState]) -> list[list[int]]:
    """The final placings of a complete bracket, best first; players in one list share a place.

    >>> b = single_elimination(4)
    >>> s = resolve(b, [1, 2, 3, 4], {"W1-1": 1, "W1-2": 3, "W2-1": 3})
    >>> elimination_placings(b, s)
    [[3], [1], [2, 4]]
    """
    if not is_complete(states):
        raise BracketError("the bracket is not complete")
    first = champion(bracket, states)
    by_round = {m.key: m.round for m in bracket.matches}
    # Where each player went out: the round of their last match, and whether they were absent
    # from it (both absent): they come after those who went out in that round by losing.
    out: dict[int, tuple[int, int]] = {}
    for key, state in states.items():
        if state.status not in ("done", "walkover"):
            continue
        absent = int(state.status == "done" and state.winner is EMPTY)
        for entrant in state.entrants:
            out[entrant] = max(out.get(entrant, (0, 0)), (by_round[key], -absent))
    placings: list[list[int]] = [[first]] if first is not None else []
    for when in sorted({w for e, w in out.items() if e != first}, reverse=True):
        placings.append(sorted(e for e, w in out.items() if w == when and e != first))
    return placings


# --- Swiss -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SwissGame:
    """One Swiss pairing's outcome. `b` None: a bye for `a` (1 point). `winner` None with a real
    `b`: both absent (no points for either)."""

    a: int
    b: int | None
    winner: int | None


@dataclass(frozen=True, slots=True)
class Standing:
    entrant: int
    points: int
    buchholz: int
    sonneborn_berger: int
    seed: int
    wins: int
    losses: int
    byes: int


def _check_game(game: SwissGame, known: set[int]) -> None:
    if game.a not in known or (game.b is not None and game.b not in known):
        raise BracketError("a Swiss result names someone who is not in the event")
    if game.b is None and game.winner not in (None, game.a):
        raise BracketError("a bye is won by the player who had it")
    if game.b is not None and game.winner not in (None, game.a, game.b):
        raise BracketError("a Swiss result names a winner who did not play in it")
    if game.a == game.b:
        raise BracketError("nobody plays themselves")


def swiss_standings(players: Sequence[int], games: Sequence[SwissGame]) -> list[Standing]:
    """The standings, best first: points, Buchholz, Sonneborn-Berger, then seed.

    >>> games = [SwissGame(1, 2, 1), SwissGame(3, 4, 3), SwissGame(1, 3, 1), SwissGame(2, 4, 4)]
    >>> [(s.entrant, s.points, s.buchholz) for s in swiss_standings([1, 2, 3, 4], games)]
    [(1, 2, 1), (3, 1, 3), (4, 1, 1), (2, 0, 3)]
    """
    known = set(players)
    seed = {p: i + 1 for i, p in enumerate(players)}
    points = dict.fromkeys(players, 0)
    wins = dict.fromkeys(players, 0)
    losses = dict.fromkeys(players, 0)
    byes = dict.fromkeys(players, 0)
    for game in games:
        _check_game(game, known)
        if game.b is None:
            points[game.a] += 1
            byes[game.a] += 1
            continue
        for p in (game.a, game.b):
            if game.winner == p:
                points[p] += 1
                wins[p] += 1
            else:
                losses[p] += 1
    buchholz = dict.fromkeys(players, 0)
    sonneborn = dict.fromkeys(players, 0)
    for game in games:
        if game.b is None:
            continue
        for me, other in ((game.a, game.b), (game.b, game.a)):
            buchholz[me] += points[other]
            if game.winner == me:
                sonneborn[me] += points[other]
    table = [
        Standing(p, points[p], buchholz[p], sonneborn[p], seed[p], wins[p], losses[p], byes[p])
        for p in players
    ]
    table.sort(key=lambda s: (-s.points, -s.buchholz, -s.sonneborn_berger, s.seed))
    return table


def swiss_rounds_possible(entrants: int, wanted: int) -> int:
    """The rounds an event of `entrants` plays: what the organizer set, at most entrants - 1."""
    return max(1, min(wanted, entrants - 1))


def swiss_pair(
    players: Sequence[int], games: Sequence[SwissGame], active: Sequence[int] | None = None
) -> list[tuple[int, int | None]]:
    """The next round's pairings among `active` players (default: everyone), as (higher-ranked,
    lower-ranked) pairs, and (player, None) for the bye. Raises SwissError when every pairing
    would repeat a game.

    >>> swiss_pair([1, 2, 3, 4, 5, 6], [])
    [(1, 4), (2, 5), (3, 6)]
    >>> swiss_pair([1, 2, 3], [])
    [(1, 2), (3, None)]
    """
    standings = swiss_standings(players, games)
    points = {s.entrant: s.points for s in standings}
    playing = set(players if active is None else active)
    if not playing <= set(players):
        raise BracketError("an active player is not in the event")
    ranked = [s.entrant for s in standings if s.entrant in playing]
    met = {frozenset((g.a, g.b)) for g in games if g.b is not None}
    had_bye = {g.a for g in games if g.b is None}
    budget = [SWISS_SEARCH_BUDGET]
    if len(ranked) % 2 == 0:
        pairs = _pair(ranked, points, met, budget)
        if pairs is None:
            raise SwissError("no pairing without a rematch")
        return pairs
    lowest_first = list(reversed(ranked))
    candidates = [p for p in lowest_first if p not in had_bye] + [
        p for p in lowest_first if p in had_bye
    ]
    for candidate in candidates:
        pairs = _pair([p for p in ranked if p != candidate], points, met, budget)
        if pairs is not None:
            return [*pairs, (candidate, None)]
    raise SwissError("no pairing without a rematch")


def _pair(
    ranked: list[int], points: Mapping[int, int], met: set[frozenset[int]], budget: list[int]
) -> list[tuple[int, int | None]] | None:
    """Pair `ranked` (best first) with no rematch: backtracking, preferring for the top player
    the Dutch opponent (the top of the bottom half of their score group), then the rest of the
    group by closeness to it, then the other players by rank."""
    if not ranked:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    top, rest = ranked[0], ranked[1:]
    group = [p for p in ranked if points[p] == points[top]]
    ideal = len(group) // 2
    in_group = sorted(
        (p for p in group if p != top), key=lambda p: (abs(group.index(p) - ideal), group.index(p))
    )
    others = [p for p in rest if points[p] != points[top]]
    for opponent in in_group + others:
        if frozenset((top, opponent)) in met:
            continue
        paired = _pair([p for p in rest if p != opponent], points, met, budget)
        if paired is not None:
            return [(top, opponent), *paired]
    return None


# --- prizes ------------------------------------------------------------------------------------


def prize_amounts(
    pool: int, split: Sequence[int], placings: Sequence[Sequence[int]]
) -> dict[int, int]:
    """Share `pool` by the percentage `split` (first place first) among the `placings`.

    Each place gets its percentage, rounded down; what rounding leaves goes to first place.
    Players who share a place share the prizes of the places they take up, evenly, and any
    remainder goes to the first of them as listed. Places past the split get nothing. When fewer
    players are placed than the split has places, the pool is shared among the places taken in
    the same proportions (50/30/20 with two players is 50:30 of the pool), so it is always paid
    out in full.

    >>> prize_amounts(100, [50, 30, 20], [[7], [8], [9, 6]])
    {7: 50, 8: 30, 9: 10, 6: 10}
    >>> prize_amounts(10, [50, 30, 20], [[1], [2], [3]])
    {1: 5, 2: 3, 3: 2}
    >>> prize_amounts(7, [100], [[1, 2], [3]])
    {1: 4, 2: 3, 3: 0}
    >>> prize_amounts(80, [50, 30, 20], [[1], [2]])
    {1: 50, 2: 30}
    """
    if type(pool) is not int or pool < 0:
        raise BracketError("a prize pool is a whole number, not below zero")
    if not split or any(type(p) is not int or p <= 0 for p in split) or sum(split) != 100:
        raise BracketError("a prize split is whole percentages above zero adding up to 100")
    placed = sum(len(g) for g in placings)
    paid = list(split[:placed])
    amounts: dict[int, int] = {}
    if not paid:
        return amounts
    shares = [pool * p // sum(paid) for p in paid]
    shares[0] += pool - sum(shares)
    place = 0
    for group in placings:
        total = sum(shares[place : place + len(group)])
        each, extra = divmod(total, len(group)) if group else (0, 0)
        for i, entrant in enumerate(group):
            amounts[entrant] = each + (extra if i == 0 else 0)
        place += len(group)
    return amounts
