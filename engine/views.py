"""What a seat, or a spectator, may see of a game.

:func:`seat_view` holds that seat's own hand and legal actions; :func:`public_view` holds no hand
at all. Neither ever holds another seat's bones, nor anything of the yard but its size: hands
are shown only in ``hand_over`` and ``game_over`` events, once the hand is over.

>>> from engine.rules import TableSettings
>>> from engine.state import GameState
>>> state = GameState.new(TableSettings.build("citizen", players=2))
>>> _ = state.deal_hands(
...     [["6-6", "6-3", "5-0", "4-1", "2-2", "3-1", "6-0"],
...      ["5-5", "4-4", "6-5", "5-4", "3-0", "2-1", "1-0"]])
>>> view = seat_view(state, 1)
>>> view["hand"], view["hand_sizes"], view["yard"], view["to_act"]
(['5-5', '4-4', '6-5', '5-4', '3-0', '2-1', '1-0'], [7, 7], 14, 0)
>>> "hand" in public_view(state)
False
"""

from __future__ import annotations

from typing import Any

from .state import GameState

__all__ = ["public_view", "seat_view"]


def public_view(state: GameState) -> dict[str, Any]:
    """The table as any spectator sees it: no hand, the yard's size only."""
    settings = state.settings
    last = state.last_play
    result = state.result
    return {
        "v": 1,
        "settings": settings.to_dict(),
        "rules": settings.describe(),
        "phase": state.phase.value,
        "deal": state.deal_number,
        "to_act": state.to_act,
        "forced_pass": state.is_forced_pass(),
        "scores": state.scores[:],
        "on_board": state.on_board[:],
        "dumbbells": state.dumbbells[:],
        "turn_dumbbells": state.turn_dumbbells,
        "hand_sizes": [len(hand) for hand in state.hands],
        "yard": len(state.yard),
        "board": state.board.to_view(),
        "rock": state.rock,
        "wash": {"seats": state.wash_seats[:], "reason": state.wash_reason},
        "last_play": None if last is None else last.to_public(),
        "game": None if result is None else result.to_dict(),
        "history": state.public_history(),
    }


def seat_view(state: GameState, seat: int, public: dict[str, Any] | None = None) -> dict[str, Any]:
    """The table as ``seat`` sees it: the public view plus its own hand and, when it is to act,
    its legal actions (as action JSON). ``public``: this state's :func:`public_view`, when the
    caller has already made it for another audience (it is copied, not changed; the values it
    shares with the result are read-only)."""
    if type(seat) is not int or not 0 <= seat < state.settings.players:
        raise ValueError(f"there is no seat {seat!r}")
    view = public_view(state) if public is None else dict(public)
    view["seat"] = seat
    view["side"] = state.side_of(seat)
    view["hand"] = [str(b) for b in state.hands[seat]]
    view["legal_actions"] = (
        [a.to_dict() for a in state.legal_actions()] if state.to_act == seat else []
    )
    return view
