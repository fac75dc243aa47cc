"""House players: bots that decide from one seat's view, and nothing more.

:func:`decide` takes the very dict :func:`engine.views.seat_view` gives a player's browser (plus,
at the site, the game's ``version``) and returns one of that view's ``legal_actions``. It reads
only the keys in :data:`VIEW_KEYS`, so anything else a view might carry is ignored, and it
refuses (:class:`ViewError`) a view that does not add up: a hand that is not the size the table
says, bones counted twice, a legal action for a bone the seat does not hold.

Three levels:

* **Rookie**: a random legal action.
* **Regular**: the play that scores most now; then the one that keeps most of its own bones
  playable and leaves ends the next player is known not to hold; then the heaviest bone.
* **Shark**: looks ahead. It deals the hidden bones (the other hands and the yard) many times
  over, each deal consistent with everything public: the bones played, who drew and who passed
  on which open ends (a seat that drew or passed held no bone showing those numbers, and kept
  none of them until it drew again), and which doubles nobody was dealt (the lead in line tells).
  For each deal it plays the hand out with every candidate action, both sides playing the
  Regular's greedy game, and picks the action with the best average result (its side's points
  minus the others', a won or lost game counting far more), within a time and sample budget.

Everyone draws a random face-down bone when it must draw, passes when it must pass, and plays its
doubles for +100 when dealt five or more (the Rookie tosses a coin).

>>> from engine import GameState, TableSettings, seat_view
>>> state = GameState.new(TableSettings.build("citizen", players=2))
>>> _ = state.deal_hands(
...     [["6-6", "6-3", "5-0", "4-1", "2-2", "3-1", "6-0"],
...      ["5-5", "4-4", "6-5", "5-4", "3-0", "2-1", "1-0"]])
>>> decide(seat_view(state, 0), "shark").to_dict()   # the house double must lead
{'type': 'play', 'seat': 0, 'bone': '6-6'}
>>> _ = state.apply(decide(seat_view(state, 0), "rookie"))
>>> view = seat_view(state, 1)
>>> decide(view, "regular").to_dict() in view["legal_actions"]
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from heapq import heappop, heappush
from typing import Any, Final

from .actions import Action, DoublesChoice, Draw, Play, parse_action
from .board import END_INDEX, LEAD, Board, End
from .bones import Bone, full_set
from .errors import ActionError, SettingsError, StateFormatError
from .rules import TableSettings
from .state import GameState, Phase

__all__ = [
    "LEVELS",
    "VIEW_KEYS",
    "Budget",
    "DealSampler",
    "SeatView",
    "ViewError",
    "any_legal_action",
    "decide",
    "read_view",
]

LEVELS: Final = ("rookie", "regular", "shark")
"""The house players' levels, weakest first."""

VIEW_KEYS: Final = frozenset(
    {"settings", "phase", "seat", "to_act", "hand", "hand_sizes", "yard", "board", "scores"}
    | {"on_board", "dumbbells", "turn_dumbbells", "rock", "deal", "wash", "history"}
    | {"legal_actions"}
)
"""Every key of a seat's view that a house player reads. All of them are in what the seat's own
browser is sent; none holds another seat's bones or the yard's."""

WIN_VALUE: Final = 200
"""What a won (or lost) game is worth to the Shark, in points of this hand."""


class ViewError(ValueError):
    """The view is not a seat's view of a game that seat can act in now, or it does not add up."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How long the Shark may think: at most ``seconds`` (wall clock) and ``worlds`` sampled
    deals, but at least ``min_worlds`` deals whatever the clock says."""

    seconds: float | None = 0.12
    worlds: int = 400
    min_worlds: int = 8


DEFAULT_BUDGET: Final = Budget()


# ---------------------------------------------------------------- reading the view


@dataclass(slots=True)
class SeatView:
    """A seat's view, read and checked: what a house player knows."""

    settings: TableSettings
    seat: int
    phase: Phase
    hand: list[Bone]
    hand_sizes: list[int]
    yard: int
    board: Board
    scores: list[int]
    on_board: list[bool]
    dumbbells: list[int]
    turn_dumbbells: int
    rock: int | None
    deal: int
    wash: dict[str, Any]
    legal: list[Action]
    history: list[list[Any]] | None
    """This hand's public moves, or ``None`` when the view's history does not account for the
    board (a state written before the history was kept): then nothing is inferred from it."""
    unseen: list[Bone] = field(default_factory=list)
    """Every bone this seat cannot see: the other hands and the yard."""

    def side_of(self, seat: int) -> int:
        return self.settings.side_of(seat)


