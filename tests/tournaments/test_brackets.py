"""Brackets and Swiss pairings (tournaments/brackets.py): pure functions, no database."""

from __future__ import annotations

import doctest
import math
import random
from collections import Counter

import pytest

from tournaments import brackets
from tournaments.brackets import (
    EMPTY,
    BracketError,
    SwissError,
    SwissGame,
    bracket_size,
    champion,
    double_elimination,
    elimination_placings,
    is_complete,
    prize_amounts,
    resolve,
    seeding_order,
    single_elimination,
    swiss_pair,
    swiss_rounds_possible,
    swiss_standings,
)

SIZES = range(2, 65)


def test_doctests() -> None:
    failures, tried = doctest.testmod(brackets)
    assert tried > 10 and failures == 0


# --- sizes and seeding -------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
def test_bracket_size_is_the_next_power_of_two(n: int) -> None:
    size = bracket_size(n)
    assert size >= n and size & (size - 1) == 0 and size // 2 < n


@pytest.mark.parametrize("bad", [0, 1, 65, 100, -4, 2.0, "8", None, True])
def test_bracket_sizes_out_of_range_are_refused(bad: object) -> None:
    with pytest.raises(BracketError):
        bracket_size(bad)  # type: ignore[arg-type]
    if isinstance(bad, int) and not isinstance(bad, bool):
        with pytest.raises(BracketError):
            single_elimination(bad)
        with pytest.raises(BracketError):
            double_elimination(bad)


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64])
def test_seeding_order(size: int) -> None:
    order = seeding_order(size)
    assert sorted(order) == list(range(1, size + 1))
    # Round one: seed s meets seed size + 1 - s.
    for i in range(0, size, 2):
        assert order[i] + order[i + 1] == size + 1
        assert order[i] < order[i + 1]
    # The top 2^j seeds are spread one to each section of size / 2^j: they meet as late as
    # possible (1 and 2 only in the final, the top four only from the semi-finals...).
    sections = 2
    while sections <= size:
        width = size // sections
        tops = [min(order[k : k + width]) for k in range(0, size, width)]
        assert sorted(tops) == list(range(1, sections + 1))
        sections *= 2


