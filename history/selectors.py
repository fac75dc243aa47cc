"""Reads for game history: who may see a game, its replay, its page, its export, a profile's games.

Hidden information: a hand's seed, its bones and its plays are read only once the hand is over
(`hands_over_through`). A game in progress shows the hands already over and, for the hand in
play, its commitment alone; the replay is built from the over hands' seeds only, so the hand in
play never enters it.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.db.models import Count, Exists, OuterRef, Q, Sum
from django.utils.translation import gettext, ngettext

from accounts.services import user_may_play
from engine import TableSettings
from gym.words import workout_words
from history.models import PlayerGame
from history.replay import ActionRecord, DealRecord, HandReplay, Replay, replay_game
from history.words import (
    Names,
    events_words,
    hand_over_words,
    page_strings,
    result_words,
    wash_reason_words,
)
from tables.models import Game, GameAction, Hand, TableEvent

#: Games a profile lists per page.
GAMES_PER_PAGE = 10

OVER = (Game.Status.FINISHED, Game.Status.ABORTED)

#: The replay's frames carry these only when they changed since the frame before.
CARRIED = ("board", "hands", "scores", "on_board", "dumbbells")


# --- who may see what -----------------------------------------------------------------------


def may_view_game(user: Any, game: Game) -> bool:
    """Players of the game and staff always; other logged-in adults unless the table is private.

    A game that has not started shows nothing to anyone."""
    if game.status == Game.Status.WAITING:
        return False
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    if user.is_staff or user.pk in (game.players or []):
        return True
    if game.table.private:
        return False
    return user_may_play(user)


def hands_over_through(game: Game) -> int | None:
    """The last hand number that is over (None: every dealt hand, the game being over)."""
    if game.status in OVER:
        return None
    if game.status == Game.Status.WAITING:
        return 0
    deal = int(game.state.get("deal", 0))
    if game.state.get("phase") == "awaiting_deal":
        return deal  # the hand just ended; the next is not dealt yet
    return deal - 1


def _over_hands(game: Game) -> Any:
    hands = Hand.objects.filter(game=game, dealt_at__isnull=False)
    through = hands_over_through(game)
    if through is not None:
        hands = hands.filter(number__lte=through)
    return hands.order_by("number")


def game_deals(game: Game) -> dict[int, DealRecord]:
    """The published values of every hand that is over (its seed included), by hand number."""
    return {
        h.number: DealRecord(
            number=h.number,
            seed=h.server_seed,
            commitment=h.commitment,
            contributions=dict(h.contributions),
            washers=None if h.washers is None else list(h.washers),
        )
        for h in _over_hands(game)
    }


def game_replay(game: Game) -> Replay:
    """The game rebuilt by the engine from its log, through the last hand that is over."""
    actions = [
        ActionRecord(version=v, seat=s, kind=k, action=a)
        for v, s, k, a in GameAction.objects.filter(game=game)
        .order_by("version")
        .values_list("version", "seat", "kind", "action")
    ]
    return replay_game(game.state["settings"], game_deals(game), actions)


def current_commitment(game: Game) -> dict[str, Any] | None:
    """The hand in play of a game in progress: its number and commitment, nothing else."""
    if game.status != Game.Status.PLAYING:
        return None
    through = hands_over_through(game) or 0
    row = (
        Hand.objects.filter(game=game, number__gt=through, dealt_at__isnull=False)
        .order_by("number")
        .values("number", "commitment")
        .first()
    )
    return row


def dealt_as_sent(game: Game, through: int | None) -> dict[int, dict[int, list[str]]]:
    """Per hand (over only) and seat, the bones the table sent that seat's browser at the deal.

    Read from the table's event log: the events after the game was created, up to its end.
    """
    sent: dict[int, dict[int, list[str]]] = {}
    rows = (
        TableEvent.objects.filter(table_id=game.table_id, created_at__gte=game.started_at)
        .order_by("seq")
        .values_list("public", "private")
    )
    for public, private in rows.iterator():
        for seat_text, events in (private or {}).items():
            for event in events:
                if event.get("type") == "dealt" and "hand" in event:
                    deal = int(event["deal"])
                    if through is None or deal <= through:
                        sent.setdefault(deal, {})[int(seat_text)] = list(event["hand"])
        if any(e.get("type") == "game_over" for e in public or []):
            break
    return sent


# --- the game page ----------------------------------------------------------------------------


def _names(game: Game) -> list[str]:
    users = get_user_model().objects.in_bulk([p for p in game.players if p is not None])
    return [
        users[p].shown_name if p in users else gettext("Seat {n}").format(n=i)
        for i, p in enumerate(game.players)
    ]


def _pips(bones: Sequence[str]) -> int:
    return sum(int(h) + int(lo) for h, lo in (b.split("-") for b in bones))


def _hand_context(
    hand: HandReplay, names: Names, sent: dict[int, list[str]] | None, first_frame: int
) -> dict[str, Any]:
    settings = names.settings
    sides = settings.sides
    over = hand.over
    gained = [hand.scores_after[s] - hand.scores_before[s] for s in range(sides)]
    left = over["hands"] if over is not None else (hand.game_over or {}).get("hands")
    plays = []
    for i, step in enumerate(hand.steps, start=1):
        plays.append(
            {
                "n": i,
                "frame": first_frame + i,
                "seat": step.seat,
                "name": names.seat(step.seat),
                # The count has its own line (the headline): the play's own words here.
                "text": events_words(step.events, names, skip=("hand_over", "game_over")),
                "version": step.version,
            }
        )
    headline: list[str]
    if over is not None:
        headline = hand_over_words(over, names)
    elif hand.game_over is not None:
        headline = [gettext("The game was won during this hand: no count.")]
    else:
        headline = [gettext("The hand is over.")]
    return {
        "number": hand.number,
        "result": hand.result,
        "headline": headline,
        "pips": None if over is None else over["pips"],
        "rounded": None if over is None else over["rounded"],
        "points": None if over is None else over["points"],
        "winner": None if over is None or over["seat"] is None else names.seat(over["seat"]),
        "counted": over is not None and over["result"] in ("domino", "blocked"),
        "per_side": [
            {"side": names.side(s), "gained": gained[s], "score": hand.scores_after[s]}
            for s in range(sides)
        ],
        "ends_by_side": hand.ends_by_side,
        "deal_text": events_words(hand.deal_events, names, skip=("hand_over", "game_over")),
        "plays": plays,
        "first_frame": first_frame,
        "dealt": [
            {
                "seat": seat,
                "name": names.seat(seat),
                # What that player's browser was sent, where the table's log kept it.
                "bones": (sent or {}).get(seat, bones),
            }
            for seat, bones in enumerate(hand.dealt)
        ],
        "yard": hand.yard,
        "left": None
        if left is None
        else [
            {"seat": seat, "name": names.seat(seat), "bones": bones, "pips": _pips(bones)}
            for seat, bones in enumerate(left)
        ],
        "fair": {
            "seed": hand.deal.seed,
            "commitment": hand.deal.commitment,
            "washes": [
                {"seat": int(s), "name": names.seat(int(s)), "value": v}
                for s, v in sorted(hand.deal.contributions.items(), key=lambda kv: int(kv[0]))
            ],
            "washers": [names.seat(s) for s in hand.washers],
            "wash_reason": wash_reason_words(hand.wash_reason),
            "sent": sent,
        },
    }


def _frames(replay: Replay, names: Names) -> list[dict[str, Any]]:
    """The replay's frames: each deal, then the board after every recorded action. A key of
    `CARRIED` is left out when it is the same as in the frame before."""
    frames: list[dict[str, Any]] = []
    last: dict[str, Any] = {}
    for hand in replay.hands:
        full = [
            {
                **hand.start,
                "hand": hand.number,
                "step": 0,
                "text": events_words(hand.deal_events, names),
            },
        ]
        for i, step in enumerate(hand.steps, start=1):
            full.append(
                {
                    **step.after,
                    "hand": hand.number,
                    "step": i,
                    "seat": step.seat,
                    "text": events_words(step.events, names),
                }
            )
        for frame in full:
            for key in CARRIED:
                if key in last and frame[key] == last[key]:
                    del frame[key]
                else:
                    last[key] = frame[key]
            frames.append(frame)
    return frames


def _chart(hands: list[HandReplay], names: Names, settings: TableSettings) -> dict[str, Any]:
    """The score of each side after each hand, as SVG coordinates (viewBox 0 0 640 240)."""
    width, height = 640, 240
    left, right, top, bottom = 44, 16, 14, 34
    sides = settings.sides
    series = [[0] * sides] + [h.scores_after for h in hands]
    top_value = max([settings.target] + [max(s) for s in series])
    steps = max(1, len(series) - 1)

    # Coordinates as text with a decimal point: the template must not localize them ("12,5").
    def x(i: int) -> str:
        return f"{left + (width - left - right) * i / steps:.1f}"

    def y(v: int) -> str:
        return f"{top + (height - top - bottom) * (1 - v / top_value):.1f}"

    colours = ["#14532d", "#a4161a", "#1d4ed8", "#8a6420"]
    lines = []
    for side in range(sides):
        points = [
            {
                "x": x(i),
                "y": y(scores[side]),
                "hand": i,
                "score": scores[side],
            }
            for i, scores in enumerate(series)
        ]
        lines.append(
            {
                "side": names.side(side),
                "colour": colours[side % len(colours)],
                "points": points,
                "path": " ".join(f"{p['x']},{p['y']}" for p in points),
                "final": series[-1][side],
            }
        )
    every = max(1, (len(series) - 1) // 10 + 1)
    ticks = [{"x": x(i), "label": i} for i in range(0, len(series), every)]
    grid = []
    for value in range(0, top_value + 1, 50 if top_value <= 300 else 100):
        grid.append({"y": y(value), "label": value})
    skunk = settings.skunk_line
    return {
        "width": width,
        "height": height,
        "left": left,
        "right": width - right,
        "bottom": height - bottom,
        "lines": lines,
        "ticks": ticks,
        "grid": grid,
        "target": {"y": y(settings.target), "value": settings.target},
        "skunk": None if skunk is None else {"y": y(skunk), "value": skunk},
        "label_y": height - 4,
    }


def _workouts(game: Game, names: Names) -> list[dict[str, Any]]:
    result = game.result or {}
    owed = result.get("workouts")
    if not owed:
        return []
    dumbbells = game.state.get("dumbbells") or [0] * len(owed)
    skunked = set(result.get("skunked") or [])
    return [
        {
            "name": names.seat(seat),
            "words": workout_words(w["kind"], w["amount"]),
            "dumbbells": dumbbells[seat],
            "skunked": names.settings.side_of(seat) in skunked,
        }
        for seat, w in enumerate(owed)
        if w is not None
    ]


def sides_scored(game: Game, settings: TableSettings, replay: Any) -> list[dict[str, Any]]:
    """Each side's seats, score (the final scores once the game is over, else the replay's),
    whether it won and whether it was skunked: the game page's and the API export's."""
    result = game.result if game.status == Game.Status.FINISHED else None
    final = game.state.get("scores") if game.status in OVER else None
    scores = final if final is not None else replay.state.scores[:]
    skunked = set((result or {}).get("skunked") or [])
    return [
        {
            "side": s,
            "seats": list(settings.seats_of(s)),
            "score": scores[s],
            "won": result is not None and result["winner"] == s,
            "skunked": s in skunked,
        }
        for s in range(settings.sides)
    ]


def game_page(game: Game) -> dict[str, Any]:
    """Everything the game page shows (over hands only) and the replay's and checker's data."""
    table = game.table
    settings = TableSettings.from_dict(game.state["settings"])
    names = Names(_names(game), settings)
    replay = game_replay(game)
    through = hands_over_through(game)
    sent = dealt_as_sent(game, through)
    hands = []
    frame = 0
    for hand in replay.hands:
        hands.append(_hand_context(hand, names, sent.get(hand.number), frame))
        frame += 1 + len(hand.steps)
    finished = game.status == Game.Status.FINISHED
    result = game.result if finished else None
    sides = [
        {
            **side,
            "name": names.side(side["side"]),
            "seats": [names.seat(seat) for seat in side["seats"]],
        }
        for side in sides_scored(game, settings, replay)
    ]
    verify = [
        {
            "hand": h.number,
            "seed": h.deal.seed,
            "commitment": h.deal.commitment,
            "contributions": dict(h.deal.contributions),
            "max_pip": settings.max_pip,
            "players": settings.players,
            "deal": settings.deal,
            "sent": {str(k): v for k, v in (sent.get(h.number) or {}).items()},
            "replayed": h.dealt,
        }
        for h in replay.hands
    ]
    return {
        "game": game,
        "table": table,
        "settings": settings,
        "mode": table.get_mode_display(),
        "seats": [
            {"seat": i, "name": n, "side": names.side(settings.side_of(i))}
            for i, n in enumerate(names.seats)
        ],
        "sides": sides,
        "finished": finished,
        "aborted": game.status == Game.Status.ABORTED,
        "in_progress": game.status == Game.Status.PLAYING,
        "hands": hands,
        "current": current_commitment(game),
        "result_lines": result_words(result, names),
        "workouts": _workouts(game, names) if finished else [],
        "chart": _chart(replay.hands, names, settings) if replay.hands else None,
        "replay": {
            "frames": _frames(replay, names),
            "names": names.seats,
            "sides": [names.side(s) for s in range(settings.sides)],
            "partners": settings.partners,
            "unit": settings.unit,
            "target": settings.target,
        },
        "verify": verify,
        "strings": page_strings(),
        # A finished game's replay must reach its recorded result; anything else is a bug.
        "replay_matches": not finished or replay.matches(game.result),
        "replay_error": replay.error,
    }


# --- the plain-text export --------------------------------------------------------------------


def game_export(game: Game, url: str) -> str:
    """The game as plain text: seats, result, and every over hand with its published values,
    its deal, its plays and its count."""
    page = game_page(game)
    settings: TableSettings = page["settings"]
    out: list[str] = []
    add = out.append
    add(
        gettext("Dominologist: game {game} at table {table} ({mode})").format(
            game=game.pk, table=game.table_id, mode=page["mode"]
        )
    )
    add(url)
    add(
        gettext("{players} players, game to {target}.").format(
            players=settings.players, target=settings.target
        )
        + (" " + gettext("Partners") if settings.partners else "")
    )
    add(gettext("Started: {when}").format(when=game.started_at.strftime("%Y-%m-%d %H:%M UTC")))
    if game.finished_at:
        add(
            gettext("Finished: {when}").format(when=game.finished_at.strftime("%Y-%m-%d %H:%M UTC"))
        )
    add("")
    add(gettext("Seats"))
    for seat in page["seats"]:
        add("  " + gettext("Seat {n}: {name}").format(n=seat["seat"], name=seat["name"]))
    add("")
    if page["in_progress"]:
        add(gettext("In progress: only the hands that are over are shown."))
    elif page["aborted"]:
        add(gettext("Aborted: no result."))
    for line in page["result_lines"]:
        add(line)
    add(
        gettext("Scores: {scores}").format(
            scores=", ".join(f"{s['name']} {s['score']}" for s in page["sides"])
        )
    )
    for w in page["workouts"]:
        dumbbells = ngettext("{n} dumbbell", "{n} dumbbells", w["dumbbells"]).format(
            n=w["dumbbells"]
        )
        add(
            gettext("Workout owed by {name}: {workout} ({dumbbells}).").format(
                name=w["name"], workout=w["words"], dumbbells=dumbbells
            )
            + (" " + gettext("Doubled: skunked.") if w["skunked"] else "")
        )
    for hand in page["hands"]:
        add("")
        add(gettext("Hand {n}").format(n=hand["number"]))
        fair = hand["fair"]
        add(
            "  "
            + gettext("Commitment (SHA-256 of the seed): {value}").format(value=fair["commitment"])
        )
        add("  " + gettext("Seed: {value}").format(value=fair["seed"]))
        add("  " + fair["wash_reason"])
        if fair["washes"]:
            for wash in fair["washes"]:
                add(
                    "  "
                    + gettext("Wash by {name} (seat {seat}): {value}").format(
                        name=wash["name"], seat=wash["seat"], value=wash["value"]
                    )
                )
        else:
            add("  " + gettext("No wash was sent: the seed alone shuffled."))
        for dealt in hand["dealt"]:
            add(
                "  "
                + gettext("{name} was dealt: {bones}").format(
                    name=dealt["name"], bones=" ".join(dealt["bones"])
                )
            )
        if hand["yard"]:
            add("  " + gettext("The yard, in order: {bones}").format(bones=" ".join(hand["yard"])))
        add("  " + hand["deal_text"])
        for play in hand["plays"]:
            add(f"  {play['n']:>3}. {play['text']}")
        add("  " + " ".join(hand["headline"]))
        add(
            "  "
            + gettext("Scores after the hand: {scores}").format(
                scores=", ".join(f"{s['side']} {s['score']}" for s in hand["per_side"])
            )
        )
    if page["current"]:
        add("")
        add(
            gettext("Hand {n} is in play: its seed is revealed when it is over.").format(
                n=page["current"]["number"]
            )
        )
        add(
            "  "
            + gettext("Commitment (SHA-256 of the seed): {value}").format(
                value=page["current"]["commitment"]
            )
        )
    add("")
    return "\n".join(out)


# --- a player's games and statistics ----------------------------------------------------------


def _visible_records(player: Any, viewer: Any) -> Any:
    """The player's finished games this viewer may open."""
    records = PlayerGame.objects.filter(user=player)
    if viewer is None or not viewer.is_authenticated:
        return records.none()
    if viewer.is_staff or viewer.pk == player.pk:
        return records
    both_played = PlayerGame.objects.filter(game=OuterRef("game"), user=viewer)
    if not user_may_play(viewer):
        return records.filter(Exists(both_played))
    return records.filter(Q(private=False) | Exists(both_played))


