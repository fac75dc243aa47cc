"""Scoring rules as small pure functions: end scores, the count, blocked hands, skunks, forfeits.

>>> end_score(15, unit=5, smallest=5, on_board=False, get_on=10)
15
>>> end_score(5, unit=5, smallest=5, on_board=False, get_on=10)  # not on, below the get-on
0
>>> end_score(5, unit=5, smallest=10, on_board=True, get_on=10)  # Inmate: 5 never scores
0
>>> end_score(12, unit=3, smallest=3, on_board=True, get_on=0)  # Threes: face value
12
>>> count_score(14, count_by=10, on_board=False, get_on=10)  # 14 -> 10, reaches the get-on
(10, 10)
>>> count_score(14, count_by=10, on_board=False, get_on=15)  # 10 is short of 15: nothing
(10, 0)
"""

from __future__ import annotations

from collections.abc import Sequence

from .rules import round_half_up

__all__ = ["blocked_result", "count_score", "end_score", "forfeit_winner", "skunked_sides"]


def end_score(total: int, *, unit: int, smallest: int, on_board: bool, get_on: int) -> int:
    """What an ends total scores for the side that made it (0: nothing).

    It scores its face value when it is a positive multiple of ``unit``, at least the mode's
    smallest end score, and, for a side not yet on the board, at least the get-on number.
    """
    if total <= 0 or total % unit or total < smallest:
        return 0
    if not on_board and total < get_on:
        return 0
    return total


def count_score(pips: int, *, count_by: int, on_board: bool, get_on: int) -> tuple[int, int]:
    """The count after a domino: ``(rounded, points)``. ``pips`` are rounded once, halves up; a
    side not on the board scores it only if the rounded count reaches the get-on number."""
    rounded = round_half_up(pips, count_by)
    if rounded <= 0 or (not on_board and rounded < get_on):
        return rounded, 0
    return rounded, rounded


def blocked_result(pips: Sequence[int], unit: int) -> tuple[int | None, int, int]:
    """Head-to-head blocked hand: ``(winner seat or None, loser's pips, points)``.

    Fewest pips wins and scores the opponent's pips rounded to the nearest multiple of the unit;
    equal pips score nothing (decided).

    >>> blocked_result([12, 7], unit=5)
    (1, 12, 10)
    >>> blocked_result([9, 9], unit=3)
    (None, 9, 0)
    """
    a, b = pips
    if a == b:
        return None, a, 0
    winner = 0 if a < b else 1
    loser_pips = pips[1 - winner]
    return winner, loser_pips, round_half_up(loser_pips, unit)


def skunked_sides(
    scores: Sequence[int], winner: int, skunk_line: int | None
) -> list[int]:  # fmt: skip
    """Losing sides under the skunk line (each judged on its own score).

    >>> skunked_sides([150, 79, 80], winner=0, skunk_line=80)
    [1]
    """
    if skunk_line is None:
        return []
    return [side for side, score in enumerate(scores) if side != winner and score < skunk_line]


def forfeit_winner(scores: Sequence[int], forfeiting_side: int, sides: int) -> int:
    """Who wins when ``forfeiting_side`` forfeits. Two sides: the other one. Cut Throat: the
    highest score among the others; a tie goes to the first of them in turn order after the
    forfeiter (decided).

    >>> forfeit_winner([40, 90, 30, 90], forfeiting_side=2, sides=4)
    3
    >>> forfeit_winner([40, 90], forfeiting_side=1, sides=2)
    0
    """
    if sides == 2:
        return 1 - forfeiting_side
    best = -1
    winner = -1
    for step in range(1, sides):
        side = (forfeiting_side + step) % sides
        if scores[side] > best:
            best = scores[side]
            winner = side
    return winner
