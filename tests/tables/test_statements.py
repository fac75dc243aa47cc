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


def test_a_moves_writes_are_one_statement_on_postgresql(started_game: Game, bob: Any) -> None:
    """A move: its read, then the game, its actions, the table's number and its events written
    together (one writable CTE on PostgreSQL; four statements where that is not possible)."""
    state = services.GameState.from_json(started_game.state)
    action = state.legal_actions()[0].to_dict()
    seat = action.pop("seat")
    user = started_game.table.host if seat == 0 else bob
    table = started_game.table
    with CaptureQueriesContext(connection) as queries:
        services.game_act(table_id=table.pk, user=user, version=started_game.version, action=action)
    writes = [q["sql"] for q in queries if not q["sql"].lstrip().upper().startswith("SELECT")]
    writes = [sql for sql in writes if sql.split()[0].upper() not in ("BEGIN", "COMMIT")]
    if connection.vendor == "postgresql":
        assert len(writes) == 1 and writes[0].startswith("WITH "), writes
    else:
        assert len(writes) == 4, writes
    game = Game.objects.get(pk=started_game.pk)
    assert game.version > started_game.version
    assert game.actions.filter(version=started_game.version + 1).exists()
    table.refresh_from_db()
    assert table.events.filter(seq=table.seq).exists()


def test_writes_that_lose_their_compare_and_set_raise_and_leave_nothing(
    started_game: Game,
) -> None:
    """An update that changes no row raises its exception, and the transaction leaves none of
    the other writes behind (on PostgreSQL they were in the same statement)."""
    table = started_game.table

    class Lost(Exception):
        pass

    with pytest.raises(Lost), transaction.atomic():
        writes = statements.Writes(Table)
        writes.update_where(
            Table, {"seq": table.seq + 1}, {"id": table.pk, "seq": table.seq}, or_raise=Lost
        )
        writes.update_where(  # a version the game is not at: loses
            Game,
            {"version": started_game.version + 7},
            {"id": started_game.pk, "version": started_game.version + 1},
            or_raise=Lost,
        )
        writes.run()
    assert Table.objects.get(pk=table.pk).seq == table.seq  # the winning write undone too
    assert Game.objects.get(pk=started_game.pk).version == started_game.version


def test_writes_that_win_are_all_made(started_game: Game) -> None:
    table = started_game.table
    seq, version = table.seq, started_game.version
    with transaction.atomic():
        writes = statements.Writes(Table)
        writes.update_where(
            Table, {"seq": seq + 1}, {"id": table.pk, "seq": seq}, or_raise=AssertionError
        )
        writes.update_where(
            Game,
            {"version": version + 1},
            {"id": started_game.pk, "version": version},
            or_raise=AssertionError,
        )
        writes.run()
    assert Table.objects.get(pk=table.pk).seq == seq + 1
    assert Game.objects.get(pk=started_game.pk).version == version + 1