def player_stats(player: Any) -> dict[str, Any]:
    """Games, wins and rates per mode and in all, points per hand, dominoes, skunks, dumbbells."""
    from tables.models import MODE_CHOICES

    totals = PlayerGame.objects.filter(user=player).aggregate(
        games=Count("pk"),
        wins=Count("pk", filter=Q(won=True)),
        hands=Sum("hands", default=0),
        points=Sum("points", default=0),
        dominoes=Sum("dominoes", default=0),
        skunks_given=Sum("skunks_given", default=0),
        skunks_taken=Count("pk", filter=Q(skunked=True)),
        dumbbells=Sum("dumbbells", default=0),
    )
    by_mode = {
        row["mode"]: row
        for row in PlayerGame.objects.filter(user=player)
        .values("mode")
        .annotate(games=Count("pk"), wins=Count("pk", filter=Q(won=True)))
    }
    modes = []
    for code, label in MODE_CHOICES:
        row = by_mode.get(code)
        if row is None:
            continue
        modes.append(
            {
                "mode": code,
                "label": label,
                "games": row["games"],
                "wins": row["wins"],
                "rate": _percent(row["wins"], row["games"]),
            }
        )
    return {
        **totals,
        "rate": _percent(totals["wins"], totals["games"]),
        "points_per_hand": _ratio(totals["points"], totals["hands"]),
        "modes": modes,
    }