def _need(condition: bool, message: str) -> None:
    if not condition:
        raise ViewError(message)


def _count(value: object, name: str) -> int:
    _need(type(value) is int and value >= 0, f"{name} must be a count")
    assert isinstance(value, int)
    return value


def _board_from_view(data: object, spinner_on: bool) -> Board:
    """The engine's board from the view's drawing of it (:meth:`Board.to_view`)."""
    if data is None or (isinstance(data, Mapping) and data.get("lead") is None):
        return Board(spinner_on)
    _need(isinstance(data, Mapping), "the board must be an object")
    assert isinstance(data, Mapping)
    try:
        lead = data["lead"]
        arms = data["arms"]
        spinner = data["spinner"]
        compact: dict[str, Any] = {
            "lead": f"{int(lead['left'])}-{int(lead['right'])}",
            "arms": [[row["bone"] for row in arms[end.value]] for end in End],
            "spinner": None
            if spinner is None
            else "lead"
            if spinner["arm"] == "lead"
            else [spinner["arm"], spinner["index"]],
        }
        board = Board.from_json(compact, spinner_on)
    except (KeyError, TypeError, ValueError, StateFormatError) as exc:
        raise ViewError(f"the board does not read: {exc}") from None
    _need(board.to_view() == dict(data), "the board does not add up")
    return board


def _replay(history: list[list[Any]], spinner_on: bool) -> Board | None:
    """The board the history's plays build, or None when they do not build one."""
    board = Board(spinner_on)
    try:
        for entry in history:
            if entry[0] != "play":
                continue
            text, end = entry[2], entry[3]
            bone = Bone.parse(text)
            if end is None:
                board.play(bone, None, int(text[0]))
            else:
                board.play(bone, End(end))
    except (ActionError, ValueError, TypeError, IndexError, KeyError):
        return None
    return board


def _check_legal(legal: list[Action], hand: list[Bone], board: Board, yard: int, seat: int) -> None:
    """The legal actions are exactly those the hand and the board allow (a view with another
    hand than its own, or a made-up action, does not pass)."""
    if board.lead is None:
        leads = {a.bone for a in legal if isinstance(a, Play) and a.end is None}
        _need(len(leads) == len(legal), "only leads are legal on an empty board")
        _need(len(leads) == 1 or leads == set(hand), "the leads are not the hand's")
        return
    fits = {
        (bone.index, e)
        for bone in hand
        for e, v in enumerate(board.ends)
        if v >= 0 and (bone.high == v or bone.low == v)
    }
    if fits:
        listed = {(a.bone.index, END_INDEX[a.end]) for a in legal if isinstance(a, Play) and a.end}
        _need(len(listed) == len(legal) and listed == fits, "the legal plays are not the hand's")
    elif yard:
        positions = sorted(a.position for a in legal if isinstance(a, Draw))
        _need(positions == list(range(yard)), "the hand can't play: it draws")
    else:
        _need(len(legal) == 1 and legal[0].type == "pass", "the hand can't play: it passes")
    del seat


