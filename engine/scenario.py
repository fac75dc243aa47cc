"""Rules scenarios: replay a scenario file and print what happened (see ACCEPTANCE.md).

    python -m engine.scenario PATH.json

Exit 0 when the file was read and replayed, even if one of its actions was rejected (that is a
result, in ``rejected``). Exit 2 with a one-line message naming the field when the file itself is
unusable (not JSON, an unknown mode, settings the mode does not allow, a deal that is not the whole
set exactly once, a dealt bone that does not exist).

>>> result = run_scenario({
...     "table": {"mode": "citizen", "players": 2},
...     "deals": [{"hands": [["6-6", "6-3", "5-0", "4-1", "2-2", "3-1", "6-0"],
...                          ["5-5", "4-4", "6-5", "5-4", "3-0", "2-1", "1-0"]]}],
...     "actions": [{"seat": 0, "play": "6-6"}, {"seat": 1, "play": "6-5", "end": "right"}]})
>>> [(p["bone"], p["end"], p["count"]) for p in result["plays"]], result["to_act"]
([('6-6', None, 12), ('6-5', 'right', 17)], 0)
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from .actions import Action, DoublesChoice, Draw, Pass, Play, Timeout, parse_end, parse_play_bone
from .actions import parse_seat as _parse_seat
from .bones import Bone
from .dealing import check_hands
from .errors import (
    ActionError,
    DealError,
    IllegalActionError,
    InvalidActionError,
    SettingsError,
    shorten,
)
from .events import BonePlayed, Bonus, Event, HandOver
from .rules import TableSettings
from .state import GameState, Phase

__all__ = ["ScenarioFileError", "main", "run_scenario"]

_VERBS = ("play", "draw", "pass", "doubles", "timeout")


class ScenarioFileError(ValueError):
    """The scenario file is unusable. ``.field`` names the part at fault (``table.get_on``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def _table(data: dict[str, Any]) -> TableSettings:
    table = data.get("table")
    if not isinstance(table, dict):
        raise ScenarioFileError("table", "the scenario needs a table object with a mode")
    table = dict(table)
    deals = data.get("deals")
    if "players" not in table and isinstance(deals, list) and deals:
        first = deals[0]
        # the players default: as many as the first deal has hands
        if isinstance(first, dict) and isinstance(first.get("hands"), list) and first["hands"]:
            table["players"] = len(first["hands"])
    try:
        return TableSettings.from_dict(table)
    except SettingsError as exc:
        raise ScenarioFileError(f"table.{exc.field}", exc.message) from None


def _start(data: dict[str, Any], settings: TableSettings) -> GameState:
    start = data.get("start", {})
    if start is None:
        start = {}
    if not isinstance(start, dict):
        raise ScenarioFileError("start", "start is an object with scores, on_board and rock")
    try:
        return GameState.new(
            settings,
            scores=start.get("scores"),
            on_board=start.get("on_board"),
            rock=start.get("rock"),
        )
    except SettingsError as exc:
        raise ScenarioFileError(f"start.{exc.field}", exc.message) from None


def _deals(
    data: dict[str, Any], settings: TableSettings
) -> list[tuple[list[list[Bone]], list[Bone]]]:
    if "deals" not in data:
        raise ScenarioFileError("deals", "the scenario needs a list of deals")
    deals = data["deals"]
    if not isinstance(deals, list):
        raise ScenarioFileError("deals", "deals is a list of deals")
    checked = []
    for k, deal in enumerate(deals):
        where = f"deals[{k}]"
        if not isinstance(deal, dict) or "hands" not in deal:
            raise ScenarioFileError(where, 'a deal is {"hands": [...], "yard": [...]}')
        try:
            checked.append(check_hands(settings, deal["hands"], deal.get("yard")))
        except DealError as exc:
            raise ScenarioFileError(f"{where}.{exc.field}", exc.message) from None
    return checked


def _action(raw: object, state: GameState) -> Action:
    """A scenario action as an engine action. Raises :class:`ActionError` when it is unreadable."""
    if not isinstance(raw, dict):
        raise InvalidActionError("bad_action", f"an action is an object, not {shorten(raw)}")
    if "seat" not in raw:
        raise InvalidActionError("bad_field", "the action names no seat")
    seat = _parse_seat(raw["seat"])
    verbs = [v for v in _VERBS if v in raw]
    extra = [k for k in raw if k not in _VERBS and k not in ("seat", "end")]
    if len(verbs) != 1 or extra:
        raise InvalidActionError(
            "bad_field", "an action has a seat and one of play, draw, pass, doubles or timeout"
        )
    verb = verbs[0]
    value = raw[verb]
    if "end" in raw and verb != "play":
        raise InvalidActionError("bad_field", "only a play names an end")
    if verb == "play":
        bone, first = parse_play_bone(value)
        return Play(seat, bone, parse_end(raw.get("end")), first)
    if verb == "draw":
        bone = Bone.parse(value)
        if bone.high > state.settings.max_pip:
            raise InvalidActionError(
                "unknown_bone", f"there is no {bone} in a {state.settings.set_name} set"
            )
        if bone in state.yard:
            return Draw(seat, state.yard.index(bone))
        # say what is wrong with drawing at all (not your turn, must play...) before saying the
        # bone is not there
        state.validate(Draw(seat, 0))
        raise IllegalActionError("not_in_yard", f"the {bone} is not in the yard")
    if verb in ("pass", "timeout"):
        if value is not True:
            raise InvalidActionError("bad_field", f'write "{verb}": true')
        return Pass(seat) if verb == "pass" else Timeout(seat)
    if value not in ("play", "reshuffle"):
        raise InvalidActionError("bad_field", 'doubles is "play" or "reshuffle"')
    return DoublesChoice(seat, "play" if value == "play" else "reshuffle")


def run_scenario(data: object) -> dict[str, Any]:
    """Replay a scenario (parsed JSON) and return the result object of ACCEPTANCE.md, plus
    ``events`` (every event's full JSON, with the index of the action that caused it) and
    ``phase``. Raises :class:`ScenarioFileError` when the scenario is unusable."""
    if not isinstance(data, dict):
        raise ScenarioFileError("scenario", "a scenario is a JSON object")
    settings = _table(data)
    state = _start(data, settings)
    deals = _deals(data, settings)
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise ScenarioFileError("actions", "the scenario needs a list of actions")

    plays: list[dict[str, Any]] = []
    bonuses: list[dict[str, Any]] = []
    hands: list[dict[str, Any]] = []
    log: list[dict[str, Any]] = []
    next_deal = 0

    def record(events: Sequence[Event], index: int | None) -> None:
        for event in events:
            row = event.to_dict()
            row["action"] = index
            log.append(row)
            if isinstance(event, BonePlayed):
                plays.append(
                    {
                        "action": index,
                        "seat": event.seat,
                        "bone": str(event.bone),
                        "end": None if event.end is None else event.end.value,
                        "count": event.count,
                        "points": event.points,
                    }
                )
            elif isinstance(event, Bonus):
                bonuses.append({"action": index, "seat": event.seat, "points": event.points})
            elif isinstance(event, HandOver):
                hands.append(
                    {
                        "result": event.result,
                        "seat": event.seat,
                        "pips": event.pips,
                        "points": event.points,
                        "rounded": event.rounded,
                        "action": index,
                    }
                )

    def deal_listed() -> None:
        nonlocal next_deal
        while state.phase is Phase.AWAITING_DEAL and next_deal < len(deals):
            dealt_hands, yard = deals[next_deal]
            next_deal += 1
            record(state.deal_hands(dealt_hands, yard), None)

    rejected: dict[str, Any] | None = None
    for index, raw in enumerate(actions):
        deal_listed()
        if state.phase is Phase.AWAITING_DEAL:
            break  # the game needs a deal that is not listed: the replay stops here
        try:
            events = state.apply(_action(raw, state))
        except ActionError as exc:
            rejected = {"action": index, "error": exc.message, "code": exc.code, "kind": exc.kind}
            break
        record(events, index)
    deal_listed()

    result = state.result
    return {
        "rejected": rejected,
        "plays": plays,
        "bonuses": bonuses,
        "hands": hands,
        "scores": state.scores[:],
        "on_board": state.on_board[:],
        "dumbbells": state.dumbbells[:],
        "to_act": state.to_act,
        "game": None
        if result is None
        else {"winner": result.winner, "skunked": list(result.skunked), "forfeit": result.forfeit},
        "phase": state.phase.value,
        "events": log,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """The command: ``python -m engine.scenario FILE``. Returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m engine.scenario FILE.json", file=sys.stderr)
        return 2
    path = args[0]
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        print(f"{path}: file: cannot read it ({reason})", file=sys.stderr)
        return 2
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        print(f"{path}: file: not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})",
              file=sys.stderr)  # fmt: skip
        return 2
    except RecursionError:
        print(f"{path}: file: JSON nested too deeply", file=sys.stderr)
        return 2
    try:
        result = run_scenario(data)
    except ScenarioFileError as exc:
        message = " ".join(str(exc).split())
        print(f"{path}: {message}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