def _percent(part: int, whole: int) -> int | None:
    """A whole percentage, halves up (None when there is nothing to divide by)."""
    if not whole:
        return None
    return (200 * part + whole) // (2 * whole)


def _ratio(part: int, whole: int) -> Decimal | None:
    """part / whole to one decimal place, halves up, computed with integers only."""
    if not whole:
        return None
    tenths = (20 * part + whole) // (2 * whole)
    return Decimal(tenths) / 10


def player_history(player: Any, viewer: Any, page: str | int | None = None) -> dict[str, Any]:
    """What a profile shows of a player's games: statistics and the games the viewer may open,
    newest first, a page at a time."""
    records = _visible_records(player, viewer)
    paginator = Paginator(records, GAMES_PER_PAGE)
    page_obj = paginator.get_page(page)
    rows = list(page_obj.object_list)
    others: dict[int, list[PlayerGame]] = {}
    for other in (
        PlayerGame.objects.filter(game_id__in=[r.game_id for r in rows])
        .select_related("user")
        .order_by("game_id", "seat")
    ):
        others.setdefault(other.game_id, []).append(other)
    games = []
    for record in rows:
        table_mates = others.get(record.game_id, [])
        games.append(
            {
                "record": record,
                "game_id": record.game_id,
                # the players themselves: the page links each name to its profile
                "partners": [
                    o.user for o in table_mates if o.side == record.side and o.user_id != player.pk
                ],
                "opponents": [o.user for o in table_mates if o.side != record.side],
                "best_other": max(
                    (o.score for o in table_mates if o.side != record.side), default=0
                ),
            }
        )
    return {
        "stats": player_stats(player),
        "games": games,
        "page": page_obj,
        "total_games": PlayerGame.objects.filter(user=player).count(),
        "hidden": PlayerGame.objects.filter(user=player).count() - paginator.count,
        "viewer_logged_in": bool(viewer is not None and viewer.is_authenticated),
    }
