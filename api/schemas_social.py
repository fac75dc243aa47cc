"""The shapes of challenges, Play now and tournaments in the API (api/routes/challenges.py,
api/routes/tournaments.py): what they answer with, and the bodies they take. The choices a body
offers are the pages' own forms' (tables.forms.TableForm, pairing.cells), named here for the
schema; the forms and services still judge every value."""

from __future__ import annotations

import datetime as dt
import enum
from typing import Any

from ninja import Schema
from pydantic import Field

from api.schemas import MOST_ID, PlayerRef, Problem
from ledger.services import MAX_BUNDLE_ITEM, MAX_STAKE
from pairing import cells
from tables.forms import SHAPES, TableForm
from tables.models import MODE_CHOICES


def _choices(values: list[str] | tuple[str, ...], name: str) -> type[enum.StrEnum]:
    return enum.StrEnum(name, {v: v for v in values})  # type: ignore[return-value]


def _form_choices(field: str) -> list[str]:
    return [str(v) for v, _label in TableForm.base_fields[field].choices if v != ""]  # type: ignore[attr-defined]


#: The choices of the challenge form (the create-table form), as the schema names them.
ChallengeMode = _choices([code for code, _label in MODE_CHOICES], "ChallengeMode")
TableShape = _choices([code for code, _label in SHAPES], "TableShape")
BoneSet = _choices(_form_choices("bone_set"), "BoneSet")
WorkoutKind = _choices(_form_choices("workout_kind"), "WorkoutKind")
OnLeave = _choices(_form_choices("on_leave"), "OnLeave")
#: The Play now grid's modes and shapes (pairing.cells).
PoolMode = _choices(cells.MODES, "PoolMode")
PoolShape = _choices(tuple(cells.SHAPES), "PoolShape")


class FieldProblem(Problem):
    """A refused body: the first field at fault in `field` and `message`, and every field's
    words in `errors` (the challenge form's own)."""

    errors: dict[str, list[str]] = Field(
        default_factory=dict, description="Every field at fault, with its words."
    )


# --- challenges --------------------------------------------------------------------------------


class GoodAmount(Schema):
    good: int = Field(description="The Commissary good's id.")
    name: str = Field(description="The good's name.")
    quantity: int


class ChallengeStake(Schema):
    dollars: int = Field(description="Dollars each player puts in the pot (0: none).")
    canteen: list[GoodAmount] = Field(description="A canteen bet: goods each player puts in.")


class Challenge(Schema):
    id: int
    status: str = Field(
        description="pending, accepted, declined, withdrawn, expired or failed (could not be "
        "seated)."
    )
    status_name: str = Field(description="The status in words.")
    pending: bool = Field(description="Waiting for an answer now (pending, not yet expired).")
    sent: bool = Field(description="You sent it (else you were challenged).")
    challenger: PlayerRef
    challenged: PlayerRef
    mode: str
    options: dict[str, Any] = Field(
        description="The table's settings: players, partners, deal, target, limit, set, ..."
    )
    on_leave: str = Field(description="wait or forfeit: when a player leaves for good.")
    private: bool
    rated: bool = Field(description="False: a casual table, whose games never change ratings.")
    stake: ChallengeStake
    terms: list[str] = Field(description="The table in words, as the challenge page says it.")
    created_at: dt.datetime
    expires_at: dt.datetime = Field(description="Unanswered by then, it expires.")
    answered_at: dt.datetime | None
    table: int | None = Field(description="The table it seated both players at (accepted).")
    table_url: str | None = Field(description="That table's page.")
    url: str = Field(description="The challenge's page.")


class ChallengeLists(Schema):
    received: list[Challenge] = Field(description="Challenges to you, waiting for your answer.")
    sent: list[Challenge] = Field(description="Your challenges waiting for an answer.")
    answered: list[Challenge] = Field(description="The last ones answered, newest first.")


class CanteenItem(Schema):
    good: int = Field(ge=1, le=MOST_ID, description="The Commissary good's id.")
    quantity: int = Field(ge=0, le=MAX_BUNDLE_ITEM)


