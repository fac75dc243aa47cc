"""House players (engine/bots.py): legal in every mode, blind to what their seat cannot see, and
dealing the hidden bones only in ways the public history allows."""

from __future__ import annotations

import json
import random
import time
import zlib
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from engine import (
    Bone,
    Draw,
    GameState,
    Pass,
    Phase,
    Play,
    TableSettings,
    Timeout,
    full_set,
    public_view,
    seat_view,
)
from engine.board import END_INDEX, Board, End
from engine.bots import (
    LEVELS,
    VIEW_KEYS,
    Budget,
    DealSampler,
    ViewError,
    any_legal_action,
    decide,
    read_view,
    total_after,
)
from tests.engine.conftest import (
    act,
    bones_in,
    deal,
    new_state,
    settings_of,
    shape_id,
    table_shapes,
)

QUICK = Budget(seconds=None, worlds=2, min_worlds=1)
# Seat 1 holds no 6: after the 6-6 it draws 4-1, then 6-0, and plays the 6-0.
DRAWING_DEAL = (
    ["6-6", "5-5", "4-4", "3-2", "3-1", "2-0", "1-1"],
    ["5-4", "5-3", "5-2", "5-1", "5-0", "4-3", "4-2"],
)
DRAWING_YARD = ["4-1", "6-0", "0-0", "1-0", "2-1", "2-2", "3-0", "3-3", "4-0", "6-1", "6-2"]
DRAWING_YARD += ["6-3", "6-4", "6-5"]


def _shark_budget() -> Budget:
    return QUICK


def bot_positions(
    settings: TableSettings, seed: int, limit: int, *, timeouts: float = 0.0
) -> Iterator[GameState]:
    """Positions where a seat must decide, from a seeded game: the moves are random legal ones,
    or a bot's, so positions come from both kinds of play."""
    rng = random.Random(seed)
    state = GameState.new(settings)
    levels = [rng.choice(LEVELS[:2]) for _ in range(settings.players)]
    seen = 0
    while not state.is_over and seen < limit:
        if state.phase is Phase.AWAITING_DEAL:
            order = full_set(settings.max_pip)
            rng.shuffle(order)
            state.deal(order)
            continue
        seat = state.to_act
        assert seat is not None
        if state.is_forced_pass():
            state.apply(Pass(seat))
            continue
        if settings.clock is not None and timeouts and rng.random() < timeouts:
            state.apply(Timeout(seat))
            if state.is_over:
                break
        seen += 1
        yield state
        if rng.random() < 0.5:
            action = rng.choice(state.legal_actions())
        else:
            action = decide(seat_view(state, seat), levels[seat], rng=rng)
        state.apply(action)


@pytest.mark.parametrize("shape", table_shapes(), ids=shape_id)
def test_every_level_only_makes_legal_plays(shape: dict[str, Any]) -> None:
    settings = settings_of(shape)
    rng = random.Random(zlib.crc32(shape_id(shape).encode()))
    positions = 0
    while positions < 70:
        seed = rng.randrange(10**6)
        for state in bot_positions(settings, seed, limit=70 - positions, timeouts=0.03):
            seat = state.to_act
            assert seat is not None
            view = seat_view(state, seat)
            legal = state.legal_actions()
            for level in LEVELS:
                if level == "shark" and positions % 2:
                    continue
                action = decide(view, level, rng=rng, budget=QUICK)
                assert action in legal, f"{level} chose {action!r}, not a legal action"
                state.validate(action)
                assert action.to_dict() in view["legal_actions"]
            positions += 1


def test_thousands_of_positions_in_every_mode() -> None:
    """Every mode, many seeds: at least a thousand decisions per level, all legal, in well under
    a minute of this thread's CPU time (not the wall clock: a busy machine only slows it down)."""
    rng = random.Random(11)
    counts = dict.fromkeys(LEVELS, 0)
    modes = ("citizen", "citizen_gym", "inmate", "inmate_gym", "fives", "threes")
    started = time.thread_time()
    per_mode = dict.fromkeys(modes, 0)
    for m, mode in enumerate(modes):
        i = 0
        while per_mode[mode] < 1000:
            players = 2 if mode in ("fives", "threes") else 2 + i % 3
            partners = players == 4 and i % 2 == 0
            settings = TableSettings.build(mode, players=players, partners=partners)
            i += 1
            for state in bot_positions(settings, seed=1000 * m + i, limit=110):
                per_mode[mode] += 1
                seat = state.to_act
                assert seat is not None
                view = json.loads(json.dumps(seat_view(state, seat)))  # what a browser gets
                legal = state.legal_actions()
                for level in LEVELS:
                    if level == "shark" and counts["rookie"] % 3:
                        continue
                    action = decide(view, level, rng=rng, budget=QUICK)
                    assert action in legal
                    counts[level] += 1
    assert min(per_mode.values()) >= 1000, per_mode
    assert counts["rookie"] >= 6000 and counts["regular"] >= 6000 and counts["shark"] >= 2000
    assert time.thread_time() - started < 60