def read_view(view: Mapping[str, Any]) -> SeatView:
    """Read and check a seat's view. Raises :class:`ViewError`; reads only :data:`VIEW_KEYS`."""
    _need(isinstance(view, Mapping), "a view is an object")
    missing = [key for key in sorted(VIEW_KEYS) if key not in view]
    _need(not missing, f"not a seat's view: no {', '.join(missing)}")
    try:
        settings = TableSettings.from_dict(view["settings"])
    except (KeyError, SettingsError) as exc:
        raise ViewError(f"the view's settings do not read: {exc}") from None
    n = settings.players
    seat = view["seat"]
    _need(type(seat) is int and 0 <= seat < n, "no such seat")
    try:
        phase = Phase(view["phase"])
    except ValueError:
        raise ViewError("unknown phase") from None
    _need(phase in (Phase.PLAYING, Phase.CHOOSING_DOUBLES), "nothing to decide in this phase")
    _need(view["to_act"] == seat, "it is not this seat's turn")
    raw_hand = view["hand"]
    _need(isinstance(raw_hand, list), "the hand must be a list")
    try:
        hand = [Bone.parse(b) for b in raw_hand]
    except ActionError:
        raise ViewError("the hand holds something that is not a bone") from None
    _need(all(b.high <= settings.max_pip for b in hand), "a bone from another set")
    _need(len(set(hand)) == len(hand), "a bone twice in the hand")
    sizes = view["hand_sizes"]
    _need(isinstance(sizes, list) and len(sizes) == n, "one hand size per seat")
    hand_sizes = [_count(s, "a hand size") for s in sizes]
    _need(hand_sizes[seat] == len(hand), "the hand is not the size the table says")
    yard = _count(view["yard"], "the yard")
    board = _board_from_view(view["board"], settings.spinner)
    on_table = board.bones()
    _need(not set(on_table) & set(hand), "a bone both in hand and on the board")
    _need(
        len(hand) + len(on_table) + sum(hand_sizes) - hand_sizes[seat] + yard == settings.set_size,
        "the bones do not add up to the set",
    )
    sides = settings.sides
    scores = view["scores"]
    _need(isinstance(scores, list) and len(scores) == sides, "one score per side")
    on_board = view["on_board"]
    _need(isinstance(on_board, list) and len(on_board) == sides, "one on-board flag per side")
    dumbbells = view["dumbbells"]
    _need(isinstance(dumbbells, list) and len(dumbbells) == n, "dumbbells per seat")
    rock = view["rock"]
    _need(rock is None or (type(rock) is int and 0 <= rock < n), "the rock is a seat")
    wash = view["wash"]
    _need(isinstance(wash, Mapping), "the wash is an object")
    raw_legal = view["legal_actions"]
    _need(isinstance(raw_legal, list) and bool(raw_legal), "no legal action to choose from")
    legal: list[Action] = []
    for data in raw_legal:
        try:
            action = parse_action(data)
        except ActionError:
            raise ViewError("a legal action does not read") from None
        _need(action.seat == seat, "a legal action for another seat")
        if isinstance(action, Play):
            _need(action.bone in hand, "a legal play of a bone the seat does not hold")
        if isinstance(action, Draw):
            _need(action.position < yard, "a draw from beyond the yard")
        legal.append(action)
    if phase is Phase.PLAYING:
        _check_legal(legal, hand, board, yard, seat)
    else:
        _need(all(isinstance(a, DoublesChoice) for a in legal), "a choice is due, not a move")
        _need(sum(1 for b in hand if b.is_double) >= 5, "a choice without five doubles")
    raw_history = view["history"]
    history: list[list[Any]] | None = None
    if isinstance(raw_history, list) and all(
        isinstance(e, list) and len(e) >= 2 and type(e[1]) is int and 0 <= e[1] < n
        for e in raw_history
    ):
        replayed = _replay(raw_history, settings.spinner)
        if replayed is not None and replayed.to_view() == board.to_view():
            history = [list(e) for e in raw_history]
    if history is not None and phase is Phase.PLAYING:
        # every hand is what was dealt, less what it played, plus what it drew
        for s in range(n):
            moves = [e[0] for e in history if e[1] == s]
            expected = settings.deal - moves.count("play") + moves.count("draw")
            _need(hand_sizes[s] == expected, "the hand sizes do not agree with the moves")
    seen = set(hand) | set(on_table)
    unseen = [b for b in full_set(settings.max_pip) if b not in seen]
    return SeatView(
        settings=settings,
        seat=seat,
        phase=phase,
        hand=hand,
        hand_sizes=hand_sizes,
        yard=yard,
        board=board,
        scores=[_count(s, "a score") for s in scores],
        on_board=[bool(b) for b in on_board],
        dumbbells=[_count(d, "dumbbells") for d in dumbbells],
        turn_dumbbells=_count(view["turn_dumbbells"], "dumbbells"),
        rock=rock,
        deal=_count(view["deal"], "the deal"),
        wash=dict(wash),
        legal=legal,
        history=history,
        unseen=unseen,
    )


# ---------------------------------------------------------------- scoring a play


def _mask(board: Board) -> int:
    mask = 0
    for v in board.ends:
        if v >= 0:
            mask |= 1 << v
    return mask


