"""Challenges and Play now through the API: the same services the pages and their scripts call
(social.services for challenges, pairing.services for the Play now pools, tables.services for
the Ready a matched table waits for), with the same rules and the same words.

A challenge's body is the challenge form's (the create-table form's fields, checked by that
form: every refusal on its field). A challenge never tells the challenger about the other
player's balance: whether they can cover the stake is asked only when they accept, and a
challenge that could not be seated says no more than that."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from ninja import Body, Path, Router, Status

from accounts.models import User
from accounts.services import AccountNotAllowed
from api.access import ApiError, caller, needs
from api.refs import player_ref
from api.schemas import Problem
from api.schemas_social import (
    MOST_ID,
    Accepted,
    ChallengeLists,
    ChallengeNew,
    FieldProblem,
    PoolJoin,
    PoolLeft,
    PoolReady,
    PoolStatus,
)
from api.schemas_social import Challenge as ChallengeShape
from engine import SettingsError
from ledger.services import InsufficientFunds, LedgerError, NotCovered
from social import selectors, services
from social.forms import ChallengeForm
from social.models import Challenge
from tables.forms import FIELD_FOR_SETTING

router = Router(tags=["Challenges"])
REFUSALS: dict[int | str, Any] = {
    400: Problem,
    401: Problem,
    403: Problem,
    404: Problem,
    409: Problem,
    429: Problem,
}
OptionalBody = Body(None)
ChallengeId = Path(..., ge=1, le=MOST_ID, description="The challenge's id.")

#: SocialError codes and the status they are answered with (anything else: 409, a state
#: conflict: already answered, expired, already pending, a stake the table refused, ...).
STATUS = {
    "no_challenge": 404,
    "challenge_self": 400,
    "challenge_pending": 403,  # not your role in it: only the challenged answers, ...
    "house_player": 403,
    "unavailable": 403,
    "refuses_all": 403,
    "refuses_strangers": 403,
    "challenge_rate": 429,
}


def _refused(exc: services.SocialError) -> ApiError:
    return ApiError(STATUS.get(exc.code, 409), exc.code, exc.message)


# --- answers -----------------------------------------------------------------------------------


def _ms_time(ms: int | None) -> dt.datetime | None:
    return None if ms is None else dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC)


def _stake(challenge: Challenge) -> dict[str, Any]:
    from ledger.models import Good

    items = [(int(g), int(q)) for g, q in challenge.stake_bundle]
    goods = {g.pk: str(g) for g in Good.objects.filter(pk__in=[g for g, _q in items])}
    return {
        "dollars": challenge.stake_dollars,
        "canteen": [{"good": g, "name": goods.get(g, ""), "quantity": q} for g, q in items],
    }


def challenge_json(challenge: Challenge, user: Any) -> dict[str, Any]:
    """A challenge as either of its players sees it. (Why one could not be seated is not
    said: to the challenger it would tell the other player's balance.)"""
    from social.terms import challenge_terms

    table = challenge.table_id
    return {
        "id": challenge.pk,
        "status": challenge.status,
        "status_name": str(challenge.get_status_display()),
        "pending": selectors.is_pending(challenge),
        "sent": challenge.challenger_id == user.pk,
        "challenger": player_ref(challenge.challenger),
        "challenged": player_ref(challenge.challenged),
        "mode": challenge.mode,
        "options": challenge.options,
        "on_leave": challenge.on_leave,
        "private": challenge.private,
        "rated": challenge.rated,
        "stake": _stake(challenge),
        "terms": [str(t) for t in challenge_terms(challenge)],
        "created_at": challenge.created_at,
        "expires_at": challenge.expires_at,
        "answered_at": challenge.answered_at,
        "table": table,
        "table_url": reverse("tables:table", args=[table]) if table else None,
        "url": reverse("social:challenge", args=[challenge.pk]),
    }


def _own(challenge_id: int, user: Any) -> Challenge:
    """One of the caller's challenges (sent or received); 404 for anyone else's."""
    found = (
        Challenge.objects.select_related("challenger", "challenged").filter(pk=challenge_id).first()
    )
    if found is None or user.pk not in (found.challenger_id, found.challenged_id):
        raise ApiError(404, "no_challenge", _("There is no such challenge."))
    return found


# --- the challenge form, from a JSON body -------------------------------------------------------


def _api_field(name: str | None) -> str | None:
    """The body's name of a form field (a canteen good's field is the body's `canteen`)."""
    if name is None or name == "__all__":
        return None
    if name.startswith("canteen_"):
        return "canteen"
    return "rated" if name == "casual" else name


def _form_of(body: ChallengeNew) -> ChallengeForm:
    """The challenge form, bound to the body's settings as the page would post them."""
    data: dict[str, Any] = {
        "mode": str(body.mode),
        "shape": str(body.shape),
        "spinner": body.spinner,
        "clock_off": body.clock_off,
        "on_leave": str(body.on_leave),
        "private": body.private,
        "casual": not body.rated,
        "stake": body.stake,
    }
    for name in ("deal", "target", "limit", "get_on", "count_by", "clock", "workout_amount"):
        value = getattr(body, name)
        if value is not None:
            data[name] = value
    for name in ("bone_set", "workout_kind"):
        value = getattr(body, name)
        if value is not None:
            data[name] = str(value)
    form = ChallengeForm(data)
    known = set(form.stake_form.canteen_names)
    for item in body.canteen:
        name = f"canteen_{item.good}"
        if name not in known:
            raise ApiError(
                400,
                "bad_field",
                _("There is no such good in the Commissary."),
                field="canteen",
                errors={"canteen": [_("There is no such good in the Commissary.")]},
            )
        data[name] = int(data.get(name, 0)) + item.quantity
    # (`data` is the bound form's own dict: the goods are added to what it will clean)
    return form


def _form_refusal(form: ChallengeForm) -> ApiError:
    errors: dict[str, list[str]] = {}
    for name, words in form.errors.items():
        errors.setdefault(_api_field(name) or "", []).extend(str(w) for w in words)
    field, words = next(iter(errors.items()))
    return ApiError(400, "bad_field", words[0], field=field or None, errors=errors)


@router.get(
    "",
    response={200: ChallengeLists, **REFUSALS},
    auth=needs("challenge"),
    summary=gettext_noop("Your challenges"),
    description=gettext_noop(
        "Challenges to you and from you waiting for an answer, and the last ones answered, as "
        "the challenges page lists them."
    ),
)
def challenge_list(request: HttpRequest) -> dict[str, Any]:
    user = caller(request).user
    lists = selectors.challenges_for(user)
    return {key: [challenge_json(c, user) for c in rows] for key, rows in lists.items()}


@router.post(
    "",
    response={201: ChallengeShape, **REFUSALS, 400: FieldProblem},
    auth=needs("challenge"),
    summary=gettext_noop("Challenge a player"),
    description=gettext_noop(
        "A table with the challenge form's settings, for you and one player: they have two "
        "minutes to accept. Refused in words: a setting on its field (400), a player who does "
        "not take your challenges (403), one you already challenged (409), a rated challenge "
        "between a bot and a person who does not play bots rated games (409 bot_unrated), too "
        "many challenges lately (429)."
    ),
)
def challenge_send(request: HttpRequest, body: ChallengeNew) -> Status[dict[str, Any]]:
    user = caller(request).user
    player = User.objects.filter(pk=body.player, is_active=True).first()
    if player is None:
        raise ApiError(404, "no_such_player", _("There is no such player."), field="player")
    form = _form_of(body)
    if not form.is_valid():
        raise _form_refusal(form)
    try:
        challenge = services.challenge_send(
            challenger=user,
            challenged=player,
            mode=form.cleaned_data["mode"],
            options=form.cleaned_options,
            on_leave=form.cleaned_data.get("on_leave") or "wait",
            private=form.cleaned_data["private"],
            rated=not form.cleaned_data.get("casual"),
            stake=form.stake_spec,
        )
    except services.SocialError as exc:
        raise _refused(exc) from exc
    except SettingsError as exc:  # the form checked; belt and braces
        field = FIELD_FOR_SETTING.get(exc.field)
        raise ApiError(400, "bad_field", str(exc), field=field) from exc
    except LedgerError as exc:  # a stake the challenger cannot cover, or refused
        field = _api_field(form.stake_form.field_for(exc.field))
        status = 409 if isinstance(exc, InsufficientFunds | NotCovered) else 400
        raise ApiError(status, exc.code, exc.message, field=field) from exc
    except AccountNotAllowed as exc:
        raise ApiError(403, exc.code, exc.message) from exc
    return Status(201, challenge_json(_own(challenge.pk, user), user))


# --- Play now (before /{challenge_id}: "pool" is no challenge's id) -----------------------------


def pool_json(user: Any) -> dict[str, Any]:
    """Where the caller stands in Play now: the waiting panel's own status (reading it tells
    the pool the player is still there, as the panel's poll does)."""
    from pairing import selectors as pools

    status = dict(pools.pool_status(user))
    for name in ("server_time", "joined_at", "confirm_by"):
        if name in status:
            status[name] = _ms_time(status[name])
    if status.get("table"):
        status["stream"] = f"/api/tables/{status['table']}/stream"
    if "label" in status:
        status["label"] = str(status["label"])
    return status


#: PairingError codes and their status (anything else: 409).
POOL_STATUS = {"house_player": 403, "not_allowed": 403}


@router.get(
    "/pool",
    response={200: PoolStatus, **REFUSALS},
    auth=needs("challenge"),
    summary=gettext_noop("Where you stand in Play now"),
    description=gettext_noop(
        "Waiting in a pool (since when, how many wait), seated at a table the pool made (and "
        "by when to press Ready), dropped (not ready in time), or idle. Ask at least every 30 "
        "seconds while you wait: a player nobody has asked about for 45 seconds leaves the "
        "pool, as a closed Play now page does."
    ),
)
def pool_status(request: HttpRequest) -> dict[str, Any]:
    return pool_json(caller(request).user)


@router.post(
    "/pool",
    response={200: PoolStatus, **REFUSALS},
    auth=needs("challenge"),
    summary=gettext_noop("Join a Play now pool"),
    description=gettext_noop(
        "A cell of the Play now grid: a mode, a shape and a stake (out of any other pool). When "
        "someone who fits is waiting, you are seated at once: the answer is then `seated`, "
        "with the table and by when to press Ready."
    ),
)
def pool_join(request: HttpRequest, body: PoolJoin) -> dict[str, Any]:
    from pairing import services as pairing
    from pairing.cells import CellError, cell_of, shapes_of

    user = caller(request).user
    mode, shape = str(body.mode), str(body.shape)
    try:
        cell = cell_of(mode, shape, body.stake)
    except CellError as exc:
        field = "shape" if shape not in shapes_of(mode) else "stake"
        raise ApiError(400, "bad_field", str(exc), field=field) from exc
    try:
        pairing.pool_join(user=user, cell=cell, house_fill=body.house_fill)
    except pairing.PairingError as exc:
        raise ApiError(POOL_STATUS.get(exc.code, 409), exc.code, exc.message, **exc.extra) from exc
    return pool_json(user)


@router.delete(
    "/pool",
    response={200: PoolLeft, **REFUSALS},
    auth=needs("challenge"),
    summary=gettext_noop("Leave Play now"),
    description=gettext_noop(
        "Out of the pool you wait in. Seated just before (the pool paired you): the table is "
        "yours to play or leave, and the answer's status says where."
    ),
)
def pool_leave(request: HttpRequest) -> dict[str, Any]:
    from pairing import services as pairing

    user = caller(request).user
    left = pairing.pool_leave(user=user)
    return {"left": left, "status": pool_json(user)}


@router.post(
    "/pool/ready",
    response={200: PoolStatus, **REFUSALS},
    auth=needs("challenge"),
    summary=gettext_noop("Ready at the table Play now made"),
    description=gettext_noop(
        "Press the table's Ready (or release it) at the table the pool seated you at, before "
        "its time runs out: the game starts when every seat is ready. The same Ready as the "
        "table's page, or POST /api/tables/{table_id}/ready."
    ),
)
def pool_ready(request: HttpRequest, body: PoolReady | None = OptionalBody) -> dict[str, Any]:
    body = body or PoolReady()  # no body: ready
    from pairing import services as pairing
    from tables import services as tables

    user = caller(request).user
    match = pairing.match_waiting_for(user)
    if match is None:
        raise ApiError(409, "not_seated", _("No table from Play now is waiting for you."))
    try:
        tables.seat_ready(table_id=match.table_id, user=user, ready=body.ready)
    except tables.TableError as exc:
        status = 403 if exc.code in ("not_seated", "not_allowed") else 409
        raise ApiError(status, exc.code, exc.message, **exc.extra) from exc
    return pool_json(user)


# --- one challenge -----------------------------------------------------------------------------


@router.get(
    "/{challenge_id}",
    response={200: ChallengeShape, **REFUSALS},
    auth=needs("challenge"),
    summary=gettext_noop("A challenge"),
    description=gettext_noop("One of your challenges, sent or received: waiting, or how it ended."),
)
def challenge_one(request: HttpRequest, challenge_id: int = ChallengeId) -> dict[str, Any]:
    user = caller(request).user
    return challenge_json(_own(challenge_id, user), user)


@router.post(
    "/{challenge_id}/accept",
    response={200: Accepted, **REFUSALS},
    auth=needs("challenge"),
    summary=gettext_noop("Accept a challenge"),
    description=gettext_noop(
        "Both players are seated at a new table (the challenger hosts it): the answer names it, "
        "to go and play. Refused (409) once answered, withdrawn or expired, or when you can't "
        "cover the stake or sit now (the challenge then ends: could not be seated)."
    ),
)
def challenge_accept(request: HttpRequest, challenge_id: int = ChallengeId) -> dict[str, Any]:
    user = caller(request).user
    try:
        table = services.challenge_accept(challenge_id=challenge_id, user=user)
    except services.SocialError as exc:
        raise _refused(exc) from exc
    return {
        "challenge": challenge_id,
        "table": table.pk,
        "url": table.get_absolute_url(),
        "stream": f"/api/tables/{table.pk}/stream",
    }


@router.post(
    "/{challenge_id}/decline",
    response={200: ChallengeShape, **REFUSALS},
    auth=needs("challenge"),
    summary=gettext_noop("Decline a challenge"),
    description=gettext_noop("Say no to a challenge to you; the challenger is told."),
)
def challenge_decline(request: HttpRequest, challenge_id: int = ChallengeId) -> dict[str, Any]:
    return _answer(request, challenge_id, services.challenge_decline)


@router.post(
    "/{challenge_id}/withdraw",
    response={200: ChallengeShape, **REFUSALS},
    auth=needs("challenge"),
    summary=gettext_noop("Withdraw a challenge"),
    description=gettext_noop("Take back a challenge you sent that is still waiting."),
)
def challenge_withdraw(request: HttpRequest, challenge_id: int = ChallengeId) -> dict[str, Any]:
    return _answer(request, challenge_id, services.challenge_withdraw)


def _answer(request: HttpRequest, challenge_id: int, service: Any) -> dict[str, Any]:
    """Decline or withdraw (`service(challenge_id=, user=)`): the challenge after, or refused."""
    user = caller(request).user
    try:
        service(challenge_id=challenge_id, user=user)
    except services.SocialError as exc:
        raise _refused(exc) from exc
    return challenge_json(_own(challenge_id, user), user)
