"""A move made warm (tables/warm.py) on PostgreSQL: one statement, the same outcome as the usual
way, and the usual way whenever what this process kept is not the database's any more."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from engine import GameState, Phase
from tables import services, statements
from tables.models import Game, GameAction, Table, TableEvent
from tests.tables.test_table_socket import started_table

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="warm moves are made on PostgreSQL only"
    ),
]


def plain_move(table: Table, alice: Any, bob: Any) -> tuple[Any, int, dict[str, Any]]:
    """The player to act, the game's version, and a play that neither ends the hand nor the game
    (a pass or a draw when there is none, which deals nothing either)."""
    game = Game.objects.get(table=table, status=Game.Status.PLAYING)
    state = GameState.from_json(game.state)
    for candidate in state.legal_actions():
        after = GameState.from_json(game.state)
        after.apply(candidate)
        if not after.is_over and after.phase != Phase.AWAITING_DEAL:
            action = candidate.to_dict()
            action.pop("seat")
            return [alice, bob][state.to_act], game.version, action
    pytest.skip("no plain move in this deal")  # pragma: no cover - seeded deals always have one


def move(table: Table, alice: Any, bob: Any) -> tuple[services.ActResult, list[dict[str, Any]]]:
    user, version, action = plain_move(table, alice, bob)
    with CaptureQueriesContext(connection) as queries:
        result = services.game_act(table_id=table.pk, user=user, version=version, action=action)
    return result, list(queries)


def test_a_warm_move_is_one_statement_and_writes_what_the_usual_way_writes(
    alice: Any, bob: Any
) -> None:
    table = started_table(alice, bob)
    first, queries = move(table, alice, bob)
    assert len(queries) == 2  # this process had not made a move of the game: it reads it first
    before = Game.objects.get(pk=Game.objects.get(table=table).pk)
    second, queries = move(table, alice, bob)
    assert len(queries) == 1 and queries[0]["sql"].startswith("WITH")
    game = Game.objects.get(pk=before.pk)
    assert second.version == game.version > before.version
    assert second.seq == Table.objects.get(pk=table.pk).seq == first.seq + 1
    # Every version has its action, the player's own first; every event number its events.
    versions = list(
        GameAction.objects.filter(game=game).order_by("version").values_list("version", flat=True)
    )
    assert versions == list(range(versions[0], game.version + 1))
    mine = GameAction.objects.get(game=game, version=before.version + 1)
    assert not mine.by_server
    assert TableEvent.objects.filter(table=table, seq=second.seq).count() == 1
    # What was kept is what the database holds: the next move is one statement again.
    third, queries = move(table, alice, bob)
    assert len(queries) == 1 and third.seq == second.seq + 1
    # Run often, the statement is prepared: parsed and planned once for this connection.
    for _ in range(6):
        move(table, alice, bob)
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, from_sql FROM pg_prepared_statements")
        rows = cursor.fetchall()
        prepared = [row[0] for row in rows]
    assert any((sql or "").startswith("WITH w0 AS (UPDATE") for sql in prepared), rows


def test_a_row_changed_elsewhere_sends_the_move_the_usual_way(alice: Any, bob: Any) -> None:
    from tables import warm

    table = started_table(alice, bob)
    # Another process writes the game without a new version, then the table: whatever it is,
    # the kept rows are no longer the database's.
    for change in (
        lambda: Game.objects.filter(table=table).update(deadline=None),
        lambda: Table.objects.filter(pk=table.pk).update(
            on_leave=Table.objects.get(pk=table.pk).on_leave
        ),
    ):
        warm.forget_all()  # a process that never lost a move of this table
        move(table, alice, bob)  # kept warm now
        change()
        seq_before = Table.objects.get(pk=table.pk).seq
        version_before = Game.objects.get(table=table).version
        actions_before = GameAction.objects.count()
        result, queries = move(table, alice, bob)
        sqls = [q["sql"] for q in queries]
        assert sqls[0].startswith("WITH")  # tried warm, lost, and nothing of it was kept
        assert any("FOR UPDATE" in sql for sql in sqls[1:])  # then the usual way
        assert result.seq == seq_before + 1 == Table.objects.get(pk=table.pk).seq
        game = Game.objects.get(table=table)
        assert result.version == game.version
        assert GameAction.objects.count() == actions_before + (game.version - version_before)
        # The usual way forgot the kept game: the next move reads it and is warm again.
        _result, queries = move(table, alice, bob)
        assert len(queries) == 2 and queries[1]["sql"].startswith("WITH")


def test_a_stale_version_and_a_refusal_are_answered_the_usual_way(alice: Any, bob: Any) -> None:
    table = started_table(alice, bob)
    user, version, action = plain_move(table, alice, bob)
    services.game_act(table_id=table.pk, user=user, version=version, action=action)
    game = Game.objects.get(table=table)
    # The same move again, at the version it was made at: stale, with the version now.
    with pytest.raises(services.StaleVersion) as stale:
        services.game_act(table_id=table.pk, user=user, version=version, action=action)
    assert stale.value.extra == {"version": game.version}
    # Out of turn: the engine's refusal; nothing changed.
    waiting = [bob, alice][GameState.from_json(game.state).to_act]
    with pytest.raises(services.TableError) as refused:
        services.game_act(
            table_id=table.pk, user=waiting, version=game.version, action={"type": "pass"}
        )
    assert refused.value.code == "not_your_turn"
    assert Game.objects.get(table=table).version == game.version


def test_a_lost_compare_and_set_keeps_nothing_of_the_statement(alice: Any, bob: Any) -> None:
    table = started_table(alice, bob)
    found = statements.select_with_row_versions(
        Game, "table", {"table": table.pk, "status": Game.Status.PLAYING}
    )
    assert found is not None
    game, game_row, table_row = found
    assert isinstance(game, Game)
    events_before = TableEvent.objects.filter(table=table).count()
    Table.objects.filter(pk=table.pk).update(private=False)  # the table row's version moves on
    writes = statements.Writes.alone(Game, {Game: game_row, Table: table_row})
    writes.update_where(
        Game,
        {"version": game.version + 1},
        {"id": game.pk, "version": game.version},
        or_raise=lambda: AssertionError("not raised alone"),
    )
    writes.insert_rows(
        TableEvent,
        [
            {
                "table": table.pk,
                "seq": 999,
                "public": [],
                "private": {},
                "created_at": game.started_at,
            }
        ],
    )
    writes.update_where(
        Table,
        {"seq": table.seq + 1},
        {"id": table.pk, "seq": game.table.seq},
        or_raise=lambda: AssertionError("not raised alone"),
    )
    with pytest.raises(statements.Lost):
        writes.run()
    # The game's update (which matched) and the insert were rolled back with the lost one.
    assert Game.objects.get(pk=game.pk).version == game.version
    assert TableEvent.objects.filter(table=table).count() == events_before


def test_a_deal_and_the_end_of_the_game_go_the_usual_way(alice: Any, bob: Any) -> None:
    """Play a whole game: every move that deals or ends it is made under lock; the game ends
    settled, and the moves in between are one statement each."""
    table = started_table(alice, bob)
    warm_moves = 0
    for _ in range(2000):
        game = Game.objects.get(table=table)
        if game.status != Game.Status.PLAYING:
            break
        state = GameState.from_json(game.state)
        action = state.legal_actions()[0].to_dict()
        action.pop("seat")
        user = [alice, bob][state.to_act]
        with CaptureQueriesContext(connection) as queries:
            services.game_act(table_id=table.pk, user=user, version=game.version, action=action)
        after = Game.objects.get(pk=game.pk)
        after_state = GameState.from_json(after.state)
        locked = any("FOR UPDATE" in q["sql"] for q in queries)
        if after.status == Game.Status.FINISHED or after_state.deal_number != state.deal_number:
            assert locked  # dealt or ended: the usual way
        elif not locked:
            warm_moves += 1
    assert Game.objects.get(table=table).status == Game.Status.FINISHED
    assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED
    assert warm_moves > 10


def _socket_check(user: Any, session_key: str) -> tuple[Any, Any]:
    """A socket's consumer as after its handshake, and its account check to offer."""
    from dominoes_site.consumers import HouseConsumer
    from dominoes_site.user_sockets import generation

    consumer = HouseConsumer()
    consumer.scope = {"user": user}
    consumer.session_key = session_key
    consumer.generation = generation(user.pk)
    return consumer, consumer.check_standing


