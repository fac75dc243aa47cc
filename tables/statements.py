"""The statements every move makes, written once per process instead of compiled per move.

A move is one transaction of the same few statements (update the game where its version is the
one the player saw, append the action, raise the table's event number where it is the one read,
keep the events). Through the ORM each is compiled afresh every time, about a fifth of a move's
database time; here each statement's SQL is built once from the models' own metadata (table and
column names, quoting) and its values are converted by the models' own fields, so it stays
right on SQLite and PostgreSQL alike. Rows written here send no model signals (none are
connected to these models).
"""

from __future__ import annotations

from typing import Any

from django.db import connections, models, router

_SQL: dict[tuple[Any, ...], str] = {}


def _connection(model: type[models.Model]) -> Any:
    return connections[router.db_for_write(model)]


def _value(model: type[models.Model], name: str, value: Any, connection: Any) -> Any:
    return model._meta.get_field(name).get_db_prep_save(value, connection)


def update_where(model: type[models.Model], changes: dict[str, Any], where: dict[str, Any]) -> int:
    """UPDATE model SET changes WHERE every `where` field equals its value; the rows changed."""
    connection = _connection(model)
    key = ("update", connection.alias, model._meta.label, tuple(changes), tuple(where))
    sql = _SQL.get(key)
    if sql is None:
        quote = connection.ops.quote_name
        column = {f: quote(model._meta.get_field(f).column) for f in (*changes, *where)}
        sql = (
            f"UPDATE {quote(model._meta.db_table)} SET "
            + ", ".join(f"{column[f]} = %s" for f in changes)
            + " WHERE "
            + " AND ".join(f"{column[f]} = %s" for f in where)
        )
        _SQL[key] = sql
    params = [_value(model, f, v, connection) for f, v in changes.items()]
    params += [_value(model, f, v, connection) for f, v in where.items()]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return int(cursor.rowcount)


def insert_rows(model: type[models.Model], rows: list[dict[str, Any]]) -> None:
    """INSERT rows (dicts with the same fields, in the same order) in one statement."""
    if not rows:
        return
    connection = _connection(model)
    fields = tuple(rows[0])
    key = ("insert", connection.alias, model._meta.label, fields, len(rows))
    sql = _SQL.get(key)
    if sql is None:
        quote = connection.ops.quote_name
        columns = ", ".join(quote(model._meta.get_field(f).column) for f in fields)
        one = "(" + ", ".join(["%s"] * len(fields)) + ")"
        sql = f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES " + ", ".join(
            [one] * len(rows)
        )
        _SQL[key] = sql
    params = [_value(model, f, row[f], connection) for row in rows for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