class ChallengeNew(Schema):
    """The challenge form's settings (the create-table form's), addressed to one player."""

    player: int = Field(ge=1, le=MOST_ID, description="Whom to challenge: a player's id.")
    mode: ChallengeMode  # type: ignore[valid-type]
    shape: TableShape = Field(  # type: ignore[valid-type]
        "one_on_one", description="Fives and Threes are one on one."
    )
    deal: int | None = Field(None, description="House modes: bones each, 7 or 9.")
    target: int | None = Field(None, description="House modes: the game is to 150 or 250.")
    limit: int | None = Field(None, description="Fives and Threes: the game limit, 50 to 500.")
    bone_set: BoneSet | None = Field(None, description="Fives and Threes: the set.")  # type: ignore[valid-type]
    spinner: bool = Field(False, description="Fives and Threes: play with a spinner.")
    get_on: int | None = Field(None, description="House modes: points to get on the board.")
    count_by: int | None = Field(None, description="House modes: count rounds to 5 or 10.")
    clock: int | None = Field(None, description="Gym modes: the turn clock, 3 to 60 seconds.")
    clock_off: bool = Field(False, description="Gym modes: no clock.")
    workout_kind: WorkoutKind | None = Field(None, description="Gym modes.")  # type: ignore[valid-type]
    workout_amount: int | None = Field(None, description="Gym modes: 1 to 1000.")
    on_leave: OnLeave = Field("wait", description="Cut Throat and Partners.")  # type: ignore[valid-type]
    private: bool = Field(True, description="Not listed in the lobby.")
    rated: bool = Field(True, description="False: a casual game, which never changes ratings.")
    stake: int = Field(
        0, ge=0, le=MAX_STAKE, description="Citizen, Fives, Threes: Dollars each player stakes."
    )
    canteen: list[CanteenItem] = Field(
        default_factory=list, description="Inmate: the canteen bet, goods each player stakes."
    )


class Accepted(Schema):
    challenge: int
    table: int = Field(description="The table both players sit at now.")
    url: str = Field(description="The table's page.")
    stream: str = Field(description="The table's game stream, for your seat.")


# --- Play now ----------------------------------------------------------------------------------


class PoolJoin(Schema):
    """A cell of the Play now grid."""

    mode: PoolMode  # type: ignore[valid-type]
    shape: PoolShape = Field(  # type: ignore[valid-type]
        "1v1", description="1v1, ct3, ct4 or partners (Fives and Threes: 1v1)."
    )
    stake: int = Field(
        0, ge=0, le=MOST_ID, description="Dollars: 0, 10, 50 or 100 (Citizen, Fives, Threes)."
    )
    house_fill: bool = Field(
        False,
        description="After a wait, house players take the seats nobody came for (casual; "
        "cells played for nothing only).",
    )


class PoolReady(Schema):
    ready: bool = True


class PoolStatus(Schema):
    state: str = Field(
        description="idle, waiting (in a pool), seated (a table waits for you to be ready) or "
        "dropped (not ready in time)."
    )
    server_time: dt.datetime
    cell: str | None = Field(None, description="The pool: mode:shape:stake.")
    label: str | None = Field(None, description="The pool in words.")
    joined_at: dt.datetime | None = None
    pool_size: int | None = Field(None, description="Players waiting in the pool.")
    rating: int | None = Field(None, description="Your rating in the pool.")
    range: int | None = Field(None, description="How far in rating you may be paired now.")
    house_fill: bool | None = None
    table: int | None = Field(None, description="The table you were seated at.")
    url: str | None = Field(None, description="That table's page.")
    stream: str | None = Field(None, description="That table's game stream.")
    confirm_by: dt.datetime | None = Field(
        None, description="Press Ready by then, or the seat goes to the next player waiting."
    )
    ready: bool | None = Field(None, description="You pressed Ready.")


class PoolLeft(Schema):
    left: bool = Field(description="You were waiting, and left the pool.")
    status: PoolStatus = Field(description="Where you stand now (seated just before: the table).")


# --- tournaments -------------------------------------------------------------------------------


class ClubRef(Schema):
    id: int
    name: str
    url: str


class TournamentLine(Schema):
    id: int
    name: str
    status: str = Field(
        description="draft, published, registration, checkin, running, finished, cancelled."
    )
    status_name: str
    mode: str
    mode_name: str
    partners: bool = Field(description="Played 2 against 2 (each entry is a pair).")
    format: str = Field(description="single, double, swiss or arena.")
    format_name: str
    starts_at: dt.datetime
    registration_opens: dt.datetime
    registration_closes: dt.datetime
    entrants: int = Field(description="Entries in the event now.")
    max_entrants: int
    fee: str = Field(description="The entry fee in words.")
    fee_kind: str = Field(description="free, dollars or canteen.")
    club: ClubRef | None = Field(description="A club's own event: only its members register.")
    battle: bool = Field(description="A battle between clubs: members of its clubs register.")
    mine: bool = Field(description="You are in it.")
    url: str = Field(description="The event's page.")


class TournamentLists(Schema):
    upcoming: list[TournamentLine]
    running: list[TournamentLine]
    finished: list[TournamentLine] = Field(description="Finished or cancelled lately.")
    drafts: list[TournamentLine] = Field(description="Drafts you may manage.")


class PrizeRow(Schema):
    place: int
    percent: int
    amount: str | None = Field(description="What the place pays now, in words.")


class Prizes(Schema):
    fee: str
    pool: str | None = Field(description="The prize pool now, in words.")
    rows: list[PrizeRow]


class Placing(Schema):
    place: int
    shared: bool
    entry: int
    name: str
    prize: str


class MatchNotice(Schema):
    table: int | None
    url: str | None = Field(description="Your match's table (with its code).")
    waiting: bool = Field(description="The table waits for the players to be ready.")
    deadline: dt.datetime | None = Field(description="Not at the table by then: a no-show.")
    game: int = Field(description="The game of the match being played, from 1.")
    opponent: str


