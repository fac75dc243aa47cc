"""What a table is played for, asked of whoever keeps the stakes (the ledger), in tables' words.

A table may be played for Dollars or a canteen bet. Tables asks the stake keeper to record what
a new table is played for, to check that a player can cover it (when they sit, and again when the
game starts), to hold every player's stake in the pot when a game starts, and whether a game was
settled (staff cannot void a game whose pot was paid out); and to show the stake: its fields on
the create-table form, the lobby's filters and rows, the table page, a finished game's picture.
These are questions tables asks *before* it acts, whose answer can refuse the act, so they are
calls, not events (tables/events.py); but tables imports no keeper: the keeper registers itself
from its own AppConfig.ready() (the ledger, ledger/keeper.py), where it also subscribes to the
game events. Settling and refunding are not asked here: the ledger does them as the subscriber of
`game_finished` and `game_called_off`.

A keeper's refusal is a `StakeRefused` (the ledger's LedgerError is one): its words reach the
player unchanged, as a TableError with the same code, or on the create form's field it names.

With no keeper registered, `keeper()` raises ImproperlyConfigured: a table is never quietly
played for nothing because the app that keeps its stakes did not load.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from django.core.exceptions import ImproperlyConfigured

if TYPE_CHECKING:
    from django import forms
    from django.db.models import QuerySet

    from tables.models import Game, Table


class StakeRefused(Exception):
    """The keeper refused: a stable `code`, words for the player, and the create form's field it
    is about ("stake", "canteen" for the canteen bet as a whole, or None). Nothing changed."""

    def __init__(self, code: str, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field


class StakeShown(Protocol):
    """A table's stake as the lobby and the table page show it (the keeper's templates read its
    words: `text`, `label`, `needed_text`, `skunk_text`, `pot_text(players)`, and `parts`, each
    amount with its good, to draw the good's icon)."""

    kind: str  # "dollars", "canteen", "workout" or "none"

    def covered_by(self, balances: Any) -> bool:
        """Whether a player holding `balances` (the keeper's `balances_of`) can sit."""
        ...


class StakeForm(Protocol):
    """The stake's part of one create-table form (tables.forms.TableForm adds its fields)."""

    def fields(self) -> dict[str, forms.Field]:
        """The fields to add: "stake" (Dollars) and one per good of a canteen bet."""
        ...

    @property
    def canteen_names(self) -> list[str]:
        """The canteen bet's fields, one per good (the page shows them together)."""
        ...

    def spec(self, data: dict[str, Any]) -> Any:
        """What the table is played for, from the form's cleaned data (its "mode" included);
        None for a mode played for a workout. Handed back to the keeper's `stake_set`."""
        ...

    def field_for(self, field: str | None) -> str | None:
        """The form field a refusal about `field` is shown on."""
        ...


class StakeKeeper(Protocol):
    """Whoever keeps the tables' stakes. Every call runs in the caller's transaction; a refusal
    is a StakeRefused."""

    @property
    def stake_filters(self) -> Sequence[tuple[str, Any]]:
        """The lobby's stake filter: (value, words), "" for any stake first."""
        ...

    def stake_form(self) -> StakeForm: ...

    def stake_kind(self, mode: str) -> str:
        """What a table of `mode` is played for: "dollars", "canteen" or "workout"."""
        ...

    def stake_set(self, *, table: Table, spec: Any) -> None:
        """Record what the new `table` is played for (`spec` from the form, None: nothing); its
        host must cover it."""
        ...

    def stake_check_cover(self, *, table: Table, user: Any) -> None:
        """Refuse, saying what is missing, unless `user` holds enough to sit at `table`."""
        ...

    def game_stake_hold(self, *, game: Game) -> None:
        """The game starts: every player's stake into the pot, all or nothing."""
        ...

    def stakes_settled(self, game: Game) -> bool:
        """Whether the finished `game`'s pot was paid out."""
        ...

    def settlement_of(self, game: Game) -> dict[str, Any] | None:
        """What each seat of the finished `game` won or paid (the table's picture); None when it
        was played for nothing."""
        ...

    def stake_view(self, table: Table) -> StakeShown: ...

    def pot_text(self, table: Table) -> str:
        """The pot in words while a game holds stakes; empty otherwise."""
        ...

    def tables_by_stake(self, tables: QuerySet[Table], value: str) -> QuerySet[Table]:
        """The lobby's tables narrowed by one of `stake_filters`."""
        ...

    def balances_of(self, user_id: Any) -> Any:
        """What a player holds, for `StakeShown.covered_by`."""
        ...


_keeper: StakeKeeper | None = None


def register(stake_keeper: StakeKeeper) -> None:
    """Make `stake_keeper` the one tables asks (from the keeper's AppConfig.ready()). The same
    keeper again (a second ready()) changes nothing; another one is a bug."""
    global _keeper
    held = _keeper
    if held is not None and type(held) is not type(stake_keeper):
        raise ValueError(f"the stakes are kept by {held!r} already")
    _keeper = stake_keeper


def keeper() -> StakeKeeper:
    """The registered keeper. None registered is a configuration error, raised at once."""
    if _keeper is None:
        raise ImproperlyConfigured(
            "No one keeps the tables' stakes: the ledger app registers its keeper from "
            "LedgerConfig.ready() (tables.stakes.register); is it in INSTALLED_APPS?"
        )
    return _keeper