def total_after(board: Board, bone: Bone, e: int) -> int:
    """The ends total once ``bone`` goes on end index ``e`` (``LEAD``: leads), without placing it.

    >>> b = Board(spinner_on=True)
    >>> b.play(Bone.parse("6-6"), None)
    12
    >>> total_after(b, Bone.parse("6-3"), END_INDEX[End.RIGHT])
    15
    """
    if e == LEAD:
        return bone.pips
    v = board.ends[e]
    arm = board.arms[e]
    lead = board.lead
    assert lead is not None
    if arm:
        last = arm[-1]
        old = last.pips if last.is_double else v
    elif e < 2:
        old = 0 if lead.is_double else v
    else:
        old = 0
    new = bone.pips if bone.is_double else (bone.low if bone.high == v else bone.high)
    total = board.total - old + new
    if e < 2 and lead.is_double and not arm and board.arms[1 - e]:
        total -= lead.pips  # both in-line sides of a led double are now covered
    return total


class _Scorer:
    """The points a total scores for a side, by the table's rules."""

    __slots__ = ("get_on", "smallest", "unit")

    def __init__(self, settings: TableSettings) -> None:
        self.smallest = settings.smallest_score
        self.unit = settings.unit
        self.get_on = settings.get_on

    def points(self, total: int, on_board: bool) -> int:
        if total >= self.smallest and total % self.unit == 0 and (on_board or total >= self.get_on):
            return total
        return 0


def _end_of(play: Play) -> int:
    return LEAD if play.end is None else END_INDEX[play.end]


# ---------------------------------------------------------------- what the history says


@dataclass(slots=True)
class _Seen:
    """What a seat's public moves this hand say about it."""

    played: list[tuple[Bone, int]] = field(default_factory=list)
    """Bones it played, with the history index of each play."""
    draws: list[int] = field(default_factory=list)
    """History index of each draw (the bone drawn joins the hand just after)."""
    voids: list[tuple[int, int]] = field(default_factory=list)
    """(history index, mask of the open ends): when it drew or passed it held none of them."""
    chose_play: bool = False
    """It was dealt five or more doubles and plays them."""


def _read_history(
    history: list[list[Any]], settings: TableSettings
) -> tuple[list[_Seen], set[Bone]]:
    """Each seat's public record this hand, and the doubles nobody was dealt."""
    seen = [_Seen() for _ in range(settings.players)]
    board = Board(settings.spinner)
    lead_reason: str | None = None
    not_dealt: set[Bone] = set()
    for t, entry in enumerate(history):
        kind, seat = entry[0], entry[1]
        record = seen[seat]
        if kind == "play":
            text, end = entry[2], entry[3]
            bone = Bone.parse(text)
            if end is None:
                board.play(bone, None, int(text[0]))
                if lead_reason in ("next_double", "highest_double") and bone.is_double:
                    # every double before it in line was in nobody's hand: it was in the yard
                    for value in settings.lead_order:
                        if value == bone.high:
                            break
                        not_dealt.add(Bone.of(value, value))
            else:
                board.play(bone, End(end))
            record.played.append((bone, t))
        elif kind == "draw":
            record.voids.append((t, _mask(board)))
            record.draws.append(t)
        elif kind == "pass":
            record.voids.append((t, _mask(board)))
        elif kind == "lead":
            lead_reason = entry[2]
        elif kind == "chose" and entry[2] == "play":
            record.chose_play = True
    return seen, not_dealt


def _latest_void(record: _Seen, bone: Bone, before: int, not_dealt: bool) -> int:
    """The earliest a bone can have joined this seat's hand and still be consistent: after the
    last time (before ``before``) the seat showed it held no bone with one of its numbers.
    -1: it may have been dealt; 0 or more: it came from the yard at or after that index."""
    latest = 0 if not_dealt else -1
    m = bone.mask
    for t, mask in record.voids:
        if t < before and m & mask and t > latest:
            latest = t
    return latest


def _free_slots(record: _Seen, deal: int, not_dealt: set[Bone]) -> list[int] | None:
    """When each bone still in the seat's hand can have joined it, as a list of 'slots'
    (-1: dealt; t: drawn at history index t), once every bone it played has been given the
    earliest slot it fits (so the hand keeps the latest, least constrained ones). None when the
    record does not add up."""
    slots = [-1] * deal + record.draws
    items = sorted(
        (_latest_void(record, bone, t, bone in not_dealt), t) for bone, t in record.played
    )
    free: list[int] = []
    heap: list[int] = []
    j = 0
    for a in slots:
        while j < len(items) and items[j][0] <= a:
            heappush(heap, items[j][1])
            j += 1
        if heap:
            if heap[0] <= a:
                return None  # a played bone fits no slot before its play
            heappop(heap)
        else:
            free.append(a)
    if heap or j < len(items):
        return None
    return free


