"""Puzzles from real games: positions where, from the seat's view alone, one play is clearly best.

:func:`mine` takes the very dict :func:`engine.views.seat_view` gives a seat when it is to act
(read through :data:`engine.bots.VIEW_KEYS`, like the coach and the house players: a puzzle
never depends on a bone the seat could not see) and returns a :class:`Puzzle` or says why not:

1. **Not forced.** At least two different positions to choose from: a draw, a pass, one legal
   play, or plays that are mirror images of one another (the same bone on the left or the right
   of the same numbers) give no puzzle.
2. **Not trivial.** The answer is not simply the play that scores the most at once: a play that
   scores strictly more than every other, on the spot, is what any greedy player finds.
3. **Clearly best.** The coach's analysis (:func:`engine.coach.analyse`, ``worlds`` deals of the
   bones the seat cannot see, each hand played out) puts the best position at least
   :data:`MARGIN` points (the seat's side's points less the others', to the end of the hand, a
   game won or lost counting 200) above the next best.
4. **Robust.** The analysis is made again :data:`CHECKS` times, each with another seed and twice
   the deals: the same position must come out best each time, by at least half the margin. The
   smallest margin seen is the puzzle's.

A puzzle names its themes (:data:`THEMES`), found from the analysis and the board, each with a
reason a solver can check. :func:`judge` says whether a given play solves it.

>>> from engine import GameState, TableSettings, seat_view
>>> state = GameState.new(TableSettings.build("citizen", players=2))
>>> _ = state.deal_hands(
...     [["6-6", "6-4", "5-0", "4-1", "2-2", "3-1", "6-0"],
...      ["5-5", "4-4", "6-5", "5-4", "3-0", "2-1", "1-0"]])
>>> mine(seat_view(state, 0), seed=1).reason     # the house double must lead
'forced'
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from .actions import Action, Play
from .board import DOWN, UP
from .bots import VIEW_KEYS, _end_of, _void_mask, read_view
from .coach import Analysis, _position_key, analyse, board_after

__all__ = [
    "CHECKS",
    "MARGIN",
    "THEMES",
    "Mined",
    "Puzzle",
    "judge",
    "mine",
]

MARGIN: Final = 8.0
"""Points the best position must beat the next best by (more than one score on the ends)."""

CHECKS: Final = 2
"""Analyses made again, each with another seed and twice the deals, for robustness."""

THEMES: Final = (
    "domino",
    "blocking",
    "spinner",
    "double",
    "counting",
    "denying",
    "partners",
    "patience",
)
"""What a puzzle can be about: going out; blocking the board; scoring on the spinner; holding or
dropping a double; counting the bones (a number nobody else can match); denying the next player
a number it is known not to hold; Partners play; giving up points now for more later."""


@dataclass(slots=True)
class Puzzle:
    """A position with one clearly best play."""

    view: dict[str, Any]
    """The seat's view, cut to :data:`engine.bots.VIEW_KEYS`: everything a solver is shown."""
    answer: list[int]
    """Indices in ``view["legal_actions"]`` of the plays that solve it (one position: a play and
    its mirror image, if it has one)."""
    runner_up: list[int]
    """The next best position's plays."""
    margin: float
    """Points the answer beats the next best by: the smallest over the analysis and its checks."""
    estimates: list[float]
    """The first analysis's estimate of each legal play, in ``legal_actions`` order."""
    points: list[int]
    """What each legal play scores at once."""
    themes: list[str]
    reasons: dict[str, str] = field(default_factory=dict)
    """Per theme, what in the position shows it (English; the site words it for the solver)."""
    worlds: int = 0


@dataclass(slots=True)
class Mined:
    """What :func:`mine` found: a puzzle, or why not (``forced``, ``trivial``, ``close``: the
    margin is too small, ``unstable``: a check disagreed)."""

    puzzle: Puzzle | None
    reason: str
    margin: float = 0.0


def _groups(analysis: Analysis, board: Any) -> list[list[int]]:
    """The options grouped by position (mirror images together), best first."""
    groups: dict[object, list[int]] = {}
    for i, option in enumerate(analysis.options):
        groups.setdefault(_position_key(board, option.action, i), []).append(i)
    ordered = list(groups.values())
    ordered.sort(key=lambda members: -analysis.options[members[0]].estimate)
    return ordered


def _best_and_margin(analysis: Analysis, board: Any) -> tuple[list[int], list[int], float]:
    groups = _groups(analysis, board)
    best, second = groups[0], groups[1]
    margin = analysis.options[best[0]].estimate - analysis.options[second[0]].estimate
    return best, second, margin