def test_a_socket_s_account_check_is_made_inside_the_warm_statement(alice: Any, bob: Any) -> None:
    from django.test import Client

    from dominoes_site import user_sockets
    from dominoes_site.consumers import AccountRefused

    table = started_table(alice, bob)
    move(table, alice, bob)  # kept warm now
    sessions = {}
    for user in (alice, bob):
        client = Client()
        client.force_login(user)
        sessions[user.pk] = client.session.session_key

    def socket_move() -> tuple[services.ActResult, list[dict[str, Any]]]:
        user, version, action = plain_move(table, alice, bob)
        consumer, check = _socket_check(user, sessions[user.pk])
        with (
            CaptureQueriesContext(connection) as queries,
            user_sockets.offer_guard(user.pk, consumer.generation, check) as guard,
        ):
            result = services.game_act(table_id=table.pk, user=user, version=version, action=action)
        assert guard.settled
        return result, list(queries)

    # Nothing changed: the move and the check are one statement.
    _result, queries = socket_move()
    assert len(queries) == 1 and "socket_generation" in queries[0]["sql"]
    # A change that leaves the player free to play (no message reached the socket): the
    # statement loses, the check is made, and the move goes the usual way.
    user, version, action = plain_move(table, alice, bob)
    consumer, check = _socket_check(user, sessions[user.pk])
    user_sockets.account_changed(user.pk)
    with (
        CaptureQueriesContext(connection) as queries,
        user_sockets.offer_guard(user.pk, consumer.generation, check),
    ):
        result = services.game_act(table_id=table.pk, user=user, version=version, action=action)
    assert result.version == Game.objects.get(table=table).version > version
    assert any("FOR UPDATE" in q["sql"] for q in queries)
    # An account closed meanwhile: refused, and the game is as it was.
    user, version, action = plain_move(table, alice, bob)
    consumer, check = _socket_check(user, sessions[user.pk])
    type(user).objects.filter(pk=user.pk).update(is_active=False)
    user_sockets.account_changed(user.pk)
    actions_before = GameAction.objects.count()
    with (
        pytest.raises(AccountRefused) as refused,
        user_sockets.offer_guard(user.pk, consumer.generation, check),
    ):
        services.game_act(table_id=table.pk, user=user, version=version, action=action)
    assert refused.value.refusal.code == 4003
    assert Game.objects.get(table=table).version == version
    assert GameAction.objects.count() == actions_before


