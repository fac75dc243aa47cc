"""Shared helpers for the engine tests (no Django, no database).

The engine tests import these helpers from here: a seeded random game driver that checks the
engine's invariants as it plays, and small builders for exact deals.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from engine import (
    ActionError,
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
from engine.board import End
from engine.events import BonePlayed, Bonus, Event, GameOver, HandOver, Scored

BONE_TEXT = re.compile(r"^\d-\d$")

# Every table shape the rule book allows, one settings dict each (mode defaults elsewhere).
HOUSE_MODES = ("citizen", "citizen_gym", "inmate", "inmate_gym")


def table_shapes() -> list[dict[str, Any]]:
    """Every mode with every player count, partners, deal, get-on, count, target, clock and set."""
    shapes: list[dict[str, Any]] = []
    for mode in HOUSE_MODES:
        for players, partners, deal in [
            (2, False, 7),
            (2, False, 9),
            (3, False, 7),
            (3, False, 9),
            (4, False, 7),
            (4, True, 7),
        ]:
            shapes.append({"mode": mode, "players": players, "partners": partners, "deal": deal})
    get_ons = {"citizen": (0, 15, 20), "citizen_gym": (0, 20), "inmate": (10, 20)}
    get_ons["inmate_gym"] = (10, 15)
    for mode, values in get_ons.items():
        for get_on in values:
            shapes.append({"mode": mode, "players": 3, "get_on": get_on})
    for mode in HOUSE_MODES:
        other = 5 if mode in ("citizen", "inmate", "inmate_gym") else 10
        shapes.append({"mode": mode, "players": 4, "count_by": other, "target": 250})
    for mode in ("citizen_gym", "inmate_gym"):
        shapes.append({"mode": mode, "players": 4, "partners": True, "clock": None})
        shapes.append({"mode": mode, "players": 2, "clock": 3})
    for mode in ("fives", "threes"):
        for bone_set in ("double-six", "double-nine"):
            for spinner in (False, True):
                shapes.append({"mode": mode, "set": bone_set, "spinner": spinner})
        shapes.append({"mode": mode, "limit": 50})
        shapes.append({"mode": mode, "limit": 500, "set": "double-nine", "spinner": True})
    return shapes


def shape_id(shape: dict[str, Any]) -> str:
    return "-".join(f"{v}" if k == "mode" else f"{k}={v}" for k, v in shape.items())


def settings_of(shape: dict[str, Any]) -> TableSettings:
    rest = {k: v for k, v in shape.items() if k != "mode"}
    return TableSettings.build(shape["mode"], **rest)


def bones_in(value: Any) -> set[str]:
    """Every bone written anywhere in a JSON value."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if BONE_TEXT.match(item):
                a, b = int(item[0]), int(item[2])
                found.add(f"{max(a, b)}-{min(a, b)}")
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def board_bones(state: GameState) -> set[str]:
    return {str(b) for b in state.board.bones()}


def check_conserved(state: GameState) -> None:
    if state.deal_number == 0:
        return
    bones = [b for hand in state.hands for b in hand] + state.yard + state.board.bones()
    assert sorted(bones) == full_set(state.settings.max_pip), "bones not conserved"


def check_views(state: GameState) -> None:
    on_board = board_bones(state)
    public = public_view(state)
    json.dumps(public)
    assert bones_in(public) <= on_board, "public view shows a bone that is not on the board"
    for seat in range(state.settings.players):
        view = seat_view(state, seat)
        json.dumps(view)
        own = {str(b) for b in state.hands[seat]}
        assert bones_in(view) <= own | on_board, f"seat {seat}'s view shows a hidden bone"
        assert view["hand_sizes"] == [len(h) for h in state.hands]
        assert view["yard"] == len(state.yard)


def check_events_private(state: GameState, events: Sequence[Event], before: set[str]) -> None:
    """Event forms for a seat show nothing of another hand or the yard (except once revealed)."""
    on_board = board_bones(state)
    for event in events:
        public = event.to_public()
        assert all(isinstance(k, str) for k in public)
        json.dumps(event.to_dict())
        revealed = isinstance(event, HandOver | GameOver)
        if not revealed:
            assert bones_in(public) <= on_board | before, f"public {event.type} leaks"
        for seat in range(state.settings.players):
            seen = event.to_seat(seat)
            if revealed:
                continue
            own = {str(b) for b in state.hands[seat]}
            assert bones_in(seen) <= own | on_board | before, f"{event.type} leaks to {seat}"


def check_round_trip(state: GameState) -> None:
    data = state.to_json()
    text = json.dumps(data, separators=(",", ":"))
    assert len(text) < 4096, f"state JSON is {len(text)} bytes"
    again = GameState.from_json(json.loads(text))
    assert again.to_json() == data
    assert again.legal_actions() == state.legal_actions()
    assert state.copy().to_json() == data


