"""The review's work: every choice of the seat and no forced move, the exact points missed,
marks and the summary, reproducible, and blind to every bone the seat could not see."""

from __future__ import annotations

import random
from typing import Any

import pytest

from coach import selectors, services
from coach.models import Review
from engine import Bone, GameState, Play, seat_view
from engine.errors import ActionError
from engine.events import BonePlayed
from tests.coach.helpers import Orders, patch_deals, real_orders, walk
from tests.history.helpers import play, start_table


def _review(game: Any, user: Any, capture: Any) -> Review:
    with capture(execute=True):
        review = services.review_request(game_id=game.pk, user=user)
    review.refresh_from_db()
    assert review.status == Review.Status.DONE, review.error
    return review


def _engine_points(state: GameState, action: Play) -> int:
    after = state.copy()
    return next(e.points for e in after.apply(action) if isinstance(e, BonePlayed))


GAMES = [
    pytest.param("fives", {"limit": 100}, 2, 11, id="fives-2"),
    pytest.param("citizen", {"target": 150}, 2, 12, id="citizen-2"),
    pytest.param("inmate", {"target": 150}, 3, 13, id="inmate-3"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("mode", "options", "players", "seed"), GAMES)
def test_every_choice_is_reviewed_and_points_missed_are_exact(
    make_user: Any,
    eager: None,
    fixed_seeds: None,
    django_capture_on_commit_callbacks: Any,
    mode: str,
    options: dict[str, Any],
    players: int,
    seed: int,
) -> None:
    people = [make_user(n) for n in ("Alice", "Bob", "Carol")[:players]]
    table = start_table(people, mode, **options)
    game = play(table, people, seed=seed)
    assert game.status == game.Status.FINISHED
    orders = real_orders(game)
    flagged = 0
    for seat, person in enumerate(people):
        review = _review(game, person, django_capture_on_commit_callbacks)
        decisions = {d["version"]: d for d in review.result["decisions"]}
        # Against the engine, from the real game: every choice this seat had, and nothing else.
        choices = {}
        for version, state, action in walk(game, orders):
            if action.seat != seat or state.to_act != seat:
                continue
            legal = state.legal_actions()
            plays = [a for a in legal if isinstance(a, Play)]
            if state.phase.value == "choosing_doubles" or (len(plays) >= 2 and plays == legal):
                choices[version] = (state.copy(), action, plays)
        assert set(decisions) == set(choices)
        assert review.total == review.done == len(choices)
        payload = selectors.review_payload(review)
        shown = {(d["hand"], d["step"]): d for d in payload["decisions"]}
        for version, (state, action, plays) in choices.items():
            d = decisions[version]
            # The estimate is its parts: points for, less against, and a game won or lost.
            for o in d["options"]:
                parts = o["gained"] - o["conceded"] + 200 * (o["won"] - o["lost"])
                assert abs(o["estimate"] - parts) < 0.5, o
            # The gap is the best estimate less the played move's, and the cost the gap at the
            # calibrated scale; a tie is the Shark's move.
            estimates = [o["estimate"] for o in d["options"]]
            assert abs(d["gap"] - (max(estimates) - estimates[d["played"]])) < 0.011
            assert abs(d["cost"] - services.COST_SCALE * d["gap"]) < 0.011
            if estimates[d["played"]] == max(estimates):
                assert d["best"] == d["played"] and d["mark"] == "best"
            assert d["mark"] == (
                "best" if d["best"] == d["played"] else services.mark_for(d["cost"])
            )
            if not plays:
                assert d["kind"] == "doubles"
                continue
            points = {p: _engine_points(state, p) for p in plays}
            assert d["points_now"] == points[action]
            assert d["best_now"] == max(points.values())
            assert d["missed_now"] == max(points.values()) - points[action]
            listed = {Play(seat, Bone.parse(o["action"]["bone"]), None): 0 for o in d["options"]}
            assert len(d["options"]) == len(plays) >= len(listed)
            for o in d["options"]:
                engine_action = next(
                    p
                    for p in plays
                    if str(p.bone) == o["action"]["bone"]
                    and (p.end.value if p.end else None) == o["action"].get("end")
                )
                assert o["points"] == points[engine_action]
            words = " ".join(shown[d["hand"], d["step"]]["reason"])
            if d["missed_now"]:
                flagged += 1
                assert f"{d['missed_now']} left on the board" in words
                assert d["mark"] != "best" or d["cost"] <= 1.0
            else:
                assert "left on the board" not in words
        summary = review.result["summary"]
        assert summary["points_left"] == sum(d["missed_now"] for d in decisions.values())
        assert sum(summary["marks"].values()) == len(decisions)
    assert flagged, "random play always leaves points somewhere: the check must have run"


def test_marks_follow_the_written_thresholds() -> None:
    assert [services.mark_for(c) for c in (0, 1.0, 1.01, 3.0, 3.5, 7.0, 7.5, 15.0, 15.01, 80)] == [
        "best",
        "best",
        "good",
        "good",
        "inaccuracy",
        "inaccuracy",
        "mistake",
        "mistake",
        "blunder",
        "blunder",
    ]


def test_accuracy_is_the_share_of_the_swing_kept() -> None:
    decisions = [
        {"mark": "best", "swing": 10.0, "kept": 10.0, "missed_now": 0, "cost": 0.0},
        {"mark": "mistake", "swing": 30.0, "kept": 20.0, "missed_now": 5, "cost": 10.0},
        {"mark": "best", "swing": 0.0, "kept": 0.0, "missed_now": 0, "cost": 0.0},
    ]
    summary = services.summarize(decisions)
    assert summary["accuracy"] == 75.0
    assert summary["points_left"] == 5
    assert summary["marks"]["best"] == 2 and summary["marks"]["mistake"] == 1
    assert services.summarize([])["accuracy"] is None


@pytest.mark.django_db
def test_a_review_is_the_same_every_time(
    alice: Any, bob: Any, eager: None, fixed_seeds: None, django_capture_on_commit_callbacks: Any
) -> None:
    table = start_table([alice, bob], "fives", limit=50)
    game = play(table, [alice, bob], seed=4)
    first = _review(game, alice, django_capture_on_commit_callbacks).result
    Review.objects.all().delete()
    again = _review(game, alice, django_capture_on_commit_callbacks).result
    assert first == again and first["decisions"]


# --- the tamper test: bones the seat never saw changed, the review the same ----------------------


def _seat_views(game: Any, orders: Orders, seat: int) -> list[dict[str, Any]]:
    """What the seat saw before each of its moves, and the scores after each action."""
    out: list[dict[str, Any]] = []
    for _version, state, action in walk(game, orders):
        if state.to_act == seat:
            view = seat_view(state, seat)
            view.pop("game", None)
            out.append(view)
        out.append({"scores": state.scores[:], "to_act": state.to_act, "action": str(action)})
    return out


def _never_seen(game: Any, orders: Orders, seat: int) -> dict[int, set[Bone]]:
    """Per hand, the bones the seat never saw: never in its hand, never on the board."""
    seen: dict[int, set[Bone]] = {}
    for _version, state, _action in walk(game, orders):
        mine = seen.setdefault(state.deal_number, set())
        mine.update(state.hands[seat])
        mine.update(state.board.bones())
    return {n: set(orders[n]) - seen.get(n, set()) for n in orders}


def tampered_deals(game: Any, seat: int, rng: random.Random) -> Orders:
    """The real deals with bones the seat never saw swapped between the other hands and the
    yard, two at a time, keeping only the swaps after which the whole log is still legal and the
    seat's every view, and the scores after every action, are the same."""
    orders = {n: list(o) for n, o in real_orders(game).items()}
    reference = _seat_views(game, orders, seat)
    hidden = _never_seen(game, orders, seat)
    settings = game.state["settings"]
    deal, players = settings["deal"], settings["players"]

    def holder(i: int) -> int:
        return i // deal if i < deal * players else players

    changed = 0
    for number in sorted(orders):
        order = orders[number]
        spots = [i for i, b in enumerate(order) if b in hidden[number]]
        pairs = [
            (i, j)
            for i in spots
            for j in spots
            if i < j and (holder(i) != holder(j) or holder(i) == players)
        ]
        rng.shuffle(pairs)
        for i, j in pairs:
            trial = dict(orders)
            swapped = order[:]
            swapped[i], swapped[j] = swapped[j], swapped[i]
            trial[number] = swapped
            try:
                if _seat_views(game, trial, seat) != reference:
                    continue
            except ActionError:
                continue  # another seat's draw or pass would not have been legal
            orders, order = trial, swapped
            changed += 1
    assert changed, "no hidden bone could be moved: the test would prove nothing"
    return orders


@pytest.mark.django_db
def test_a_review_never_uses_bones_the_seat_could_not_see(
    alice: Any,
    bob: Any,
    make_user: Any,
    eager: None,
    fixed_seeds: None,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    carol = make_user("Carol")
    people = [alice, bob, carol]
    table = start_table(people, "citizen")
    game = play(table, people, seed=21)
    honest = _review(game, alice, django_capture_on_commit_callbacks).result
    assert honest["decisions"]
    tampered = tampered_deals(game, 0, random.Random(5))
    real = real_orders(game)
    deal = game.state["settings"]["deal"]
    # Another seat's bones as dealt really are others in some hand, not just the yard's order.
    assert any(
        set(real[n][deal * s : deal * (s + 1)]) != set(tampered[n][deal * s : deal * (s + 1)])
        for n in real
        for s in (1, 2)
    )
    patch_deals(monkeypatch, game, tampered)
    Review.objects.all().delete()
    again = _review(game, alice, django_capture_on_commit_callbacks).result
    assert again == honest


@pytest.mark.django_db
def test_a_review_worked_in_parts_is_the_same_and_each_part_runs_once(
    alice: Any, bob: Any, fixed_seeds: None, settings: Any
) -> None:
    table = start_table([alice, bob], "fives", limit=50)
    game = play(table, [alice, bob], seed=4)
    whole = Review.objects.create(game=game, user=alice, seat=0)
    settings.COACH_CHUNK_SECONDS = 10_000
    assert services.review_compute(review_id=whole.pk) is None  # all in one go
    whole.refresh_from_db()
    assert whole.status == Review.Status.DONE
    expected = whole.result
    whole.delete()
    settings.COACH_CHUNK_SECONDS = 0  # one decision a part
    review = Review.objects.create(game=game, user=alice, seat=0)
    done = services.review_compute(review_id=review.pk)
    assert done == 1
    assert services.review_compute(review_id=review.pk) is None  # already started
    parts = 1
    while done is not None:
        review.refresh_from_db()
        assert review.status == Review.Status.RUNNING and review.done == done
        assert review.total == len(expected["decisions"])
        again = services.review_compute(review_id=review.pk, done=done)
        # the same part delivered twice: the second finds the count moved on
        assert services.review_compute(review_id=review.pk, done=done) is None
        done = again
        parts += 1
    review.refresh_from_db()
    assert parts == len(expected["decisions"])
    assert review.status == Review.Status.DONE and review.result == expected
