"""The coach's writes and the work behind them: asking for a review, working it out, hints.

A review is of one player's own decisions in one finished game. The game is rebuilt from its
log (`seat_decisions`), and at each decision the analysis is handed that seat's view and nothing
else (`engine.seat_view`, cut down to what a house player reads): so a review never uses a bone
the seat could not see. Each decision's analysis is seeded by the game and the decision, so a
review is the same wherever and however often it is worked out.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.conf import settings as django_settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from coach.models import Hint, Review
from engine import Action, DoublesChoice, GameState, Phase, Play, TableSettings, parse_action
from engine import seat_view as engine_seat_view
from engine.bots import VIEW_KEYS
from engine.coach import WORLDS, Analysis, analyse, board_view_after
from history import selectors as history
from tables.fairdeal import shuffled_set
from tables.models import Game, Table

log = logging.getLogger(__name__)

#: The analysis's version. A stored review made by an older one is worked out again when asked.
#: 2: costs at the calibrated scale (COST_SCALE), with the gap itself stored beside them.
METHOD = 2

#: A move's cost is the gap between the Shark's estimate of its choice and of the move played,
#: times this: played out, the better move gains less than the gap says (the best of several
#: noisy estimates runs high, and the estimate's playouts are greedier than real play). Fitted
#: by bench/review.py --check all --fit on seeds the bench then does not report on
#: (bench/README.md, "The coach's review").
COST_SCALE = 0.68

#: Marks by cost (in points for the player's side minus against): at most this much is that
#: mark. See docs/review.md.
MARKS: tuple[tuple[str, float], ...] = (
    ("best", 1.0),
    ("good", 3.0),
    ("inaccuracy", 7.0),
    ("mistake", 15.0),
)
BLUNDER = "blunder"
MARK_ORDER = ("best", "good", "inaccuracy", "mistake", "blunder")

#: A review queued this long ago and never started (its task lost) is queued again when asked.
REQUEUE_AFTER_SECONDS = 120
#: A review running this long (its worker died) is started again when asked.
RESTART_AFTER_SECONDS = 600


class CoachRefused(Exception):
    """The coach will not do that: `code` for programs, `message` for the player."""

    def __init__(self, code: str, message: str, status: int = 403) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def mark_for(cost: float) -> str:
    for mark, most in MARKS:
        if cost <= most:
            return mark
    return BLUNDER


def decision_seed(game_id: int, version: int) -> int:
    """The analysis's seed for one decision: the same on every run."""
    digest = hashlib.sha256(f"coach:{METHOD}:{game_id}:{version}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


# --- the decisions of a seat ----------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """One move the seat chose: where it was, what the seat saw, what it did."""

    version: int
    """The game version the move produced (the seat decided at ``version - 1``)."""
    hand: int
    step: int
    """The move's place in its hand (1 first), as the replay numbers its frames."""
    view: dict[str, Any]
    played: Action


def seat_view_of(state: GameState, seat: int) -> dict[str, Any]:
    """What the seat saw when it was to act: its view, cut down to what a house player reads
    (its own hand, the board, the counts and the public history; never another hand)."""
    view = engine_seat_view(state, seat)
    return {key: value for key, value in view.items() if key in VIEW_KEYS}


def is_choice(state: GameState) -> bool:
    """Whether the seat to act has a real choice: two plays or more, or the five-doubles
    choice. Draws (face down, all alike) and passes are forced."""
    if state.phase is Phase.CHOOSING_DOUBLES:
        return True
    if state.phase is not Phase.PLAYING:
        return False
    legal = state.legal_actions()
    return len(legal) >= 2 and all(isinstance(a, Play) for a in legal)


def seat_decisions(game: Game, seat: int) -> Iterator[Decision]:
    """The seat's decisions through the game's hands that are over, from its log: each hand
    dealt from its seed and washes (as `history.replay` does), every action applied."""
    settings = TableSettings.from_dict(game.state["settings"])
    deals = history.game_deals(game)
    state = GameState.new(settings)
    step = 0
    rows = game.actions.order_by("version").values_list("version", "kind", "action").iterator()
    for version, kind, data in rows:
        if kind == "deal":
            deal = deals.get(state.deal_number + 1)
            if deal is None:
                return  # a hand not over: it never enters a review
            contributions = {int(k): v for k, v in deal.contributions.items()}
            state.deal([str(b) for b in shuffled_set(deal.seed, contributions, settings.max_pip)])
            step = 0
            continue
        step += 1
        if kind == "abandon":
            state.abandon(int(data["seat"]))
            continue
        action = parse_action(dict(data))
        if (
            action.seat == seat
            and state.to_act == seat
            and isinstance(action, Play | DoublesChoice)
            and is_choice(state)
        ):
            yield Decision(
                version=version,
                hand=state.deal_number,
                step=step,
                view=seat_view_of(state, seat),
                played=action,
            )
        state.apply(action)


# --- one decision, judged ---------------------------------------------------------------------


def _option_json(analysis: Analysis, i: int) -> dict[str, Any]:
    o = analysis.options[i]
    threat = o.threat
    return {
        "action": o.action.to_dict(),
        "points": o.points,
        "estimate": round(o.estimate, 2),
        "gained": round(o.gained, 2),
        "conceded": round(o.conceded, 2),
        "won": round(o.won, 3),
        "lost": round(o.lost, 3),
        "count": o.count,
        "wins": o.wins,
        "dead": o.dead,
        "keeps": o.keeps,
        "threat": None
        if threat is None
        else {
            "bone": str(threat.bone),
            "end": threat.end.value,
            "total": threat.total,
            "points": threat.points,
        },
    }


def played_board(view: dict[str, Any], played: Action) -> dict[str, Any] | None:
    """The board drawing once the seat's move is made (None for the five-doubles choice): the
    review draws it beside the board after the Shark's move (`board`)."""
    return board_view_after(view, played) if isinstance(played, Play) else None


def judge(view: dict[str, Any], played: Action, analysis: Analysis) -> dict[str, Any]:
    """One decision as the review stores it: every choice, the Shark's, the move played, its
    cost and mark, the points it left on the board at once (exact), and the board after each
    move: the Shark's (`board`) and the seat's own (`played_board`)."""
    best = analysis.best
    mine = analysis.index_of(played)
    options = analysis.options
    if options[mine].estimate >= options[best].estimate:
        best = mine  # a tie (a mirror image of the Shark's move, say): the move played is best
    gap = max(0.0, options[best].estimate - options[mine].estimate)
    cost = COST_SCALE * gap
    best_now = max(o.points for o in options)
    worst = min(o.estimate for o in options)
    best_action = options[best].action
    board = None
    if isinstance(best_action, Play):
        board = board_view_after(view, best_action)
    return {
        "kind": analysis.kind,
        "seat": analysis.seat,
        "next_seat": analysis.next_seat,
        "worlds": analysis.worlds,
        "options": [_option_json(analysis, i) for i in range(len(options))],
        "played": mine,
        "best": best,
        "gap": round(gap, 2),
        "cost": round(cost, 2),
        "mark": "best" if mine == best else mark_for(cost),
        "points_now": options[mine].points,
        "best_now": best_now,
        "missed_now": best_now - options[mine].points,
        "swing": round(options[best].estimate - worst, 2),
        "kept": round(options[mine].estimate - worst, 2),
        "board": board,
        "played_board": played_board(view, played),
        "scores": list(view["scores"]),
        "target": view["settings"]["target"],
    }


def summarize(decisions: list[dict[str, Any]]) -> dict[str, Any]:
    """The game summed up: marks counted, points left on the board at once (exact), the cost in
    all (estimated), and the accuracy: the share of what the choices could swing that the moves
    played kept (100 when every move was the Shark's; None when no choice could swing)."""
    marks = {mark: 0 for mark in MARK_ORDER}
    for d in decisions:
        marks[d["mark"]] += 1
    swing = sum(d["swing"] for d in decisions)
    kept = sum(d["kept"] for d in decisions)
    accuracy = None if swing <= 0 else round(100 * kept / swing, 1)
    return {
        "decisions": len(decisions),
        "marks": marks,
        "points_left": sum(d["missed_now"] for d in decisions),
        "cost": round(sum(d["cost"] for d in decisions), 1),
        "accuracy": accuracy,
        "hinted": sum(1 for d in decisions if d.get("hinted")),
    }


# --- asking for a review, and working it out -----------------------------------------------------


def seat_of(game: Game, user: Any) -> int | None:
    players = list(game.players or [])
    if user is None or not getattr(user, "pk", None) or user.pk not in players:
        return None
    return players.index(user.pk)


def review_request(*, game_id: int, user: Any) -> Review:
    """A player asks for the review of their own play in a finished game. Idempotent: a review
    already asked for is returned as it is (and queued again only if its task was lost, it
    failed, or an older analysis made it)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise CoachRefused("no_game", _("There is no such game."), status=404)
    seat = seat_of(game, user)
    if seat is None:
        raise CoachRefused("not_a_player", _("Only a player of this game can ask for its review."))
    if game.status != Game.Status.FINISHED:
        raise CoachRefused(
            "not_finished",
            _("A review is for a finished game: this one is still being played.")
            if game.status == Game.Status.PLAYING
            else _("A review is for a finished game: this one has no result."),
            status=409,
        )
    now = timezone.now()
    with transaction.atomic():
        review, created = Review.objects.select_for_update().get_or_create(
            game=game, user=user, defaults={"seat": seat, "method": METHOD}
        )
        stale = (
            review.status == Review.Status.FAILED
            or (review.status == Review.Status.DONE and review.method < METHOD)
            or (
                review.status == Review.Status.QUEUED
                and (now - review.created_at).total_seconds() > REQUEUE_AFTER_SECONDS
            )
            or (
                review.status == Review.Status.RUNNING
                and review.started_at is not None
                and (now - review.started_at).total_seconds() > RESTART_AFTER_SECONDS
            )
        )
        if stale:
            review.status = Review.Status.QUEUED
            review.method = METHOD
            review.done = review.total = 0
            review.result = None
            review.error = ""
            review.created_at = now
            review.save()
        if created or stale:
            pk = review.pk
            transaction.on_commit(lambda: _queue(pk))
    return review


def _queue(review_id: int) -> None:
    from coach.tasks import review_run

    review_run.delay(review_id)


def worlds_per_decision() -> int:
    """Sampled deals per decision: `COACH_WORLDS` in the settings, else the engine's default."""
    return int(getattr(django_settings, "COACH_WORLDS", WORLDS))


def chunk_seconds() -> float:
    """How long one task works before handing the rest to the next: `COACH_CHUNK_SECONDS`,
    default 1 s, so a review never holds a worker process from a Gym clock's timer for long."""
    return float(getattr(django_settings, "COACH_CHUNK_SECONDS", 1.0))


def review_compute(
    *, review_id: int, done: int | None = None, worlds: int | None = None
) -> int | None:
    """Work on a review (the Celery task), about `chunk_seconds()` at a time. `done` None starts
    a queued review (claimed with a compare-and-set, so two workers never both start it); a
    number continues a running one from that many decisions (a task delivered twice finds the
    count moved on and does nothing). Returns the decisions done when more remain (the caller
    queues the next part), else None."""
    worlds = worlds or worlds_per_decision()
    if done is None:
        claimed = Review.objects.filter(pk=review_id, status=Review.Status.QUEUED).update(
            status=Review.Status.RUNNING, started_at=timezone.now(), done=0, total=0, result=None
        )
        if not claimed:
            return None
        done = 0
    review = Review.objects.select_related("game").filter(pk=review_id).first()
    if review is None or review.status != Review.Status.RUNNING or review.done != done:
        return None
    try:
        return _work_on(review, done, worlds)
    except Exception as exc:
        log.exception("review %s of game %s failed", review.pk, review.game_id)
        Review.objects.filter(pk=review.pk, status=Review.Status.RUNNING).update(
            status=Review.Status.FAILED, error=str(exc)[:200], finished_at=timezone.now()
        )
        return None


def _work_on(review: Review, done: int, worlds: int) -> int | None:
    game = review.game
    if game.status != Game.Status.FINISHED:
        raise ValueError("the game is not finished")
    decisions = list(seat_decisions(game, review.seat))
    judged: list[dict[str, Any]] = list((review.result or {}).get("decisions", []))[:done]
    hinted = set(Hint.objects.filter(game=game, seat=review.seat).values_list("version", flat=True))
    started = time.monotonic()
    budget = chunk_seconds()
    for decision in decisions[done:]:
        analysis = analyse(
            decision.view, seed=decision_seed(game.pk, decision.version), worlds=worlds
        )
        assert analysis is not None  # seat_decisions lists choices only
        entry = judge(decision.view, decision.played, analysis)
        entry.update(
            hand=decision.hand,
            step=decision.step,
            version=decision.version,
            hinted=decision.version - 1 in hinted,
        )
        judged.append(entry)
        if time.monotonic() - started >= budget:
            break
    result: dict[str, Any] = {
        "v": METHOD,
        "seat": review.seat,
        "worlds": worlds,
        "decisions": judged,
    }
    more = len(judged) < len(decisions)
    changes: dict[str, Any] = {"done": len(judged), "total": len(decisions), "result": result}
    if not more:
        result["summary"] = summarize(judged)
        changes.update(status=Review.Status.DONE, finished_at=timezone.now())
    moved = Review.objects.filter(pk=review.pk, status=Review.Status.RUNNING, done=done).update(
        **changes
    )
    if not moved:
        return None  # another delivery of this part got there first
    return len(judged) if more else None


# --- hints at practice tables -------------------------------------------------------------------


def practice_refusal(table: Table, game: Game, user: Any) -> str | None:
    """Why `user` may not have hints at this table, in words for them; None at a practice
    table: this person and house players only (no other person), no tournament runs it,
    nothing at stake (no Dollars, no canteen bet: a Gym workout is owed to nobody) and not
    rated (docs/review.md, "Hints")."""
    from accounts.models import User
    from tables import stakes
    from tournaments.models import Match

    others = [p for p in game.players if p is not None and p != user.pk]
    house = User.objects.filter(pk__in=others).exclude(house_level="").count()
    if len(others) != len(game.players) - 1 or house != len(others):
        return _("Hints are for practice tables only: against house players, never people.")
    if Match.objects.filter(table=table).exists():
        return _("Hints are for practice tables only: never at a tournament's table.")
    if stakes.keeper().stake_view(table).kind not in ("none", "workout"):
        return _("Hints are for practice tables only: never at a table played for a stake.")
    if table.rated:
        return _("Hints are for practice tables only: never at a rated table.")
    return None


def is_practice(table: Table, game: Game, user: Any) -> bool:
    """Whether this is a practice table for `user`, where hints are given (`practice_refusal`)."""
    return practice_refusal(table, game, user) is None


def hint_give(*, table_id: int, user: Any) -> dict[str, Any]:
    """The Shark's preferred move for the player to act at a practice table, with what it is
    worth (recorded, so the game's review marks the move as hinted). Refused (CoachRefused)
    anywhere else, and when it is not the player's turn."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise CoachRefused("no_table", _("There is no such table."), status=404)
    game = table.games.filter(status=Game.Status.PLAYING).order_by("-number").first()
    if game is None:
        raise CoachRefused("no_game", _("No game is being played at this table."), status=409)
    seat = seat_of(game, user)
    if seat is None:
        raise CoachRefused("not_seated", _("Only a player at this table can ask for a hint."))
    refusal = practice_refusal(table, game, user)
    if refusal is not None:
        raise CoachRefused("not_practice", refusal)
    state = GameState.from_json(game.state)
    if state.to_act != seat or state.phase not in (Phase.PLAYING, Phase.CHOOSING_DOUBLES):
        raise CoachRefused("not_your_turn", _("A hint is for your turn: wait for it."), status=409)
    version = game.version
    hint = Hint.objects.filter(game=game, version=version).first()
    if hint is None:  # worked out once a turn, however often the button is pressed
        view = seat_view_of(state, seat)
        legal = state.legal_actions()
        seed = decision_seed(game.pk, version + 1)  # the seed the review uses for this decision
        analysis = (
            analyse(view, seed=seed, worlds=worlds_per_decision()) if is_choice(state) else None
        )
        if analysis is None:
            action = legal[0]
            entry: dict[str, Any] = {"kind": "forced", "only": action.to_dict(), "seat": seat}
        else:
            entry = judge(view, analysis.options[analysis.best].action, analysis)
            action = analysis.options[analysis.best].action
        hint, _created = Hint.objects.get_or_create(
            game=game,
            version=version,
            defaults={"user": user, "seat": seat, "action": action.to_dict(), "facts": entry},
        )
    return {
        "game_id": game.pk,
        "version": version,
        "seat": seat,
        "action": hint.action,
        "facts": hint.facts,
    }