def illegal_actions(state: GameState, rng: random.Random) -> Iterator[Any]:
    """A few actions that must be refused in this position."""
    n = state.settings.players
    seat = state.to_act
    hand_bones = full_set(state.settings.max_pip)
    if seat is None:
        yield Pass(rng.randrange(n))
        yield Play(0, hand_bones[0])
        return
    other = (seat + 1) % n
    yield Pass(other)
    yield Play(other, rng.choice(hand_bones))
    not_held = [b for b in hand_bones if b not in state.hands[seat]]
    if not_held:
        yield Play(seat, rng.choice(not_held))
    yield Play(seat, Bone(9, 9)) if state.settings.max_pip == 6 else Play(7, Bone(1, 1))
    yield "play 6-6"
    yield Draw(seat, 99)
    if state.settings.clock is None:
        yield Timeout(seat)
    if state.phase is Phase.PLAYING and state.board.lead is not None:
        legal = state.legal_actions()
        if not isinstance(legal[0], Pass):
            yield Pass(seat)
        if isinstance(legal[0], Play):
            yield Draw(seat, 0)
        for bone in state.hands[seat]:
            fits = state.board.fitting_ends(bone)
            for end in End:
                if end not in fits:
                    yield Play(seat, bone, end)
                    break
            if len(fits) > 1:
                yield Play(seat, bone, None)


def check_refusals(state: GameState, rng: random.Random) -> None:
    before = state.to_json()
    for action in illegal_actions(state, rng):
        try:
            state.apply(action)
        except ActionError as exc:
            assert exc.code and exc.message
        else:
            raise AssertionError(f"{action!r} was accepted in {state!r}")
        assert state.to_json() == before, f"refusing {action!r} changed the state"


class GameStats:
    def __init__(self) -> None:
        self.games = 0
        self.actions = 0
        self.hands = 0
        self.results: dict[str, int] = {}


def half_up(pips: int, unit: int) -> int:
    """Rounding to a multiple of ``unit``, halves up, by Decimal (independent of the engine's)."""
    steps = (Decimal(pips) / Decimal(unit)).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return int(steps) * unit


def check_hand_over(state: GameState, event: HandOver) -> None:
    """The hand's result agrees with the revealed hands, computed here independently."""
    settings = state.settings
    pips = [sum(b.pips for b in hand) for hand in event.hands]
    if event.result == "domino":
        assert event.seat is not None and pips[event.seat] == 0
        side = settings.side_of(event.seat)
        counted = sum(p for s, p in enumerate(pips) if settings.side_of(s) != side)
        assert event.pips == counted
        assert event.rounded == half_up(
            counted, settings.count_by if settings.house else settings.unit
        )
        assert event.points in (0, event.rounded)
    elif event.result == "blocked":
        assert not settings.house and not state.yard
        low, high = sorted(pips)
        assert event.pips == high
        if low == high:
            assert event.seat is None and event.points == 0
        else:
            assert event.seat == pips.index(low)
            assert event.points == half_up(high, settings.unit)
    elif event.result == "locked":
        assert settings.house and not state.yard and event.points == 0
    elif event.result == "redeal":
        assert event.points == 0
    else:
        assert event.result == "forfeit" and settings.clock is not None


def play_random_game(
    settings: TableSettings,
    seed: int,
    *,
    timeout_rate: float = 0.0,
    check_every: int = 0,
    stats: GameStats | None = None,
    max_actions: int = 20_000,
) -> GameState:
    """Play one seeded random game to its end, checking invariants on every action and, every
    ``check_every`` actions (0: never), views, event forms, JSON round trip, copies and
    refusals."""
    rng = random.Random(seed)
    state = GameState.new(settings)
    unit = settings.unit
    actions = 0
    while state.phase is not Phase.GAME_OVER:
        if state.phase is Phase.AWAITING_DEAL:
            order = full_set(settings.max_pip)
            rng.shuffle(order)
            events = state.deal(order)
            check_conserved(state)
            if stats:
                stats.hands += 1
            continue
        actions += 1
        assert actions <= max_actions, "the game did not end"
        if check_every and actions % check_every == 0:
            check_views(state)
            check_round_trip(state)
            check_refusals(state, rng)
        legal = state.legal_actions()
        assert legal, "a seat to act with nothing to do"
        seat = state.to_act
        assert seat is not None
        assert state.is_forced_pass() == (legal == [Pass(seat)])
        if (
            settings.clock is not None
            and timeout_rate
            and not state.is_forced_pass()
            and rng.random() < timeout_rate
        ):
            action: Any = Timeout(seat)
        else:
            action = rng.choice(legal)
        before_scores = state.scores[:]
        running_on = state.on_board[:]
        own_before = {str(b) for b in state.hands[seat]}
        events = state.apply(action)
        check_conserved(state)
        if check_every and actions % check_every == 0:
            check_events_private(state, events, own_before | board_bones(state))
        # scoring invariants
        for event in events:
            if isinstance(event, BonePlayed):
                assert event.count == state.board.total or event.count >= 0
                if settings.max_pip == 6 and settings.spinner:
                    assert event.count <= 36  # 6-6, 5-5, 4-4 on three ends and a 6
                    assert event.points <= 35  # "the most one play can score is 35"
            if isinstance(event, Scored):
                side = event.side
                before_on = running_on
                assert event.points > 0
                if event.reason == "ends":
                    assert event.points % unit == 0
                    assert event.points >= settings.smallest_score
                    assert before_on[side] or event.points >= settings.get_on
                elif event.reason == "count":
                    step = settings.count_by if settings.house else unit
                    assert event.points % step == 0
                    assert before_on[side] or event.points >= settings.get_on
                elif event.reason == "bonus":
                    assert before_on[side], "a bonus put a side on the board"
                    assert event.points in (50, 100)
                elif event.reason == "blocked":
                    assert event.points % unit == 0
                assert state.on_board[side]
                running_on = running_on[:]
                running_on[side] = True
            if isinstance(event, Bonus):
                assert settings.house
            if isinstance(event, HandOver):
                check_hand_over(state, event)
                if stats:
                    stats.results[event.result] = stats.results.get(event.result, 0) + 1
            if isinstance(event, Bonus) and stats:
                stats.results["bonus"] = stats.results.get("bonus", 0) + 1
        for side, score in enumerate(state.scores):
            assert score >= before_scores[side]
            if score > before_scores[side]:
                assert state.on_board[side]
        # nothing is scored before get-on: a side off the board has its starting score
        for side in range(settings.sides):
            if not state.on_board[side]:
                assert state.scores[side] == 0
    result = state.result
    assert result is not None
    if result.reason == "target":
        assert state.scores[result.winner] >= settings.target
    else:
        assert result.forfeit is not None and settings.clock is not None
    assert state.legal_actions() == []
    if stats:
        stats.games += 1
        stats.actions += actions
    return state