def test_seeding_order_for_eight_and_sixteen() -> None:
    assert seeding_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert seeding_order(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
    with pytest.raises(BracketError):
        seeding_order(6)


# --- single elimination ------------------------------------------------------------------------


def play_out(
    bracket: brackets.Bracket, seeds: list[int], pick: object
) -> tuple[dict[str, int | None], dict[str, brackets.MatchState]]:
    """Play every ready match, round by round, with `pick(state) -> winner or None`."""
    results: dict[str, int | None] = {}
    states = resolve(bracket, seeds, results)
    for _ in range(200):
        ready = [s for s in states.values() if s.status == "ready"]
        if not ready:
            break
        # Only the earliest round with a ready match is played (the event plays round by round).
        rounds = {m.key: m.round for m in bracket.matches}
        first = min(rounds[s.key] for s in ready)
        for state in ready:
            if rounds[state.key] == first:
                results[state.key] = pick(state)  # type: ignore[operator]
        states = resolve(bracket, seeds, results)
    assert is_complete(states)
    return results, states


def better_seed(seeds: list[int]):  # type: ignore[no-untyped-def]
    rank = {e: i for i, e in enumerate(seeds)}
    return lambda state: min(state.entrants, key=rank.__getitem__)


@pytest.mark.parametrize("n", SIZES)
def test_single_elimination_byes_go_to_the_top_seeds(n: int) -> None:
    bracket = single_elimination(n)
    size = bracket_size(n)
    assert bracket.size == size and bracket.entrants == n
    assert len(bracket.matches) == size - 1
    assert bracket.rounds == int(math.log2(size))
    seeds = [100 + i for i in range(n)]  # entry ids in seed order
    states = resolve(bracket, seeds, {})
    first_round = [s for k, s in states.items() if k.startswith("W1-")]
    walkovers = [s for s in first_round if s.status == "walkover"]
    assert len(walkovers) == size - n
    # The byes are exactly seeds 1 .. size - n.
    assert sorted(seeds.index(s.winner) + 1 for s in walkovers) == list(range(1, size - n + 1))  # type: ignore[arg-type]
    assert all(s.status == "ready" for s in first_round if s not in walkovers)
    # Every entrant is in exactly one first-round match.
    placed = Counter(e for s in first_round for e in s.entrants)
    assert sorted(placed) == sorted(seeds) and set(placed.values()) == {1}


@pytest.mark.parametrize("n", SIZES)
def test_single_elimination_with_the_better_seed_winning(n: int) -> None:
    bracket = single_elimination(n)
    seeds = [100 + i for i in range(n)]
    results, states = play_out(bracket, seeds, better_seed(seeds))
    assert champion(bracket, states) == seeds[0]
    final = states[bracket.final_keys[0]]
    assert set(final.entrants) == {seeds[0], seeds[1]}
    if n >= 4:
        semis = [s for k, s in states.items() if bracket.match(k).round == bracket.rounds - 1]
        assert {e for s in semis for e in s.entrants} == set(seeds[:4])
    # n - 1 matches are played: each one puts one player out.
    assert len(results) == n - 1
    placings = elimination_placings(bracket, states)
    assert placings[0] == [seeds[0]] and placings[1] == [seeds[1]]
    assert sorted(e for group in placings for e in group) == sorted(seeds)
    # Places are shared by round: 1, 1, 2, 4, 8... (the first round's losers, fewer with byes).
    sizes = [len(g) for g in placings]
    assert sizes[:2] == [1, 1]
    for i, group_size in enumerate(sizes[2:-1], start=1):
        assert group_size == 2**i


@pytest.mark.parametrize("n", SIZES)
def test_single_elimination_random_results(n: int) -> None:
    rng = random.Random(n)
    bracket = single_elimination(n)
    seeds = rng.sample(range(1, 1000), n)
    _results, states = play_out(bracket, seeds, lambda s: rng.choice(s.entrants))
    rounds = {m.key: m.round for m in bracket.matches}
    # Nobody plays twice in one round.
    for r in range(1, bracket.rounds + 1):
        playing = [e for k, s in states.items() if rounds[k] == r for e in s.entrants]
        assert len(playing) == len(set(playing))
    winner = champion(bracket, states)
    assert winner in seeds
    losses = Counter(s.loser for s in states.values() if s.status == "done")
    assert winner not in losses and set(losses.values()) == {1} and len(losses) == n - 1


def test_results_must_name_the_players_of_a_ready_match() -> None:
    bracket = single_elimination(4)
    seeds = [11, 22, 33, 44]
    with pytest.raises(BracketError, match="does not play"):
        resolve(bracket, seeds, {"W1-1": 22})
    with pytest.raises(BracketError, match="not a match to be played"):
        resolve(bracket, seeds, {"W2-1": 11})
    with pytest.raises(BracketError, match="no match"):
        resolve(bracket, seeds, {"W9-1": 11})
    with pytest.raises(BracketError):
        resolve(bracket, [11, 22, 33], {})
    with pytest.raises(BracketError):
        resolve(bracket, [11, 22, 33, 33], {})
    three = single_elimination(3)
    with pytest.raises(BracketError, match="walkover"):
        resolve(three, [1, 2, 3], {"W1-1": 1})  # seed 1 has a bye: nothing to play


def test_both_absent_puts_both_out_and_the_next_opponent_walks_over() -> None:
    bracket = single_elimination(4)
    seeds = [1, 2, 3, 4]
    states = resolve(bracket, seeds, {"W1-1": None, "W1-2": 2})
    assert states["W1-1"].status == "done" and states["W1-1"].winner is EMPTY
    final = states["W2-1"]
    assert final.status == "walkover" and final.winner == 2
    assert champion(bracket, states) == 2
    assert elimination_placings(bracket, states) == [[2], [3], [1, 4]]


def test_both_absent_from_the_final_share_first_place() -> None:
    bracket = single_elimination(4)
    states = resolve(bracket, [1, 2, 3, 4], {"W1-1": 1, "W1-2": 2, "W2-1": None})
    assert champion(bracket, states) is None
    assert elimination_placings(bracket, states) == [[1, 2], [3, 4]]


def test_a_whole_side_absent_leaves_an_empty_match() -> None:
    bracket = single_elimination(8)
    seeds = list(range(1, 9))
    states = resolve(bracket, seeds, {"W1-1": None, "W1-2": None})
    assert states["W2-1"].status == "empty"
    assert states["W2-1"].winner is EMPTY


# --- double elimination ------------------------------------------------------------------------


def test_double_elimination_for_four_has_the_expected_paths() -> None:
    bracket = double_elimination(4)
    keys = [m.key for m in bracket.matches]
    assert keys == ["W1-1", "W1-2", "W2-1", "L1-1", "L2-1", "GF1", "GF2"]
    m = bracket.match
    assert m("L1-1").sources == (("loser", "W1-1"), ("loser", "W1-2"))
    assert m("L2-1").sources == (("winner", "L1-1"), ("loser", "W2-1"))
    assert m("GF1").sources == (("winner", "W2-1"), ("winner", "L2-1"))
    assert [m(k).round for k in keys] == [1, 1, 2, 2, 3, 4, 5]
    seeds = [1, 2, 3, 4]
    # Winners bracket: 1 beats 4, 2 beats 3, 1 beats 2. Losers: 3 beats 4, 2 beats 3.
    results: dict[str, int | None] = {
        "W1-1": 1,
        "W1-2": 2,
        "W2-1": 1,
        "L1-1": 3,
        "L2-1": 2,
    }
    states = resolve(bracket, seeds, results)
    assert states["L1-1"].sides == (4, 3)
    assert states["L2-1"].sides == (3, 2)
    assert states["GF1"].sides == (1, 2) and states["GF1"].status == "ready"
    assert states["GF2"].status == "pending"
    # The winners-bracket champion wins the grand final: no reset.
    done = resolve(bracket, seeds, {**results, "GF1": 1})
    assert done["GF2"].status == "skipped"
    assert is_complete(done) and champion(bracket, done) == 1
    assert elimination_placings(bracket, done) == [[1], [2], [3], [4]]
    with pytest.raises(BracketError, match="grand final decided"):
        resolve(bracket, seeds, {**results, "GF1": 1, "GF2": 1})
    # The losers-bracket champion wins it: the bracket resets, and the second final decides.
    reset = resolve(bracket, seeds, {**results, "GF1": 2})
    assert reset["GF2"].status == "ready" and reset["GF2"].sides == (1, 2)
    assert not is_complete(reset)
    for winner, second in ((1, 2), (2, 1)):
        final = resolve(bracket, seeds, {**results, "GF1": 2, "GF2": winner})
        assert champion(bracket, final) == winner
        assert elimination_placings(bracket, final)[:2] == [[winner], [second]]


def test_double_elimination_for_two_is_a_final_and_its_reset() -> None:
    bracket = double_elimination(2)
    assert [m.key for m in bracket.matches] == ["W1-1", "GF1", "GF2"]
    states = resolve(bracket, [5, 6], {"W1-1": 6, "GF1": 5})
    assert states["GF1"].sides == (6, 5)
    assert states["GF2"].status == "ready"
    final = resolve(bracket, [5, 6], {"W1-1": 6, "GF1": 5, "GF2": 5})
    assert champion(bracket, final) == 5


@pytest.mark.parametrize("n", SIZES)
def test_double_elimination_everyone_but_the_champion_loses_twice(n: int) -> None:
    rng = random.Random(1000 + n)
    bracket = double_elimination(n)
    size = bracket_size(n)
    stages = int(math.log2(size))
    assert sum(1 for m in bracket.matches if m.bracket == "W") == size - 1
    assert sum(1 for m in bracket.matches if m.bracket == "L") == max(0, size - 2)
    seeds = rng.sample(range(1, 10_000), n)
    results, states = play_out(bracket, seeds, lambda s: rng.choice(s.entrants))
    losses = Counter(s.loser for s in states.values() if s.status == "done")
    winner = champion(bracket, states)
    assert winner in seeds
    assert losses[winner] <= 1
    assert all(losses[e] == 2 for e in seeds if e != winner)
    played = len(results)
    reset = states["GF2"].status == "done"
    assert played == 2 * n - 2 + int(reset)
    # The reset is played exactly when the losers-bracket champion won the first final.
    gf1 = states["GF1"]
    assert reset == (gf1.winner == gf1.sides[1])
    # Nobody plays twice in one round.
    rounds = {m.key: m.round for m in bracket.matches}
    for r in range(1, bracket.rounds + 1):
        playing = [e for k, s in states.items() if rounds[k] == r for e in s.entrants]
        assert len(playing) == len(set(playing))
    placings = elimination_placings(bracket, states)
    assert sorted(e for g in placings for e in g) == sorted(seeds)
    assert placings[0] == [winner] and len(placings[1]) == 1
    if n >= 3:
        assert len(placings[2]) == 1  # the losers-bracket final's loser is third, alone
    assert bracket.rounds == 2 * stages + 1


@pytest.mark.parametrize("n", [4, 8, 16, 32, 64])
def test_double_elimination_better_seeds_path(n: int) -> None:
    bracket = double_elimination(n)
    seeds = list(range(1, n + 1))
    _results, states = play_out(bracket, seeds, better_seed(seeds))
    assert states["GF1"].sides == (1, 2)
    assert states["GF2"].status == "skipped"
    placings = elimination_placings(bracket, states)
    assert placings[:3] == [[1], [2], [3]]


def test_losers_who_just_met_are_kept_apart_in_the_losers_bracket() -> None:
    """With the better seed always winning, the losers dropping from winners round 2 never meet
    the player they just beat... and the drops alternate order to avoid quick rematches."""
    bracket = double_elimination(8)
    assert bracket.match("L2-1").sources[1] == ("loser", "W2-2")
    assert bracket.match("L2-2").sources[1] == ("loser", "W2-1")
    assert bracket.match("L4-1").sources[1] == ("loser", "W3-1")


def test_double_elimination_byes_and_double_forfeits() -> None:
    bracket = double_elimination(5)
    seeds = [1, 2, 3, 4, 5]
    states = resolve(bracket, seeds, {})
    # Seeds 1-3 have byes; the losers bracket has walkovers or empty matches for them.
    assert [states[f"W1-{i}"].status for i in range(1, 5)].count("walkover") == 3
    states = resolve(bracket, seeds, {"W1-2": None})  # 4 v 5: both absent
    assert states["W2-1"].status == "walkover"
    assert states["L1-1"].status == "empty"


# --- Swiss -------------------------------------------------------------------------------------


def run_swiss(n: int, rounds: int, rng: random.Random, absent: float = 0.0) -> list[SwissGame]:
    players = list(range(1, n + 1))
    games: list[SwissGame] = []
    for _ in range(swiss_rounds_possible(n, rounds)):
        pairs = swiss_pair(players, games)
        seen = [p for pair in pairs for p in pair if p is not None]
        assert sorted(seen) == players  # everyone is paired once, or has the bye
        byes = [a for a, b in pairs if b is None]
        assert len(byes) == n % 2
        for bye in byes:
            # The bye goes to the lowest-ranked player without one.
            ranking = [s.entrant for s in swiss_standings(players, games)]
            without = [p for p in ranking if all(not (g.a == p and g.b is None) for g in games)]
            assert bye == without[-1]
        for a, b in pairs:
            if b is None:
                games.append(SwissGame(a, None, a))
            elif rng.random() < absent:
                games.append(SwissGame(a, b, None))
            else:
                games.append(SwissGame(a, b, rng.choice((a, b))))
    return games


@pytest.mark.parametrize("n", [2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 31, 32, 33, 64])
def test_swiss_has_no_rematches_over_several_rounds(n: int) -> None:
    # Up to n / 2 rounds a pairing without rematches always exists (each player has met fewer
    # than half the others, so the graph of games not yet played has a perfect matching).
    rng = random.Random(n)
    rounds = max(1, min(7, n // 2))
    games = run_swiss(n, rounds, rng, absent=0.05)
    pairs = [frozenset((g.a, g.b)) for g in games if g.b is not None]
    assert len(pairs) == len(set(pairs))
    byes = Counter(g.a for g in games if g.b is None)
    assert all(count == 1 for count in byes.values())  # nobody has two byes
    standings = swiss_standings(list(range(1, n + 1)), games)
    assert sum(s.points for s in standings) == sum(1 for g in games if g.winner is not None)


@pytest.mark.parametrize("seed", range(30))
def test_swiss_pairs_every_round_it_can(seed: int) -> None:
    """Past n / 2 rounds a pairing may not exist; when the search finds none, none exists."""
    rng = random.Random(seed)
    n = rng.choice([4, 5, 6, 7, 8])
    players = list(range(1, n + 1))
    games: list[SwissGame] = []
    for _ in range(n - 1):
        try:
            pairs = swiss_pair(players, games)
        except SwissError:
            assert not any_pairing(players, games)
            return
        for a, b in pairs:
            games.append(SwissGame(a, b, a if b is None else rng.choice((a, b))))


def any_pairing(players: list[int], games: list[SwissGame]) -> bool:
    """Brute force: is there any pairing (with a bye when odd) without a rematch?"""
    met = {frozenset((g.a, g.b)) for g in games if g.b is not None}

    def pairable(rest: list[int]) -> bool:
        if not rest:
            return True
        first = rest[0]
        return any(
            frozenset((first, other)) not in met
            and pairable([p for p in rest if p not in (first, other)])
            for other in rest[1:]
        )

    if len(players) % 2 == 0:
        return pairable(players)
    return any(pairable([p for p in players if p != bye]) for bye in players)


def test_swiss_round_one_pairs_top_half_against_bottom_half() -> None:
    assert swiss_pair(list(range(1, 9)), []) == [(1, 5), (2, 6), (3, 7), (4, 8)]
    assert swiss_pair([1, 2, 3, 4, 5], []) == [(1, 3), (2, 4), (5, None)]


def test_swiss_pairs_within_score_groups() -> None:
    players = [1, 2, 3, 4, 5, 6, 7, 8]
    games = [SwissGame(1, 5, 1), SwissGame(2, 6, 2), SwissGame(3, 7, 3), SwissGame(4, 8, 4)]
    pairs = swiss_pair(players, games)
    winners = {1, 2, 3, 4}
    for a, b in pairs:
        assert (a in winners) == (b in winners)


def test_swiss_runs_out_of_pairings_without_rematches() -> None:
    players = [1, 2, 3, 4]
    games = [
        SwissGame(1, 2, 1),
        SwissGame(3, 4, 3),
        SwissGame(1, 3, 1),
        SwissGame(2, 4, 2),
        SwissGame(1, 4, 1),
        SwissGame(2, 3, 2),
    ]
    with pytest.raises(SwissError):
        swiss_pair(players, games)
    assert swiss_rounds_possible(4, 10) == 3
    assert swiss_rounds_possible(2, 5) == 1


def test_swiss_leaves_out_players_who_withdrew() -> None:
    players = [1, 2, 3, 4, 5]
    games = [SwissGame(1, 3, 1), SwissGame(2, 4, 2), SwissGame(5, None, 5)]
    pairs = swiss_pair(players, games, active=[1, 2, 3, 5])
    assert sorted(p for pair in pairs for p in pair if p is not None) == [1, 2, 3, 5]
    assert all(4 not in pair for pair in pairs)


def test_swiss_second_bye_only_when_everyone_has_had_one() -> None:
    players = [1, 2, 3]
    games = [SwissGame(1, 2, 1), SwissGame(3, None, 3)]
    pairs = swiss_pair(players, games)
    assert (2, None) in pairs  # 2 is last without a bye
    games += [SwissGame(1, 3, 3), SwissGame(2, None, 2)]
    # Only 1 has not had a bye: 1 gets it, though not ranked last.
    assert swiss_pair(players, games) == [(3, 2), (1, None)]
    # Everyone has met everyone: no round can be paired.
    with pytest.raises(SwissError):
        swiss_pair(players, [*games, SwissGame(2, 3, 2)])


def test_swiss_tie_breaks() -> None:
    players = [1, 2, 3, 4, 5, 6]
    games = [
        # round 1
        SwissGame(1, 4, 1),
        SwissGame(2, 5, 2),
        SwissGame(6, 3, 6),
        # round 2
        SwissGame(1, 2, 1),
        SwissGame(4, 6, 4),
        SwissGame(5, 3, 5),
    ]
    table = swiss_standings(players, games)
    got = [(s.entrant, s.points, s.buchholz, s.sonneborn_berger) for s in table]
    # 2, 4, 5 and 6 have 1 point each. Buchholz puts 2 and 4 (they met player 1, who has 2
    # points) ahead of 5 and 6; the seed settles the rest.
    assert got == [
        (1, 2, 2, 2),
        (2, 1, 3, 1),
        (4, 1, 3, 1),
        (5, 1, 1, 0),
        (6, 1, 1, 0),
        (3, 0, 2, 0),
    ]
    assert [(s.wins, s.losses, s.byes) for s in table][:2] == [(2, 0, 0), (1, 1, 0)]


def test_swiss_sonneborn_berger_breaks_a_buchholz_tie() -> None:
    """A round robin of four: 1 and 2 have 2 points and the same Buchholz, but 1 beat the
    stronger player (2): Sonneborn-Berger puts 1 first though 2 is the better seed."""
    players = [2, 1, 3, 4]  # seed order: 2 is seed 1
    games = [
        SwissGame(1, 2, 1),
        SwissGame(3, 4, 4),
        SwissGame(2, 3, 2),
        SwissGame(1, 4, 1),
        SwissGame(3, 1, 3),
        SwissGame(2, 4, 2),
    ]
    table = swiss_standings(players, games)
    got = [(s.entrant, s.points, s.buchholz, s.sonneborn_berger) for s in table]
    assert got == [(1, 2, 4, 3), (2, 2, 4, 2), (3, 1, 5, 2), (4, 1, 5, 1)]


def test_swiss_byes_score_a_point_and_count_nothing_for_buchholz() -> None:
    table = swiss_standings([1, 2, 3], [SwissGame(1, 2, 1), SwissGame(3, None, 3)])
    assert [(s.entrant, s.points, s.buchholz, s.byes) for s in table] == [
        (1, 1, 0, 0),
        (3, 1, 0, 1),
        (2, 0, 1, 0),
    ]


def test_both_absent_in_swiss_scores_nothing() -> None:
    table = swiss_standings([1, 2], [SwissGame(1, 2, None)])
    assert [(s.points, s.losses) for s in table] == [(0, 1), (0, 1)]


def test_swiss_results_must_name_players_of_the_event() -> None:
    with pytest.raises(BracketError):
        swiss_standings([1, 2], [SwissGame(1, 3, 1)])
    with pytest.raises(BracketError):
        swiss_standings([1, 2], [SwissGame(1, 2, 3)])
    with pytest.raises(BracketError):
        swiss_standings([1, 2], [SwissGame(1, None, 2)])
    with pytest.raises(BracketError):
        swiss_pair([1, 2], [], active=[1, 9])


# --- prizes ------------------------------------------------------------------------------------


def test_prize_amounts() -> None:
    assert prize_amounts(1000, [50, 30, 20], [[1], [2], [3], [4]]) == {1: 500, 2: 300, 3: 200, 4: 0}
    assert prize_amounts(1000, [100], [[1], [2]]) == {1: 1000, 2: 0}
    # Rounding goes to first place: the pool is always paid in full.
    amounts = prize_amounts(101, [50, 30, 20], [[1], [2], [3]])
    assert amounts == {1: 51, 2: 30, 3: 20} and sum(amounts.values()) == 101
    # Shared places share their prizes.
    assert prize_amounts(100, [50, 30, 20], [[1], [2], [3, 4]]) == {1: 50, 2: 30, 3: 10, 4: 10}
    assert prize_amounts(100, [60, 40], [[1, 2], [3]]) == {1: 50, 2: 50, 3: 0}
    # Fewer players than places: the pool still goes out, in proportion.
    assert sum(prize_amounts(99, [50, 30, 20], [[1], [2]]).values()) == 99
    assert prize_amounts(0, [100], [[1]]) == {1: 0}
    for bad in ([50, 40], [], [100, 0], [-10, 110], [50.0, 50.0]):
        with pytest.raises(BracketError):
            prize_amounts(100, bad, [[1]])  # type: ignore[arg-type]
    with pytest.raises(BracketError):
        prize_amounts(-1, [100], [[1]])