# ---------------------------------------------------------------- only the seat's view


class Spy(dict[str, Any]):
    """A view that records every key read from it."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        super().__init__(data)
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)


def _midgame(seed: int = 3, players: int = 2) -> GameState:
    for state in bot_positions(TableSettings.build("citizen", players=players), seed, 12):
        last = state
    return last


def test_a_bot_reads_only_its_seats_view() -> None:
    state = _midgame()
    seat = state.to_act
    assert seat is not None
    for level in LEVELS:
        view = Spy(seat_view(state, seat))
        decide(view, level, rng=random.Random(1), budget=QUICK)
        assert view.read <= VIEW_KEYS, view.read - VIEW_KEYS
    # and every key it reads is in what the seat's browser gets, never anything hidden
    assert set(seat_view(state, seat)) >= VIEW_KEYS
    hidden = {str(b) for s, h in enumerate(state.hands) if s != seat for b in h}
    hidden |= {str(b) for b in state.yard}
    assert not bones_in({k: seat_view(state, seat)[k] for k in VIEW_KEYS}) & hidden


def test_a_tampered_view_shows_a_bot_nothing_more() -> None:
    """Hidden things added to a view are ignored: the decision is the one made without them."""
    for seed in range(6):
        state = _midgame(seed)
        seat = state.to_act
        assert seat is not None
        view = seat_view(state, seat)
        tampered = {
            **view,
            "hands": [[str(b) for b in h] for h in state.hands],
            "yard_bones": [str(b) for b in state.yard],
            "state": state.to_json(),
        }
        for level in LEVELS:
            budget = Budget(seconds=None, worlds=30)
            plain = decide(view, level, rng=random.Random(seed), budget=budget)
            again = decide(tampered, level, rng=random.Random(seed), budget=budget)
            assert plain == again


def _tamper(view: dict[str, Any], state: GameState, seat: int) -> Iterator[dict[str, Any]]:
    other = (seat + 1) % state.settings.players
    theirs = [str(b) for b in state.hands[other]]
    # another seat's bones slipped into the hand, with or without fixing the hand size
    yield {**view, "hand": view["hand"] + theirs[:1]}
    sizes = view["hand_sizes"][:]
    sizes[seat] += 1
    sizes[other] -= 1
    yield {**view, "hand": view["hand"] + theirs[:1], "hand_sizes": sizes}
    # the other hand in place of its own: refused, as the legal actions say what the real hand
    # can do (a hand of the same size that allows exactly the same actions would be a lie no
    # view can expose, so that case is left out)
    lie = state.copy()
    lie.hands[seat] = lie.hands[other]
    same = (
        len(theirs) == len(view["hand"])
        and [a.to_dict() for a in lie.legal_actions()] == view["legal_actions"]
    )
    if not same:
        yield {**view, "hand": theirs}
    # a yard bone as a legal play
    if state.yard:
        yield {
            **view,
            "legal_actions": [{"type": "play", "seat": seat, "bone": str(state.yard[0])}],
        }
    # another seat's turn, or its view
    yield {**view, "seat": other}
    yield {**view, "to_act": other}
    yield {**view, "yard": view["yard"] + 1}
    yield {**view, "hand": view["hand"] + [view["hand"][0]]}


def test_a_view_that_does_not_add_up_is_refused() -> None:
    refused = 0
    for seed in range(4):
        state = _midgame(seed)
        seat = state.to_act
        assert seat is not None
        view = seat_view(state, seat)
        for bad in _tamper(view, state, seat):
            for level in LEVELS:
                with pytest.raises(ViewError):
                    decide(bad, level, budget=QUICK)
                refused += 1
    assert refused > 50
    with pytest.raises(ViewError):
        read_view(public_view(_midgame()))  # a spectator's view: no hand, no seat
    with pytest.raises(ValueError):
        decide(seat_view(_midgame(), _midgame().to_act or 0), "grandmaster")


def test_fallback_is_a_legal_action() -> None:
    state = _midgame()
    seat = state.to_act
    assert seat is not None
    for i in range(20):
        assert any_legal_action(seat_view(state, seat), random.Random(i)) in state.legal_actions()


# ---------------------------------------------------------------- sampled deals


def _board_masks(history: list[list[Any]], spinner: bool) -> list[int]:
    """Independently of the bots: the open ends (as a mask) before each history entry."""
    board = Board(spinner)
    masks = []
    for entry in history:
        masks.append(sum(1 << v for v in set(board.ends) if v >= 0))
        if entry[0] == "play":
            text, end = entry[2], entry[3]
            board.play(Bone.parse(text), None if end is None else End(end), int(text[0]))
    return masks


def fits_history(state: GameState, seat: int, hand: list[Bone], history: list[list[Any]]) -> bool:
    """An independent check that a hand is possible for `seat` given the public history: its
    bones and the bones it played can be given the bones it was dealt and drew (a bipartite
    matching found by augmenting paths), where a bone held when the seat drew or passed has
    none of the numbers then open, and a double that the lead in line shows was undealt came
    from the yard."""
    settings = state.settings
    masks = _board_masks(history, settings.spinner)
    voids = [
        (t, masks[t]) for t, e in enumerate(history) if e[1] == seat and e[0] in ("draw", "pass")
    ]
    slots = [-1] * settings.deal + [
        t for t, e in enumerate(history) if e[1] == seat and e[0] == "draw"
    ]
    played = [
        (Bone.parse(e[2]), t) for t, e in enumerate(history) if e[1] == seat and e[0] == "play"
    ]
    items = played + [(b, 10**9) for b in hand]
    undealt: set[Bone] = set()
    lead = next((e for e in history if e[0] == "lead"), None)
    first = next((e for e in history if e[0] == "play"), None)
    if lead and first and lead[2] in ("next_double", "highest_double"):
        led = Bone.parse(first[2]).high
        for value in settings.lead_order:
            if value == led:
                break
            undealt.add(Bone.of(value, value))
    if len(items) != len(slots):
        return False

    def fits(item: tuple[Bone, int], a: int) -> bool:
        bone, gone = item
        if a >= gone or (a == -1 and bone in undealt):
            return False
        return not any(a < t < gone and bone.mask & mask for t, mask in voids)

    match: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j, a in enumerate(slots):
            if j in seen or not fits(items[i], a):
                continue
            seen.add(j)
            if j not in match or augment(match[j], seen):
                match[j] = i
                return True
        return False

    return all(augment(i, set()) for i in range(len(items)))


@pytest.mark.parametrize(
    "shape",
    [
        {"mode": "citizen", "players": 2},
        {"mode": "citizen", "players": 3},
        {"mode": "inmate", "players": 4, "partners": True},
        {"mode": "citizen_gym", "players": 4},
        {"mode": "fives"},
        {"mode": "threes", "set": "double-nine"},
    ],
    ids=shape_id,
)
def test_sampled_deals_agree_with_every_draw_and_pass(shape: dict[str, Any]) -> None:
    settings = settings_of(shape)
    rng = random.Random(5)
    checked = constrained = 0
    for game in range(4):
        for state in bot_positions(settings, seed=game * 31 + 7, limit=200):
            seat = state.to_act
            assert seat is not None
            seen = read_view(seat_view(state, seat))
            assert seen.history is not None
            sampler = DealSampler(seen)
            assert sampler.constrained
            truth = {s: state.hands[s] for s in sampler.seats}
            # the real deal is always possible (the sampler never rules out the truth) ...
            assert sampler.consistent(truth)
            for s in sampler.seats:
                assert fits_history(state, s, state.hands[s], seen.history)
            # ... and every sampled deal is possible too, by an independent check
            for _ in range(3):
                hands, yard = sampler.sample(rng)
                dealt = [b for h in hands.values() for b in h] + yard
                assert sorted(dealt) == sorted(seen.unseen)
                assert len(yard) == len(state.yard)
                for s in sampler.seats:
                    assert len(hands[s]) == len(state.hands[s])
                    assert fits_history(state, s, hands[s], seen.history), (s, hands[s])
                assert sampler.consistent(hands)
            assert sampler.relaxed == 0
            checked += 1
            if any(e[0] in ("draw", "pass") for e in seen.history):
                constrained += 1
    assert checked > 100 and constrained > 20


def test_a_seat_that_passed_or_drew_is_never_dealt_what_it_lacked() -> None:
    """Seat 1 could not follow the 6-6 and passed (no yard): no sampled hand gives it a 6."""
    state = new_state("citizen", players=4)
    deal(
        state,
        ["6-6", "6-5", "5-5", "4-2", "4-1", "3-2", "2-2"],
        ["4-0", "3-0", "2-0", "1-0", "4-3", "2-1", "3-1"],
        ["6-4", "6-3", "6-2", "6-1", "6-0", "5-4", "5-3"],
        ["5-2", "5-1", "5-0", "4-4", "3-3", "1-1", "0-0"],
    )
    act(state, "0 play 6-6", "1 pass", "2 play 6-4 right")
    sampler = DealSampler(read_view(seat_view(state, 3)))
    rng = random.Random(2)
    for _ in range(200):
        hands, _ = sampler.sample(rng)
        assert not any(b.high == 6 for b in hands[1])
        assert any(b.high == 6 for b in hands[0] + hands[2])
    assert sampler.relaxed == 0

    # two players with a yard: seat 1 draws twice on 6 and 6, then plays the 6-0 it drew
    state = new_state("citizen", players=2)
    deal(
        state,
        *DRAWING_DEAL,
        yard=DRAWING_YARD,
    )
    act(state, "0 play 6-6", "1 draw 4-1", "1 draw 6-0", "1 play 6-0 right")
    sampler = DealSampler(read_view(seat_view(state, 0)))
    for _ in range(200):
        hands, _ = sampler.sample(rng)
        assert not any(b.high == 6 for b in hands[1])  # it held no 6 when it drew
        assert fits_history(state, 1, hands[1], seat_view(state, 0)["history"])


def test_undealt_doubles_come_from_the_yard() -> None:
    """Nobody held the 6-6, so the 5-5 leads: the 6-6 was in the yard, and a seat that has not
    drawn cannot hold it."""
    state = new_state("citizen", players=2)
    deal(
        state,
        ["5-5", "6-3", "5-0", "4-1", "2-2", "3-1", "6-0"],
        ["4-4", "6-5", "5-4", "3-0", "2-1", "1-0", "6-1"],
    )
    act(state, "0 play 5-5")
    seen = read_view(seat_view(state, 1))
    sampler = DealSampler(seen)
    rng = random.Random(4)
    six_six = Bone.parse("6-6")
    for _ in range(100):
        hands, yard = sampler.sample(rng)
        assert six_six not in hands[0] and six_six in yard


def test_shark_takes_the_winning_play() -> None:
    """At 145 to 0, the Shark plays the bone that makes 10 and wins the game at once."""
    state = new_state("citizen", players=2, scores=[145, 0], on_board=[True, True])
    deal(
        state,
        ["6-6", "6-4", "6-1", "3-2", "2-0", "3-3", "5-2"],
        ["5-5", "4-4", "6-5", "5-4", "3-0", "2-1", "1-0"],
    )
    act(state, "0 play 6-6", "1 play 6-5 right")  # 6-6 and 5: ends 12 + 5 = 17
    # seat 0: 6-4 left makes 4 + 5 = 9, 6-1 left 1 + 5 = 6; 5-2 right makes 12 + 2 = 14...
    view = seat_view(state, 0)
    action = decide(view, "shark", rng=random.Random(1), budget=Budget(seconds=None, worlds=50))
    after = state.copy()
    after.apply(action)
    best = 0
    for candidate in state.legal_actions():
        trial = state.copy()
        trial.apply(candidate)
        best = max(best, trial.scores[0])
    if best >= 150:
        assert after.is_over and after.result is not None and after.result.winner == 0


def test_regular_takes_the_points() -> None:
    state = new_state("citizen", players=2, on_board=[True, True])
    deal(
        state,
        ["6-6", "6-4", "6-1", "3-2", "2-0", "3-3", "5-2"],
        ["5-5", "4-4", "6-5", "5-4", "3-0", "2-1", "1-0"],
    )
    act(state, "0 play 6-6")
    # seat 1 holds 6-5 only for the 6s: 17, no score; try a position with a choice instead
    act(state, "1 play 6-5 right")
    view = seat_view(state, 0)
    scores = {}
    for candidate in state.legal_actions():
        trial = state.copy()
        trial.apply(candidate)
        scores[candidate] = trial.scores[0]
    action = decide(view, "regular", rng=random.Random(3))
    assert scores[action] == max(scores.values())


def test_total_after_agrees_with_the_board() -> None:
    rng = random.Random(9)
    checked = 0
    for shape in (
        {"mode": "citizen", "players": 2},
        {"mode": "fives"},
        {"mode": "fives", "spinner": True},
    ):
        settings = settings_of(shape)
        for state in bot_positions(settings, seed=checked + 1, limit=300):
            if state.phase is not Phase.PLAYING:
                continue
            for action in state.legal_actions():
                if not isinstance(action, Play):
                    continue
                board = state.board
                e = -1 if action.end is None else END_INDEX[action.end]
                expected = board.copy().place(action.bone, e)
                assert total_after(board, action.bone, e) == expected
                checked += 1
    assert checked > 500
    assert rng


# ---------------------------------------------------------------- the public history


def test_history_is_public_and_survives_json() -> None:
    state = new_state("citizen", players=2)
    deal(
        state,
        *DRAWING_DEAL,
        yard=DRAWING_YARD,
    )
    act(state, "0 play 6-6", "1 draw 4-1", "1 draw 6-0", "1 play 6-0 right")
    expected = [
        ["lead", 0, "house_double"],
        ["play", 0, "6-6", None],
        ["draw", 1, 0],
        ["draw", 1, 0],
        ["play", 1, "6-0", "right"],
    ]
    assert state.public_history() == expected
    assert seat_view(state, 0)["history"] == expected == public_view(state)["history"]
    assert "4-1" not in json.dumps(public_view(state))
    again = GameState.from_json(json.loads(json.dumps(state.to_json())))
    assert again.to_json() == state.to_json()
    assert again.public_history() == expected
    # a state written before the history was kept still reads (with no history)
    old = state.to_json()
    del old["history"]
    assert GameState.from_json(old).public_history() == []
    # and a house player then decides without reading anything into the history
    seen = read_view(seat_view(GameState.from_json(old), 0))
    assert seen.history is None
    assert not DealSampler(seen).constrained


def test_history_starts_again_each_hand() -> None:
    state = new_state("citizen", players=2)
    rng = random.Random(1)
    deals = 0
    while not state.is_over and deals < 4:
        if state.phase is Phase.AWAITING_DEAL:
            order = full_set(6)
            rng.shuffle(order)
            state.deal(order)
            deals += 1
            assert [e[0] for e in state.public_history()][:1] in (["lead"], ["choosing"], [])
            continue
        state.apply(rng.choice(state.legal_actions()))
        plays = [e for e in state.public_history() if e[0] == "play"]
        assert len(plays) == len(state.board)


def test_draw_position_is_random_and_legal() -> None:
    state = new_state("citizen", players=2)
    deal(
        state,
        *DRAWING_DEAL,
    )
    act(state, "0 play 6-6")
    positions = set()
    for i in range(30):
        action = decide(seat_view(state, 1), "shark", rng=random.Random(i))
        assert isinstance(action, Draw)
        positions.add(action.position)
    assert len(positions) > 3


def test_five_doubles_are_played_for_the_bonus() -> None:
    state = new_state("citizen", players=2)
    deal(
        state,
        ["6-6", "5-5", "4-4", "3-3", "2-2", "6-1", "6-0"],
        ["5-4", "5-3", "5-2", "5-1", "5-0", "4-3", "4-2"],
    )
    assert state.phase is Phase.CHOOSING_DOUBLES
    view = seat_view(state, 0)
    for level in ("regular", "shark"):
        assert decide(view, level).to_dict() == {"type": "doubles", "seat": 0, "choice": "play"}
    choices = {decide(view, "rookie", rng=random.Random(i)).to_dict()["choice"] for i in range(20)}
    assert choices == {"play", "reshuffle"}


def test_shark_keeps_to_its_time_budget() -> None:
    state = _midgame(seed=8, players=3)
    seat = state.to_act
    assert seat is not None
    view = seat_view(state, seat)
    # The budget is wall-clock time, which only runs faster than this thread's CPU time: a bot
    # that kept to it used little CPU, one that sampled its million deals a great deal, whether
    # or not the machine is busy with other work.
    started = time.thread_time()
    decide(view, "shark", budget=Budget(seconds=0.05, worlds=10**6))
    assert time.thread_time() - started < 1.0