class DealSampler:
    """Deals the bones a seat cannot see (the other hands and the yard), consistent with the
    history: each deal gives every other seat exactly its hand size and the yard its size, and
    gives no seat a bone it showed (by drawing or passing) that it did not hold, unless it drew
    after that; doubles nobody was dealt come from the yard; a seat playing five doubles holds
    enough of them.

    ``constrained`` is False when the view's history could not be used (then deals are only
    consistent with the counts).
    """

    def __init__(self, view: SeatView) -> None:
        settings = view.settings
        self.view = view
        self.unseen = view.unseen
        self.seats = [s for s in range(settings.players) if s != view.seat]
        self.yard = view.yard
        size = max(b.index for b in full_set(settings.max_pip)) + 1
        # per seat: the slots its hand's bones fill, and per bone the earliest slot it may fill
        self.slots: dict[int, list[int]] = {}
        self.earliest: dict[int, list[int]] = {}
        self.doubles_needed: dict[int, int] = {}
        self.constrained = view.history is not None
        records: list[_Seen] | None = None
        not_dealt: set[Bone] = set()
        if view.history is not None:
            try:
                records, not_dealt = _read_history(view.history, settings)
            except (ActionError, ValueError, TypeError, IndexError, KeyError):
                records = None
                self.constrained = False
        for s in self.seats:
            h = view.hand_sizes[s]
            free = None
            if records is not None:
                record = records[s]
                free = _free_slots(record, settings.deal, not_dealt)
                if free is not None and len(free) != h:
                    free = None
                if record.chose_play:
                    played = sum(1 for b, _ in record.played if b.is_double)
                    self.doubles_needed[s] = max(0, 5 - played)
            if free is None:
                self.slots[s] = [-1] * h
                self.earliest[s] = [-1] * size
                if records is not None:
                    self.constrained = False
                continue
            self.slots[s] = free
            record = records[s]  # type: ignore[index]
            earliest = [-1] * size
            for b in self.unseen:
                earliest[b.index] = _latest_void(record, b, 1 << 30, b in not_dealt)
            self.earliest[s] = earliest
        # fill the most constrained slots first
        order: list[tuple[int, int, int]] = []
        for s in self.seats:
            earliest = self.earliest[s]
            for a in self.slots[s]:
                fits = sum(1 for b in self.unseen if earliest[b.index] <= a)
                order.append((fits, s, a))
        order.sort()
        self.order = [(s, a) for _, s, a in order]
        self.relaxed = 0
        """Deals that had to ignore the history (no consistent deal found in the tries)."""

    def sample(
        self, rng: random.Random, tries: int = 30
    ) -> tuple[dict[int, list[Bone]], list[Bone]]:
        """One deal: each other seat's hand, and the yard in a random order."""
        for _ in range(tries):
            deal = self._try(rng, strict=True)
            if deal is not None:
                return deal
        self.relaxed += 1
        deal = self._try(rng, strict=False)
        assert deal is not None
        return deal

    def _try(
        self, rng: random.Random, *, strict: bool
    ) -> tuple[dict[int, list[Bone]], list[Bone]] | None:
        pool = self.unseen[:]
        rng.shuffle(pool)
        taken = [False] * len(pool)
        hands: dict[int, list[Bone]] = {s: [] for s in self.seats}
        reserved: dict[tuple[int, int], int] = {}
        if strict:
            # a seat playing five doubles holds enough of them: those go in first
            for s, needed in self.doubles_needed.items():
                earliest = self.earliest[s]
                for a in sorted(self.slots[s])[:needed]:
                    for i, b in enumerate(pool):
                        if not taken[i] and b.is_double and earliest[b.index] <= a:
                            taken[i] = True
                            hands[s].append(b)
                            reserved[s, a] = reserved.get((s, a), 0) + 1
                            break
                    else:
                        return None
        for s, a in self.order:
            if reserved.get((s, a)):
                reserved[s, a] -= 1
                continue
            earliest = self.earliest[s]
            for i, b in enumerate(pool):
                if not taken[i] and (not strict or earliest[b.index] <= a):
                    taken[i] = True
                    hands[s].append(b)
                    break
            else:
                return None
        yard = [b for i, b in enumerate(pool) if not taken[i]]
        return hands, yard

    def consistent(self, hands: Mapping[int, Sequence[Bone]]) -> bool:
        """Whether these hands fit the history (for tests): every hand's bones can be matched
        to its slots."""
        for s in self.seats:
            earliest = self.earliest[s]
            need = sorted(earliest[b.index] for b in hands[s])
            if len(need) != len(self.slots[s]):
                return False
            if any(n > a for n, a in zip(need, sorted(self.slots[s]), strict=True)):
                return False
        return True


