"""The shapes the API answers with (pydantic, through django-ninja): the OpenAPI schema at
/api/schema is made from these."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ninja import Schema
from pydantic import Field

#: Ids in paths and bodies: a database integer.
MOST_ID = 2**31 - 1
#: Versions, seats, hands and sequence numbers: any whole number a JSON client keeps exactly.
WHOLE = 2**53 - 1


class Problem(Schema):
    """Every refusal: a code to act on, and a message in words (in the Accept-Language)."""

    code: str = Field(description="What went wrong, for programs: see docs/api.md, Errors.")
    message: str = Field(description="What went wrong, in words for people.")
    field: str | None = Field(None, description="The field at fault, when there is one.")


class PlayerRef(Schema):
    id: int
    name: str
    bot: bool = Field(description="A bot account (played by a program through the API).")
    house: bool = Field(description="One of the house's own players.")
    url: str = Field(description="The player's profile page.")


class Rating(Schema):
    pool: str = Field(description="The rating pool: allfives-1v1, fives, threes, ...")
    pool_name: str
    rating: int = Field(description="Glicko-2 rating, rounded.")
    deviation: int = Field(description="Rating deviation as of now, rounded.")
    provisional: bool = Field(description="True while the deviation is above 110.")
    games: int = Field(description="Rated games played in the pool.")


class Account(Schema):
    id: int
    name: str
    bot: bool
    url: str
    language: str
    time_zone: str
    joined: dt.datetime
    scopes: list[str] = Field(description="What the token used may do.")
    ratings: list[Rating]


class ModeStats(Schema):
    mode: str
    games: int
    wins: int


class Profile(Schema):
    player: PlayerRef
    joined: dt.datetime
    games: int = Field(description="Finished games.")
    wins: int
    modes: list[ModeStats]
    ratings: list[Rating]


class LiveGame(Schema):
    table: int
    game: int | None = Field(description="The game being played (None: the table is waiting).")
    mode: str
    status: str = Field(description="The table: open (waiting for players) or playing.")
    seat: int = Field(description="Your seat.")
    my_turn: bool
    version: int | None = Field(description="The game's version (send it with a move).")
    rated: bool = Field(description="The table is rated: its games count for ratings.")
    players: list[PlayerRef | None] = Field(description="By seat; None is an empty seat.")
    url: str = Field(description="The table's page.")


class LeaderRow(Schema):
    rank: int
    player: PlayerRef
    rating: int
    deviation: int
    games: int


class Leaderboard(Schema):
    pool: str
    pool_name: str
    rows: list[LeaderRow]


class Seat(Schema):
    seat: int
    side: int
    player: PlayerRef | None


class Side(Schema):
    side: int
    seats: list[int]
    score: int
    won: bool
    skunked: bool


class Play(Schema):
    n: int = Field(description="The play's number in its hand, from 1.")
    seat: int | None
    kind: str = Field(description="play, draw, pass, choose, ... (the engine's action).")
    action: dict[str, Any] = Field(description="The action as sent (docs/protocol.md).")
    events: list[dict[str, Any]] = Field(description="What it did (docs/protocol.md, Events).")
    text: str = Field(description="The play in words.")
    version: int = Field(description="The game version it made.")


class HandExport(Schema):
    number: int
    seed: str = Field(description="The server seed, revealed now that the hand is over.")
    commitment: str = Field(description="SHA-256 of the seed, published before the deal.")
    washes: dict[str, str] = Field(description="Each washing seat's contribution, by seat.")
    dealt: list[list[str]] = Field(description="Each seat's bones, by seat.")
    yard: list[str] = Field(description="The yard, in the order it was drawn from.")
    plays: list[Play]
    scores: list[int] = Field(description="Each side's score after the hand.")
    result: str | None = Field(description="domino, blocked, ... (None: the game ended in it).")


class CurrentHand(Schema):
    number: int
    commitment: str


class GameExport(Schema):
    id: int
    table: int
    mode: str
    players: int
    partners: bool
    target: int
    max_pip: int
    rated: bool = Field(description="The game counted for ratings.")
    status: str = Field(description="playing, finished or aborted.")
    started_at: dt.datetime
    finished_at: dt.datetime | None
    seats: list[Seat]
    sides: list[Side]
    winner: int | None = Field(description="The winning side (None: not finished).")
    hands: list[HandExport] = Field(description="The hands that are over, in order.")
    current: CurrentHand | None = Field(description="The hand in play: only its commitment.")
    url: str


class GameLine(Schema):
    """One line of a player's finished games (NDJSON)."""

    id: int
    mode: str
    rated: bool = Field(description="The game counted for ratings.")
    private: bool
    finished_at: dt.datetime
    seat: int
    won: bool
    score: int = Field(description="The player's side's final score.")
    hands: int
    points: int = Field(description="Points the player's own plays made.")
    players: list[PlayerRef]
    url: str
