"""The coach: one decision looked at from a seat's view alone, every choice scored.

:func:`analyse` takes the very dict :func:`engine.views.seat_view` gives a seat when it is to act
(it reads only :data:`engine.bots.VIEW_KEYS`, like a house player) and, when the seat has a real
choice (two or more plays, or the five-doubles choice), returns every choice with:

* ``points``: what it scores at once on the ends, exactly as the engine scores it;
* ``estimate``: the Shark's value of it, the mean over ``worlds`` deals of the bones the seat
  cannot see (each consistent with everything the seat has seen, :class:`engine.bots.DealSampler`)
  of the hand played out from there by the Regular's greedy rule: the seat's side's points minus
  the others' (on average) until the hand ends, a game won or lost counting
  ``engine.bots.WIN_VALUE`` more. The same deals serve every choice, and the deals come from a
  seeded generator, so an analysis is the same on every run and every machine;
* facts a reader can check on the board: the ends total it leaves, numbers it leaves that no
  bone the seat cannot see shows ("nobody else can match"), the most the next seat could score
  at once with a bone it may hold, how many of the seat's own bones still fit, whether it wins.

Draws (all face down and alike) and passes are forced: no analysis (``None``).

>>> from engine import GameState, TableSettings, seat_view
>>> state = GameState.new(TableSettings.build("citizen", players=2))
>>> _ = state.deal_hands(
...     [["6-6", "6-4", "5-0", "4-1", "2-2", "3-1", "6-0"],
...      ["5-5", "4-4", "6-5", "5-4", "3-0", "2-1", "1-0"]])
>>> analyse(seat_view(state, 0), seed=1) is None    # the house double must lead
True
>>> _ = state.apply(state.legal_actions()[0])
>>> mirror = analyse(seat_view(state, 1), seed=1, worlds=20)   # 6-5 left or right: one position
>>> left, right = mirror.options
>>> left.action.end.value, right.action.end.value, left.estimate == right.estimate
('left', 'right', True)
>>> _ = state.apply(state.legal_actions()[0])
>>> analysis = analyse(seat_view(state, 0), seed=1, worlds=20)
>>> [(str(o.action.bone), o.points, o.count) for o in analysis.options]
[('6-4', 0, 9), ('5-0', 0, 12), ('6-0', 0, 5)]
>>> analysis == analyse(seat_view(state, 0), seed=1, worlds=20)   # seeded: the same every time
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from .actions import Action, DoublesChoice, Play
from .board import ENDS, Board, End
from .bones import Bone, full_set
from .bots import (
    DealSampler,
    SeatView,
    _end_of,
    _greedy,
    _outcome,
    _Scorer,
    _simulation_state,
    _void_mask,
    read_view,
    total_after,
)
from .rules import TableSettings
from .state import GameState, Phase

__all__ = [
    "WORLDS",
    "Analysis",
    "Option",
    "Threat",
    "analyse",
    "board_after",
    "board_view_after",
    "greedy",
    "outcome",
    "play_out",
    "sampled_positions",
]

WORLDS: Final = 200
"""Sampled deals per decision unless told otherwise."""


@dataclass(frozen=True, slots=True)
class Threat:
    """The most the next seat could score at once after a play, with a bone it may hold."""

    bone: Bone
    end: End
    total: int
    points: int


@dataclass(slots=True)
class Option:
    """One choice the seat had, and what it is worth."""

    action: Action
    points: int
    """Scored at once on the ends (0 for the doubles choice)."""
    estimate: float
    """The Shark's value: mean points for the seat's side minus against, to the hand's end."""
    count: int | None = None
    """The ends total the play leaves (None: the doubles choice)."""
    wins: bool = False
    """It reaches the target at once: the game is won."""
    dead: list[int] = field(default_factory=list)
    """Open-end numbers after it that no bone the seat cannot see shows."""
    threat: Threat | None = None
    keeps: int = 0
    """The seat's own bones (after this one) that fit an open end after it."""
    gained: float = 0.0
    """Of the estimate: the side's mean points to the end of the hand."""
    conceded: float = 0.0
    """Of the estimate: the others' mean points (averaged over the other sides)."""
    won: float = 0.0
    """The share of the sampled deals in which the side won the game in the playout."""
    lost: float = 0.0
    """The share in which another side won it."""