def mine(view: Mapping[str, Any], *, seed: int, worlds: int = 200, margin: float = MARGIN) -> Mined:
    """A puzzle from this position, or why not (see the module's doc)."""
    seen = read_view(view)
    plays = [a for a in seen.legal if isinstance(a, Play)]
    if len(plays) != len(seen.legal) or len(plays) < 2:
        return Mined(None, "forced")
    board = seen.board
    keys = {_position_key(board, p, i) for i, p in enumerate(plays)}
    if len(keys) < 2:
        return Mined(None, "forced")
    analysis = analyse(view, seed=seed, worlds=worlds)
    if analysis is None:
        return Mined(None, "forced")
    best, second, first_margin = _best_and_margin(analysis, board)
    points = [o.points for o in analysis.options]
    top = max(points)
    if points[best[0]] == top and all(points[i] < top for i in range(len(points)) if i not in best):
        return Mined(None, "trivial", first_margin)
    if first_margin < margin:
        return Mined(None, "close", first_margin)
    smallest = first_margin
    rng = random.Random(seed)
    for _ in range(CHECKS):
        again = analyse(view, seed=rng.getrandbits(64), worlds=worlds * 2)
        assert again is not None
        best_again, _second, margin_again = _best_and_margin(again, board)
        if set(best_again) != set(best) or margin_again < margin / 2:
            return Mined(None, "unstable", min(smallest, margin_again))
        smallest = min(smallest, margin_again)
    themes, reasons = _themes(view, analysis, best, second)
    puzzle = Puzzle(
        view={k: view[k] for k in VIEW_KEYS if k in view},
        answer=sorted(best),
        runner_up=sorted(second),
        margin=round(smallest, 2),
        estimates=[round(o.estimate, 2) for o in analysis.options],
        points=points,
        themes=themes,
        reasons=reasons,
        worlds=worlds,
    )
    return Mined(puzzle, "puzzle", smallest)


def judge(puzzle: Puzzle, action: Action) -> bool:
    """Whether ``action`` (one of the view's legal plays) solves the puzzle."""
    seen = read_view(puzzle.view)
    return any(seen.legal[i] == action for i in puzzle.answer)


def _themes(
    view: Mapping[str, Any], analysis: Analysis, best: list[int], second: list[int]
) -> tuple[list[str], dict[str, str]]:
    seen = read_view(view)
    board = seen.board
    options = analysis.options
    answer, other = options[best[0]], options[second[0]]
    play = answer.action
    assert isinstance(play, Play)
    rival = other.action
    assert isinstance(rival, Play)
    reasons: dict[str, str] = {}
    after = board_after(board, play)
    hand_after = len(seen.hand) - 1
    next_seat = analysis.next_seat
    if hand_after <= 2 and answer.keeps >= hand_after > 0 and other.keeps < hand_after:
        reasons["domino"] = (
            f"after it, every one of your {hand_after} bones still fits the board; after "
            f"{rival.bone}, not all do"
        )
    if answer.threat is None and other.threat is not None:
        reasons["blocking"] = (
            f"after it, the next player can score nothing at once; after {rival.bone} it could "
            f"score {other.threat.points}"
        )
    spinner_before = board.spinner
    on_spinner = _end_of(play) in (UP, DOWN) or (
        spinner_before is None and after.spinner is play.bone
    )
    if on_spinner and (answer.points or after.opened):
        reasons["spinner"] = f"{play.bone} goes on the spinner's line" + (
            f" and scores {answer.points}" if answer.points else ""
        )
    if play.bone.is_double != rival.bone.is_double:
        reasons["double"] = (
            f"it plays the double {play.bone} now"
            if play.bone.is_double
            else f"it keeps the double {rival.bone} for later"
        )
    if answer.dead and set(answer.dead) - set(other.dead):
        numbers = ", ".join(str(n) for n in sorted(set(answer.dead) - set(other.dead)))
        reasons["counting"] = f"it leaves {numbers} open, and every bone with it is accounted for"
    void = _void_mask(seen, next_seat)
    if void:
        open_after = [v for v in after.ends if v >= 0]
        if open_after and all(void >> v & 1 for v in open_after):
            reasons["denying"] = "the next player passed or drew on every number it leaves open"
    if seen.settings.partners:
        reasons["partners"] = "Partners: your partner's bones and scores count as yours"
    if answer.points < max(o.points for o in options):
        reasons["patience"] = (
            f"it scores {answer.points} now where {max(o.points for o in options)} was there, "
            "for more by the end of the hand"
        )
    themes: list[str] = [t for t in THEMES if t in reasons]
    return themes, reasons