# ---------------------------------------------------------------- the levels


def decide(
    view: Mapping[str, Any],
    level: str,
    *,
    rng: random.Random | None = None,
    budget: Budget | None = None,
) -> Action:
    """The action a house player of ``level`` takes, from ``view`` (a seat's view) alone."""
    if level not in LEVELS:
        raise ValueError(f"no house player level {level!r}: choose {', '.join(LEVELS)}")
    seen = read_view(view)
    rng = rng or random.Random()
    legal = seen.legal
    if level == "rookie":
        return legal[rng.randrange(len(legal))]
    first = legal[0]
    if isinstance(first, DoublesChoice):
        return next(a for a in legal if isinstance(a, DoublesChoice) and a.choice == "play")
    if isinstance(first, Draw):
        return legal[rng.randrange(len(legal))]  # every face-down bone is alike
    plays = [a for a in legal if isinstance(a, Play)]
    if len(plays) != len(legal) or not plays:
        return first  # a pass
    if len(plays) == 1:
        return plays[0]
    if level == "regular":
        return _regular(seen, plays, rng)
    return _shark(seen, plays, rng, budget or DEFAULT_BUDGET)


def any_legal_action(view: Mapping[str, Any], rng: random.Random | None = None) -> Action:
    """A random one of the view's legal actions, read with no other check: the site's fallback
    when a house player fails."""
    rng = rng or random.Random()
    legal = view["legal_actions"]
    return parse_action(legal[rng.randrange(len(legal))])


def _void_mask(seen: SeatView, seat: int) -> int:
    """Numbers ``seat`` surely does not hold: the open ends when it last drew or passed, if it
    has drawn nothing since."""
    if seen.history is None:
        return 0
    mask = 0
    board = Board(seen.settings.spinner)
    for entry in seen.history:
        kind = entry[0]
        if kind == "play":
            text, end = entry[2], entry[3]
            if end is None:
                board.play(Bone.parse(text), None, int(text[0]))
            else:
                board.play(Bone.parse(text), End(end))
        elif entry[1] == seat and kind in ("draw", "pass"):
            mask = _mask(board)
    return mask


def _regular(seen: SeatView, plays: list[Play], rng: random.Random) -> Play:
    scorer = _Scorer(seen.settings)
    board = seen.board
    on = seen.on_board[seen.side_of(seen.seat)]
    n = seen.settings.players
    next_seat = (seen.seat + 1) % n  # at Partners too, the next seat is an opponent
    void = _void_mask(seen, next_seat)
    visible = seen.hand + board.bones()
    best: tuple[float, ...] | None = None
    choice = plays[0]
    for play in plays:
        e = _end_of(play)
        points = scorer.points(total_after(board, play.bone, e), on)
        after = board.copy()
        after.place(play.bone, e, play.lead_left)
        mask = _mask(after)
        rest = [b for b in seen.hand if b is not play.bone]
        options = sum(1 for b in rest if b.mask & mask)
        blocked = 1 if mask and not mask & ~void else 0
        scarce = sum(1 for b in visible if b.mask & mask) / 10
        key = (points, blocked * 3 + options + scarce, play.bone.pips, rng.random())
        if best is None or key > best:
            best, choice = key, play
    return choice


def _greedy(state: GameState, scorer: _Scorer) -> Action:
    """The playout policy: the Regular's first rule (most points now, then the heaviest bone),
    a draw from the top of the (already random) yard, +100 for five doubles."""
    legal = state.legal_actions()
    first = legal[0]
    if len(legal) == 1 or type(first) is not Play:
        if type(first) is DoublesChoice:
            return legal[0]  # "play"
        return first
    board = state.board
    seat = first.seat
    on = state.on_board[state.side_of(seat)]
    best = -1
    choice = first
    for action in legal:
        assert type(action) is Play
        bone = action.bone
        end = action.end
        total = bone.pips if end is None else total_after(board, bone, END_INDEX[end])
        value = scorer.points(total, on) * 16 + bone.pips
        if value > best:
            best, choice = value, action
    return choice