@dataclass(slots=True)
class Analysis:
    seat: int
    kind: str
    """``play`` or ``doubles``."""
    options: list[Option]
    """In the order of the view's legal actions."""
    worlds: int
    next_seat: int

    @property
    def best(self) -> int:
        """The index of the Shark's choice: the best estimate; then most points now; then the
        heaviest bone; then the first listed."""

        def key(i: int) -> tuple[float, int, int, int]:
            o = self.options[i]
            pips = o.action.bone.pips if isinstance(o.action, Play) else 0
            return (round(o.estimate, 9), o.points, pips, -i)

        return max(range(len(self.options)), key=key)

    def index_of(self, action: Action) -> int:
        """The option that is this action (a lead matches whatever half it showed left)."""
        for i, o in enumerate(self.options):
            if o.action == action:
                return i
        raise ValueError(f"{action} is not one of the choices")


def board_after(view_board: Board, play: Play) -> Board:
    """The board once ``play`` is made on it (a copy)."""
    after = view_board.copy()
    after.place(play.bone, _end_of(play), play.lead_left)
    return after


def _play_facts(seen: SeatView, play: Play, scorer: _Scorer, next_seat: int, void: int) -> Option:
    board = seen.board
    side = seen.side_of(seen.seat)
    e = _end_of(play)
    total = total_after(board, play.bone, e)
    points = scorer.points(total, seen.on_board[side])
    after = board_after(board, play)
    ends = [(i, v) for i, v in enumerate(after.ends) if v >= 0]
    unseen = seen.unseen
    dead = sorted({v for _, v in ends if not any(b.has(v) for b in unseen)})
    rest = [b for b in seen.hand if b is not play.bone]
    keeps = sum(1 for b in rest if any(b.has(v) for _, v in ends))
    threat: Threat | None = None
    if seen.hand_sizes[next_seat] and rest:
        on_next = seen.on_board[seen.side_of(next_seat)] or seen.scores[seen.side_of(next_seat)] > 0
        for b in unseen:
            if b.mask & void:
                continue
            for i, v in ends:
                if not b.has(v):
                    continue
                t = total_after(after, b, i)
                p = scorer.points(t, on_next)
                if p and (threat is None or p > threat.points):
                    threat = Threat(b, ENDS[i], t, p)
    wins = bool(points) and seen.scores[side] + points >= seen.settings.target
    return Option(
        action=play,
        points=points,
        estimate=0.0,
        count=total,
        wins=wins,
        dead=dead,
        threat=threat,
        keeps=keeps,
    )


def greedy(settings: TableSettings) -> Callable[[GameState], Action]:
    """The playout policy of the Shark's estimate: the Regular's first rule for everyone (most
    points now, then the heaviest bone), +100 for five doubles."""
    scorer = _Scorer(settings)
    return lambda state: _greedy(state, scorer)


def play_out(state: GameState, policy: Callable[[GameState], Action], rng: random.Random) -> None:
    """Play to the end of the hand, every seat by ``policy``. A hand washed away by a reshuffle
    (or a redeal for want of doubles) is dealt anew at random and played: that new hand is what
    the choice led to."""
    playing = Phase.PLAYING
    choosing = Phase.CHOOSING_DOUBLES
    deals_left = 4
    while True:
        phase = state.phase
        if phase is playing or phase is choosing:
            state.apply(policy(state))
        elif phase is Phase.AWAITING_DEAL and deals_left and not _counted(state):
            order = full_set(state.settings.max_pip)
            rng.shuffle(order)
            state.deal(order)
            deals_left -= 1
        else:
            return


def outcome(state: GameState, side: int, before: list[int]) -> float:
    """What a played-out hand is worth to ``side`` (the Shark's measure): its points minus the
    others' (on average) since ``before``, and a won or lost game on top."""
    return _outcome(state, side, before)


