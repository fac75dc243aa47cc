"""The ledger keeps the tables' stakes: tables asks through tables.stakes (a table's stake set,
covered, held, settled, shown) and imports nothing of the ledger. Registered from
LedgerConfig.ready(), next to the receivers that settle and refund a game (ledger/receivers.py).

Its refusals are LedgerErrors, which are tables.stakes.StakeRefused: they reach the player in
the same words."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from ledger import selectors, services
from ledger.forms import StakeForm
from ledger.models import Posting
from tables import stakes
from tables.models import Game, Table


class LedgerStakeKeeper:
    """tables.stakes.StakeKeeper, answered by the ledger's services and selectors."""

    stake_filters = selectors.STAKE_FILTERS

    def stake_form(self) -> StakeForm:
        return StakeForm()

    def stake_kind(self, mode: str) -> str:
        if mode in services.CANTEEN_MODES:
            return "canteen"
        if mode in services.GYM_MODES:
            return "workout"
        return "dollars"

    def stake_set(self, *, table: Table, spec: services.StakeSpec | None) -> None:
        services.stake_set(table=table, spec=spec)

    def stake_check_cover(self, *, table: Table, user: Any) -> None:
        services.stake_check_cover(table=table, user=user)

    def game_stake_hold(self, *, game: Game) -> None:
        services.game_stake_hold(game=game)

    def stakes_settled(self, game: Game) -> bool:
        return Posting.objects.filter(key=services.settle_key(game.pk)).exists()

    def settlement_of(self, game: Game) -> dict[str, Any] | None:
        return selectors.settlement_of(game)

    def stake_view(self, table: Table) -> selectors.StakeView:
        return selectors.stake_view(table)

    def pot_text(self, table: Table) -> str:
        return selectors.pot_text(table)

    def tables_by_stake(self, tables: QuerySet[Table], value: str) -> QuerySet[Table]:
        return selectors.tables_by_stake(tables, value)

    def balances_of(self, user_id: Any) -> dict[services.Unit, int]:
        return selectors.balances_of(user_id)


def register() -> None:
    stakes.register(LedgerStakeKeeper())