def _simulation_state(seen: SeatView) -> GameState:
    """A game state for the seat's view with the hidden bones still to be dealt (the hands and
    yard are filled per sampled deal)."""
    settings = seen.settings
    board = seen.board
    legal = seen.legal
    forced = None
    if board.lead is None and len(legal) == 1 and isinstance(legal[0], Play):
        forced = str(legal[0].bone)
    passes = 0
    history = seen.history
    if history is not None:
        for entry in history[::-1]:
            if entry[0] != "pass":
                break
            passes += 1
    # a placeholder deal of the unseen bones, in the right sizes (replaced per sample)
    pool = iter(seen.unseen)
    hands = [
        [str(b) for b in seen.hand]
        if s == seen.seat
        else [str(next(pool)) for _ in range(seen.hand_sizes[s])]
        for s in range(settings.players)
    ]
    yard = [str(b) for b in pool]
    data = {
        "v": 1,
        "settings": settings.to_dict(),
        "phase": seen.phase.value,
        "deal": seen.deal,
        "to_act": seen.seat,
        "scores": seen.scores,
        "on_board": seen.on_board,
        "dumbbells": seen.dumbbells,
        "turn_dumbbells": seen.turn_dumbbells,
        "rock": seen.rock,
        "wash": {"seats": list(seen.wash.get("seats", [])), "reason": seen.wash.get("reason", "")},
        "hands": hands,
        "yard": yard,
        "board": board.to_json(),
        "forced_lead": forced,
        "passes": passes,
        "bonus": [0] * settings.players,
        "bonus_left": [0] * settings.players,
        "last_play": None,
        "result": None,
    }
    state = GameState.from_json(data)
    # the seat's own doubles bonus, still at stake if it has not drawn this hand
    if seen.history is not None and settings.house:
        mine = [e for e in seen.history if e[1] == seen.seat]
        if not any(e[0] == "draw" for e in mine):
            played = [Bone.parse(e[2]) for e in mine if e[0] == "play"]
            dealt_doubles = sum(1 for b in seen.hand + played if b.is_double)
            left = sum(1 for b in seen.hand if b.is_double)
            chose = any(e[0] == "chose" and e[2] == "play" for e in mine)
            if left and chose:
                state.bonus[seen.seat], state.bonus_left[seen.seat] = 100, left
            elif left and dealt_doubles == 4:
                state.bonus[seen.seat], state.bonus_left[seen.seat] = 50, left
    return state


def _outcome(state: GameState, side: int, before: list[int]) -> float:
    """What a played-out hand is worth to ``side``: its points minus the others' (on average),
    and a won or lost game on top."""
    scores = state.scores
    sides = len(scores)
    mine = scores[side] - before[side]
    others = sum(scores[s] - before[s] for s in range(sides) if s != side) / (sides - 1)
    value = mine - others
    result = state.result
    if result is not None:
        value += WIN_VALUE if result.winner == side else -WIN_VALUE
    return value


def _shark(seen: SeatView, plays: list[Play], rng: random.Random, budget: Budget) -> Play:
    started = time.perf_counter()
    base = _simulation_state(seen)
    sampler = DealSampler(seen)
    scorer = _Scorer(seen.settings)
    side = seen.side_of(seen.seat)
    before = seen.scores[:]
    totals = [0.0] * len(plays)
    worlds = 0
    deadline = None if budget.seconds is None else started + budget.seconds
    playing = Phase.PLAYING
    choosing = Phase.CHOOSING_DOUBLES
    while worlds < budget.worlds:
        if deadline is not None and worlds >= budget.min_worlds and time.perf_counter() >= deadline:
            break
        hands, yard = sampler.sample(rng)
        world = base.copy()
        for s, hand in hands.items():
            world.hands[s] = hand
        world.yard = yard
        if sampler.doubles_needed:
            for s in sampler.doubles_needed:
                left = sum(1 for b in hands[s] if b.is_double)
                world.bonus[s], world.bonus_left[s] = (100, left) if left else (0, 0)
        for i, play in enumerate(plays):
            state = world.copy()
            state.apply(play)
            while state.phase is playing or state.phase is choosing:
                state.apply(_greedy(state, scorer))
            totals[i] += _outcome(state, side, before)
        worlds += 1
    best = max(range(len(plays)), key=lambda i: (totals[i], plays[i].bone.pips))
    return plays[best]