def _position_key(board: Board, action: Action, i: int) -> object:
    """Choices with the same key leave the same position up to a mirror: the same bone, and the
    same open numbers (each with whether a double ends its line) on left and right, and on up
    and down."""
    if not isinstance(action, Play) or board.lead is None:
        return i
    after = board_after(board, action)

    def end(e: int) -> tuple[int, bool]:
        arm = after.arms[e]
        return (after.ends[e], bool(arm) and arm[-1].is_double)

    return (
        action.bone,
        after.total,
        tuple(sorted((end(0), end(1)))),
        tuple(sorted((end(2), end(3)))),
    )


def _counted(state: GameState) -> bool:
    """Whether the hand just ended was played (not a redeal: its history has a play)."""
    return any(entry[0] == "play" for entry in state.public_history())


def sampled_positions(seen: SeatView, rng: random.Random, count: int) -> Iterator[GameState]:
    """``count`` whole positions the seat may be in: its view, with the bones it cannot see dealt
    consistently with everything it has seen (:class:`engine.bots.DealSampler`)."""
    base = _simulation_state(seen)
    sampler = DealSampler(seen)
    for _ in range(count):
        hands, yard = sampler.sample(rng)
        world = base.copy()
        for s, hand in hands.items():
            world.hands[s] = hand
        world.yard = yard
        for s in sampler.doubles_needed:
            left = sum(1 for b in hands[s] if b.is_double)
            world.bonus[s], world.bonus_left[s] = (100, left) if left else (0, 0)
        yield world


def analyse(view: Mapping[str, Any], *, seed: int, worlds: int = WORLDS) -> Analysis | None:
    """Every choice the seat to act has, scored (see the module's doc). ``None`` when the move is
    forced: one legal play, a draw or a pass."""
    seen = read_view(view)
    legal = seen.legal
    first = legal[0]
    n = seen.settings.players
    next_seat = (seen.seat + 1) % n
    scorer = _Scorer(seen.settings)
    if isinstance(first, DoublesChoice):
        kind = "doubles"
        options = [Option(action=a, points=0, estimate=0.0) for a in legal]
    else:
        plays = [a for a in legal if isinstance(a, Play)]
        if len(plays) != len(legal) or len(plays) < 2:
            return None
        kind = "play"
        void = _void_mask(seen, next_seat)
        options = [_play_facts(seen, p, scorer, next_seat, void) for p in plays]
    rng = random.Random(seed)
    side = seen.side_of(seen.seat)
    before = seen.scores[:]
    sides = seen.settings.sides
    # per choice: the value, the side's points, the others' (on average), games won, games lost
    sums = [[0.0] * 5 for _ in options]
    policy = greedy(seen.settings)
    for world in sampled_positions(seen, rng, worlds):
        redeal = rng.getrandbits(32)
        for i, option in enumerate(options):
            state = world.copy()
            state.apply(option.action)
            # every choice meets the same new deal after a reshuffle
            play_out(state, policy, random.Random(redeal))
            row = sums[i]
            row[0] += _outcome(state, side, before)
            scores = state.scores
            row[1] += scores[side] - before[side]
            row[2] += sum(scores[s] - before[s] for s in range(sides) if s != side) / (sides - 1)
            result = state.result
            if result is not None:
                row[3 if result.winner == side else 4] += 1
    # Mirror images (the same bone on the left or on the right of the same numbers) are one
    # position: the playouts' tie-breaks would tell them apart by noise alone.
    groups: dict[object, list[int]] = {}
    for i, option in enumerate(options):
        groups.setdefault(_position_key(seen.board, option.action, i), []).append(i)
    for members in groups.values():
        n = worlds * len(members)
        value, gained, conceded, won, lost = [
            sum(sums[i][k] for i in members) / n for k in range(5)
        ]
        for i in members:
            o = options[i]
            o.estimate, o.gained, o.conceded, o.won, o.lost = value, gained, conceded, won, lost
    return Analysis(seat=seen.seat, kind=kind, options=options, worlds=worlds, next_seat=next_seat)


def board_view_after(view: Mapping[str, Any], play: Play) -> dict[str, Any]:
    """The board drawing (:meth:`Board.to_view`) once ``play`` is made from this view."""
    seen = read_view(view)
    return board_after(seen.board, play).to_view()