def test_a_prepared_statement_the_server_lost_sends_the_move_the_usual_way(
    alice: Any, bob: Any
) -> None:
    """As behind a pooler that hands the statement's name to another server connection."""
    table = started_table(alice, bob)
    move(table, alice, bob)
    move(table, alice, bob)  # prepared now
    # The server no longer knows the names psycopg prepared the statements under.
    names = connection.connection._prepared._names
    assert names
    for key in names:
        names[key] = b"_gone_" + names[key]
    seq_before = Table.objects.get(pk=table.pk).seq
    result, queries = move(table, alice, bob)
    assert any("FOR UPDATE" in q["sql"] for q in queries)  # refused, then the usual way
    assert result.seq == seq_before + 1 == Table.objects.get(pk=table.pk).seq
    assert result.version == Game.objects.get(table=table).version


def test_a_table_another_process_writes_to_is_read_afresh_instead_of_losing(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As at a table whose house player moves from the worker: after one lost statement each
    move reads the game first (no statement lost again), until moves in a row find nobody
    else wrote; then one statement again."""
    from tables import warm

    monkeypatch.setattr(warm, "SHARED_READS", 2)
    table = started_table(alice, bob)
    move(table, alice, bob)
    Game.objects.filter(table=table).update(deadline=None)  # another process writes
    _result, queries = move(table, alice, bob)
    assert queries[0]["sql"].startswith("WITH") and any("FOR UPDATE" in q["sql"] for q in queries)
    shapes = []
    for _ in range(4):
        Game.objects.filter(table=table).update(deadline=None)  # it writes before each move
        _result, queries = move(table, alice, bob)
        shapes.append([q["sql"].split()[0] for q in queries])
    # Read first, then the statement, which no longer loses (the usual way is never needed).
    assert shapes == [["SELECT", "WITH"]] * 4, shapes
    # It stops writing: two quiet moves read afresh, then what is kept is trusted again.
    quiet = [len(move(table, alice, bob)[1]) for _ in range(4)]
    assert quiet == [2, 2, 1, 1], quiet
