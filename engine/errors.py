"""The engine's errors: what kind of wrong, a stable code, and words a player understands.

A refused action is one of three kinds of wrong, as python-chess does it for moves:

* :class:`InvalidActionError`: unreadable (not an action, a missing field, no such bone);
* :class:`IllegalActionError`: readable, but against the rules (not your turn, not held);
* :class:`AmbiguousActionError`: readable and allowed, but it needs more detail (which end?).

All are :class:`ActionError`, itself a :class:`ValueError`. Each carries ``.code``, a short stable
snake_case string that clients can switch on, and a message for the player.

>>> err = IllegalActionError("not_your_turn", "it is seat 1's turn, not seat 0's")
>>> isinstance(err, ValueError), err.code, err.kind, str(err)
(True, 'not_your_turn', 'illegal', "it is seat 1's turn, not seat 0's")
"""

from __future__ import annotations

__all__ = [
    "ActionError",
    "AmbiguousActionError",
    "DealError",
    "IllegalActionError",
    "InvalidActionError",
    "SettingsError",
    "StateFormatError",
    "shorten",
]


def shorten(value: object, limit: int = 24) -> str:
    """``repr`` of a value a client sent, cut short so a huge string never fills a message.

    >>> shorten("6-4")
    "'6-4'"
    >>> shorten("x" * 1000)
    "'xxxxxxxxxxxxxxxxxxxxx…"
    """
    text = repr(value)
    if len(text) > limit:
        return text[: limit - 2] + "…"
    return text


class ActionError(ValueError):
    """An action the engine refused. The state is exactly as it was before."""

    kind = "action"

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_dict(self) -> dict[str, str]:
        """The error as JSON: ``{"kind", "code", "error"}``."""
        return {"kind": self.kind, "code": self.code, "error": self.message}


class InvalidActionError(ActionError):
    """The action cannot be read: wrong shape, wrong types, a bone or seat that does not exist."""

    kind = "invalid"


class IllegalActionError(ActionError):
    """The action is readable but against the rules in this position."""

    kind = "illegal"


class AmbiguousActionError(ActionError):
    """The action is legal in more than one way: it must say which (e.g. which end)."""

    kind = "ambiguous"


class DealError(ValueError):
    """A deal the engine cannot use: not the whole set exactly once, wrong hand sizes, wrong phase.

    ``.field`` names the part at fault (``"hands[1][3]"``, ``"yard"``, ``"order"``).
    """

    def __init__(self, code: str, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.code = code
        self.field = field
        self.message = message


class SettingsError(ValueError):
    """Table settings the mode does not allow. ``.field`` names the setting.

    >>> e = SettingsError("clock", "the clock runs 3 to 60 seconds, not 61")
    >>> e.field, str(e)
    ('clock', 'clock: the clock runs 3 to 60 seconds, not 61')
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class StateFormatError(ValueError):
    """A serialised game state that cannot be read back (wrong version, broken structure)."""
