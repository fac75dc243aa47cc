"""The statements built once per process read and write what the ORM would."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from tables import services, statements
from tables.models import Game, Table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def started_game(alice: Any, bob: Any) -> Game:
    table = services.table_create(host=alice, mode="citizen_gym", players=2, clock=60)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    services.seat_ready(table_id=table.pk, user=alice, ready=True)
    services.seat_ready(table_id=table.pk, user=bob, ready=True)
    game = Game.objects.get(table=table)
    assert game.status == Game.Status.PLAYING and game.deadline is not None
    return game


def _fields(instance: Any) -> dict[str, Any]:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def test_select_locked_gives_what_the_orm_gives(started_game: Game) -> None:
    with transaction.atomic():
        orm = (
            Game.objects.select_for_update()
            .select_related("table")
            .get(table_id=started_game.table_id, status=Game.Status.PLAYING)
        )
        with CaptureQueriesContext(connection) as queries:
            built = statements.select_locked(
                Game, "table", {"table": started_game.table_id, "status": Game.Status.PLAYING}
            )
            assert isinstance(built, Game)
            table = built.table  # cached: no second query
        assert len(queries) == 1
        if connection.features.has_select_for_update:
            assert queries[0]["sql"].endswith("FOR UPDATE")
    assert _fields(built) == _fields(orm)
    assert isinstance(table, Table) and _fields(table) == _fields(orm.table)
    assert isinstance(built.state, dict) and built.state == orm.state  # JSON decoded
    assert built.started_at.tzinfo is not None  # aware, as the ORM's
    assert not built._state.adding and built._state.db == orm._state.db


def test_select_locked_finds_nothing_where_nothing_matches(started_game: Game) -> None:
    found = statements.select_locked(
        Game, "table", {"table": started_game.table_id, "status": Game.Status.FINISHED}
    )
    assert found is None
