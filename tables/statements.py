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

import msgspec
from django.db import connections, models, router

try:  # PostgreSQL's adapter; only used there
    from psycopg.types.json import Jsonb
except ImportError:  # pragma: no cover - SQLite only
    Jsonb = None

_SQL: dict[tuple[Any, ...], str] = {}


def _connection(model: type[models.Model]) -> Any:
    return connections[router.db_for_write(model)]


_JSON_ENCODER = msgspec.json.Encoder()
_JSON_DECODER = msgspec.json.Decoder()


def _json_dumps(value: Any) -> str:
    return _JSON_ENCODER.encode(value).decode()


def _value(model: type[models.Model], name: str, value: Any, connection: Any) -> Any:
    field = model._meta.get_field(name)
    if isinstance(field, models.JSONField) and field.encoder is None and value is not None:
        # The same JSON the field writes (a game's state, an event's lists), by msgspec: the
        # standard library's encoder was a tenth of a move's database time.
        if connection.vendor == "postgresql":
            return Jsonb(value, dumps=_json_dumps)
        return _json_dumps(value)
    return field.get_db_prep_save(value, connection)


def _json_loads(value: Any, expression: Any, connection: Any) -> Any:
    """As JSONField.from_db_value (text that is not JSON comes back as it is), by msgspec."""
    if value is None or not isinstance(value, str | bytes):
        return value
    try:
        return _JSON_DECODER.decode(value)
    except msgspec.DecodeError:
        return value


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


def _converters(field: models.Field[Any, Any], connection: Any) -> list[tuple[Any, Any]]:
    """What the ORM would apply to this column's raw value (the backend's, then the field's),
    each with the column expression it is given."""
    column = field.get_col(field.model._meta.db_table)
    if isinstance(field, models.JSONField) and field.decoder is None:
        return [(_json_loads, column)]
    found = [*connection.ops.get_db_converters(column), *column.get_db_converters(connection)]
    return [(convert, column) for convert in found]


_SELECTS: dict[tuple[Any, ...], tuple[str, list[Any], list[Any], list[str], list[str]]] = {}


def select_locked(
    model: type[models.Model], related: str, where: dict[str, Any]
) -> models.Model | None:
    """SELECT one row of `model` with the row its foreign key `related` points at, both locked
    FOR UPDATE where the database can (as `select_for_update().select_related(related)` does),
    WHERE every `where` field equals its value. Built once per process; the instances come
    out as the ORM's would, the related one cached on the first."""
    connection = _connection(model)
    key = (connection.alias, model._meta.label, related, tuple(where))
    built = _SELECTS.get(key)
    if built is None:
        quote = connection.ops.quote_name
        foreign_key = model._meta.get_field(related)
        other = foreign_key.related_model
        assert isinstance(foreign_key, models.ForeignKey) and isinstance(other, type)
        own_fields = list(model._meta.concrete_fields)
        other_fields = list(other._meta.concrete_fields)
        own_table, other_table = quote(model._meta.db_table), quote(other._meta.db_table)
        columns = [f"{own_table}.{quote(f.column)}" for f in own_fields]
        columns += [f"{other_table}.{quote(f.column)}" for f in other_fields]
        sql = (
            f"SELECT {', '.join(columns)} FROM {own_table} INNER JOIN {other_table} ON "
            f"{own_table}.{quote(foreign_key.column)} = "
            f"{other_table}.{quote(foreign_key.target_field.column)} WHERE "
            + " AND ".join(
                f"{own_table}.{quote(model._meta.get_field(f).column)} = %s" for f in where
            )
            + " LIMIT 1"
        )
        if connection.features.has_select_for_update:
            sql += " FOR UPDATE"
        built = (
            sql,
            [_converters(f, connection) for f in own_fields],
            [_converters(f, connection) for f in other_fields],
            [f.attname for f in own_fields],
            [f.attname for f in other_fields],
        )
        _SELECTS[key] = built
    sql, own_converters, other_converters, own_names, other_names = built
    params = [_value(model, f, v, connection) for f, v in where.items()]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    values = list(row)
    for i, converters in enumerate(own_converters + other_converters):
        for convert, column in converters:
            values[i] = convert(values[i], column, connection)
    split = len(own_names)
    instance = model.from_db(connection.alias, own_names, values[:split])
    other_model = model._meta.get_field(related).related_model
    assert isinstance(other_model, type)
    target = other_model.from_db(connection.alias, other_names, values[split:])
    model._meta.get_field(related).set_cached_value(instance, target)  # type: ignore[union-attr]
    return instance