def deal(state: GameState, *hands: Sequence[str], yard: Sequence[str] | None = None) -> list[Event]:
    """Deal exact hands (bone strings) to a state awaiting a deal."""
    return state.deal_hands([list(h) for h in hands], yard)


def bones(*texts: str) -> list[Bone]:
    return [Bone.parse(t) for t in texts]


def new_state(mode: str, **settings: Any) -> GameState:
    start = {k: settings.pop(k) for k in ("scores", "on_board", "rock") if k in settings}
    return GameState.new(TableSettings.build(mode, **settings), **start)


def action_of(state: GameState, move: str) -> Any:
    """An action from a short script line: ``"0 play 6-4 left"``, ``"1 draw 5-5"`` (that bone from
    the yard), ``"2 pass"``, ``"0 timeout"``, ``"3 doubles play"``."""
    parts = move.split()
    seat, verb = int(parts[0]), parts[1]
    if verb == "play":
        bone = Bone.parse(parts[2])
        first = int(parts[2][0])
        end = End(parts[3]) if len(parts) > 3 else None
        return Play(seat, bone, end, first if first != bone.high else None)
    if verb == "draw":
        return Draw(seat, state.yard.index(Bone.parse(parts[2])))
    if verb == "pass":
        return Pass(seat)
    if verb == "timeout":
        return Timeout(seat)
    if verb == "doubles":
        from engine import DoublesChoice

        return DoublesChoice(seat, "play" if parts[2] == "play" else "reshuffle")
    raise ValueError(move)


def act(state: GameState, *moves: str) -> list[Event]:
    """Apply script lines in order; return all their events."""
    events: list[Event] = []
    for move in moves:
        events += state.apply(action_of(state, move))
    return events


def refused(state: GameState, move: str | Any) -> ActionError:
    """Apply an action that must be refused; check the state did not change; return the error."""
    before = state.to_json()
    action = action_of(state, move) if isinstance(move, str) else move
    try:
        state.apply(action)
    except ActionError as exc:
        assert state.to_json() == before
        return exc
    raise AssertionError(f"{move!r} was accepted")


def position(
    mode: str,
    hands: Sequence[Sequence[str]],
    *,
    lead: str,
    arms: Sequence[Sequence[str]] = ((), (), (), ()),
    spinner: Any = None,
    to_act: int = 0,
    yard: Sequence[str] | None = None,
    settings: dict[str, Any] | None = None,
    **fields: Any,
) -> GameState:
    """A state in the middle of a hand, built through the JSON format: the given hands and board;
    every other bone in the yard (or ``yard`` exactly). ``fields`` override state JSON keys."""
    table = TableSettings.build(mode, players=len(hands), **(settings or {}))
    data = GameState.new(table).to_json()
    used = {t for hand in hands for t in hand} | {lead} | {t for arm in arms for t in arm}
    used = {str(Bone.parse(t)) for t in used}
    rest = [str(b) for b in full_set(table.max_pip) if str(b) not in used]
    data.update(
        phase="playing",
        deal=1,
        to_act=to_act,
        hands=[[str(Bone.parse(t)) for t in hand] for hand in hands],
        yard=list(yard) if yard is not None else rest,
        board={"lead": lead, "arms": [list(arm) for arm in arms], "spinner": spinner},
    )
    data.update(fields)
    return GameState.from_json(data)


def events_of(events: Sequence[Event], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]