class MyEntry(Schema):
    """Your place in the event, and what you may do now (the event page's buttons)."""

    entry: int | None = Field(description="Your entry (the latest, if you withdrew).")
    active: bool = Field(description="You are in the event.")
    state: str | None = Field(description="Your entry in words.")
    partner: PlayerRef | None
    partner_confirmed: bool
    invitation: int | None = Field(
        description="An entry naming you as partner, waiting for your answer."
    )
    checked_in: bool
    paused: bool = Field(description="An arena: you paused.")
    club: ClubRef | None = Field(description="A club battle: whom you play for.")
    who_registers: str = Field(description="open, club (its members) or battle (its clubs').")
    may_register: bool
    may_withdraw: bool
    withdraw_refunds: bool = Field(description="Withdrawing now gives the entry fee back.")
    may_check_in: bool
    checkin_opens: dt.datetime
    full: bool
    match: MatchNotice | None = Field(description="Your match now, while the event runs.")


class Tournament(TournamentLine):
    description: str
    rules_text: str
    organizer: PlayerRef
    format_words: str
    match_words: str
    table_words: list[str]
    table_settings: dict[str, Any]
    best_of: int
    swiss_rounds: int | None
    arena_minutes: int | None
    checkin_minutes: int
    round_minutes: int
    noshow_minutes: int
    seeding: str
    bots_welcome: bool = Field(
        description="Whether bot accounts may register (the organizer's choice; off: people only)."
    )
    current_round: int
    rounds_total: int
    prizes: Prizes
    placings: list[Placing] = Field(description="The final placings, best first.")
    end_note: str
    me: MyEntry


class EntryRef(Schema):
    id: int
    name: str
    seed: int | None
    players: list[PlayerRef]
    active: bool


class TournamentMatch(Schema):
    id: int
    key: str = Field(description="W1-1, L2-3, GF1, S3-2, A12-1, ...")
    round: int
    bracket: str = Field(description="W (winners), L (losers), F (grand final), S (Swiss).")
    bracket_name: str
    stage: int
    number: int
    status: str
    status_words: str
    a: EntryRef | None
    b: EntryRef | None
    wins_a: int
    wins_b: int
    winner: int | None = Field(description="The winning entry's id.")
    outcome: str = Field(description="played, forfeit, both_absent, out, settled (or empty).")
    table: int | None
    url: str | None = Field(description="The table while the match is live (with its code).")
    finished_at: dt.datetime | None


class Round(Schema):
    number: int
    current: bool
    matches: list[TournamentMatch]


class SwissRow(Schema):
    rank: int
    entry: EntryRef
    points: int
    buchholz: int = Field(description="The points of every opponent met.")
    sonneborn: int = Field(description="Sonneborn-Berger: the points of the opponents beaten.")
    wins: int
    losses: int
    byes: int


class ArenaRow(Schema):
    rank: int
    player: int
    name: str
    bot: bool
    score: int
    games: int
    wins: int
    streak: int = Field(description="Wins in a row now.")
    fire: bool = Field(description="On fire: the next win scores double.")
    berserks: int
    performance: int
    recent: list[str] = Field(description="Last results, oldest first: W, B (berserk win), L, N.")
    points: list[int] = Field(description="Their points.")
    paused: bool


class ArenaClubPlayer(Schema):
    player: int
    name: str
    bot: bool
    score: int


class ArenaClub(Schema):
    rank: int
    club: int
    name: str
    url: str
    score: int
    players: int
    top: list[ArenaClubPlayer]


class ArenaFrame(Schema):
    """The standings frame the event's socket sends (`arena_standings`)."""

    tournament: int
    players: int
    ends: int = Field(description="When the arena ends (ms since the epoch).")
    pairing_until: int = Field(description="No pairing after (ms since the epoch).")
    top: list[ArenaRow] = Field(description="The top rows in full.")
    ranks: list[list[int]] = Field(description="Every player: [player id, rank, score].")
    watch: str | None = Field(description="The live game of the best-placed players.")
    at: int = Field(description="When the frame was made (ms since the epoch).")
    clubs: list[ArenaClub] | None = Field(None, description="A club battle's clubs.")


class Standings(Schema):
    tournament: int
    format: str
    status: str
    current_round: int
    arena: ArenaFrame | None = Field(description="An arena's standings frame.")
    swiss: list[SwissRow] = Field(description="A Swiss event's standings.")
    rounds: list[Round] = Field(description="A bracket's or Swiss event's matches, by round.")


class Register(Schema):
    partner: int | None = Field(
        None, ge=1, le=MOST_ID, description="A Partners event: your partner's player id."
    )
    club: int | None = Field(
        None, ge=1, le=MOST_ID, description="A club battle: the club you play for (one of yours)."
    )


class PartnerAnswer(Schema):
    accept: bool
