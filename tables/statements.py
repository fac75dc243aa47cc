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

import logging
import time
from collections.abc import Callable
from typing import Any

import msgspec
from django.db import DatabaseError, connections, models, router

try:  # PostgreSQL's adapter; only used there
    from psycopg import Cursor as PsycopgCursor
    from psycopg.errors import DivisionByZero
    from psycopg.types.json import Jsonb
except ImportError:  # pragma: no cover - SQLite only
    Jsonb = None
    DivisionByZero = ZeroDivisionError
    PsycopgCursor = None

log = logging.getLogger(__name__)

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


class _NotNull:
    def __repr__(self) -> str:
        return "NOT_NULL"


#: A `where` value: the column IS NOT NULL.
NOT_NULL: Any = _NotNull()


def _update_sql(
    connection: Any, model: type[models.Model], changes: Any, where: dict[str, Any]
) -> str:
    shape = tuple((f, v is NOT_NULL) for f, v in where.items())
    key = ("update", connection.alias, model._meta.label, tuple(changes), shape)
    sql = _SQL.get(key)
    if sql is None:
        quote = connection.ops.quote_name
        column = {f: quote(model._meta.get_field(f).column) for f in (*changes, *where)}
        sql = (
            f"UPDATE {quote(model._meta.db_table)} SET "
            + ", ".join(f"{column[f]} = %s" for f in changes)
            + " WHERE "
            + " AND ".join(
                f"{column[f]} IS NOT NULL" if not_null else f"{column[f]} = %s"
                for f, not_null in shape
            )
        )
        _SQL[key] = sql
    return sql


def _update_params(
    connection: Any, model: type[models.Model], changes: dict[str, Any], where: dict[str, Any]
) -> list[Any]:
    params = [_value(model, f, v, connection) for f, v in changes.items()]
    return params + [_value(model, f, v, connection) for f, v in where.items() if v is not NOT_NULL]


def update_where(model: type[models.Model], changes: dict[str, Any], where: dict[str, Any]) -> int:
    """UPDATE model SET changes WHERE every `where` field equals its value (or, given
    `NOT_NULL`, has one); the rows changed."""
    connection = _connection(model)
    sql = _update_sql(connection, model, changes, where)
    with connection.cursor() as cursor:
        cursor.execute(sql, _update_params(connection, model, changes, where))
        return int(cursor.rowcount)


def _insert_sql(connection: Any, model: type[models.Model], fields: tuple[str, ...], n: int) -> str:
    key = ("insert", connection.alias, model._meta.label, fields, n)
    sql = _SQL.get(key)
    if sql is None:
        quote = connection.ops.quote_name
        columns = ", ".join(quote(model._meta.get_field(f).column) for f in fields)
        one = "(" + ", ".join(["%s"] * len(fields)) + ")"
        sql = f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES " + ", ".join(
            [one] * n
        )
        _SQL[key] = sql
    return sql


def insert_rows(model: type[models.Model], rows: list[dict[str, Any]]) -> None:
    """INSERT rows (dicts with the same fields, in the same order) in one statement."""
    if not rows:
        return
    connection = _connection(model)
    fields = tuple(rows[0])
    sql = _insert_sql(connection, model, fields, len(rows))
    params = [_value(model, f, row[f], connection) for row in rows for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


#: A psycopg `prepare_threshold` no statement reaches by being run: only those run with
#: `prepare=True` are (client-side cursors, which Django's are, never prepare anyway).
_ONLY_WHEN_ASKED = 2**31 - 1


def _run_prepared(connection: Any, sql: str, params: list[Any]) -> Any:
    """Run one statement and fetch its one row, bound on the server and prepared, so that
    PostgreSQL parses and plans a warm move's statement once per connection instead of every
    time (Django's own cursors bind on the client, which never prepares, and Django turns
    psycopg's automatic preparing off). Errors are Django's, and the statement is in the query
    log, as through Django's own cursors."""
    connection.ensure_connection()
    connection.validate_thread_sharing()
    raw = connection.connection
    if raw.prepare_threshold is None:  # Django's "never": now "only what asks to be"
        raw.prepare_threshold = _ONLY_WHEN_ASKED
    started = time.monotonic()
    try:
        with connection.wrap_database_errors, PsycopgCursor(raw) as cursor:
            cursor.execute(sql, params, prepare=True)
            return cursor.fetchone()
    finally:
        if connection.queries_logged:
            connection.queries_log.append({"sql": sql, "time": f"{time.monotonic() - started:.3f}"})


class Lost(Exception):
    """A statement sent `alone` lost a compare-and-set: it changed nothing (it rolled back)."""


class Writes:
    """A transaction's writes sent together: on PostgreSQL one statement (a writable CTE), so a
    move's four writes (the game, its actions, the table's event number, the events) cost one
    round trip instead of four; elsewhere (SQLite has no writable CTEs, and its "round trip"
    is a function call) each is made as it is added.

    An update names the exception to raise when it changed no row (the compare-and-set lost);
    on PostgreSQL that is known, and raised, at `run()`, still inside the caller's transaction,
    which it rolls back whole (the CTE's other writes included). All the writes see the
    database as it was before the statement, so none may depend on another's effect; and a
    caller that reads what it wrote (or lets others read it) calls `run()` first.

    `Writes.alone(...)` (PostgreSQL, outside any transaction): the statement is a transaction
    of its own. Each update of a row named in `row_versions` (model -> the row's `xmin` as
    read) also compares the whole row's version, and returns its new one (`new_versions`);
    a compare-and-set that loses makes the statement fail (a division by its zero row count),
    so nothing of it is kept, and `run()` raises `Lost`, as it does for any other refusal of
    the statement by PostgreSQL. The statement is bound on the server and prepared.
    """

    def __init__(self, model: type[models.Model]) -> None:
        self.connection = _connection(model)
        self.deferred = self.connection.vendor == "postgresql"
        self._parts: list[tuple[str, list[Any], Callable[[], Exception] | None, bool]] = []
        self.row_versions: dict[type[models.Model], str] | None = None
        self.new_versions: dict[type[models.Model], str] = {}
        self._guarded: list[type[models.Model]] = []
        self._required: list[tuple[str, list[Any]]] = []

    @classmethod
    def alone(
        cls, model: type[models.Model], row_versions: dict[type[models.Model], str]
    ) -> Writes:
        writes = cls(model)
        if not writes.deferred or writes.connection.in_atomic_block:
            raise RuntimeError("Writes.alone is one statement on PostgreSQL, outside a transaction")
        writes.row_versions = row_versions
        return writes

    def require(self, count_sql: str, params: list[Any]) -> None:
        """Alone: the statement also fails (`Lost`) unless `count_sql` (a SELECT count(*))
        counts at least one row, as the statement sees the database."""
        assert self.row_versions is not None, "only a statement alone can require"
        self._required.append((count_sql, params))

    def update_where(
        self,
        model: type[models.Model],
        changes: dict[str, Any],
        where: dict[str, Any],
        *,
        or_raise: Callable[[], Exception] | None,
    ) -> None:
        """UPDATE model SET changes WHERE every `where` field equals its value (`update_where`);
        no row changed raises `or_raise()` (`Lost` when alone), unless it is None."""
        if not self.deferred:
            if not update_where(model, changes, where) and or_raise is not None:
                raise or_raise()
            return
        sql = _update_sql(self.connection, model, changes, where)
        params = _update_params(self.connection, model, changes, where)
        guarded = self.row_versions is not None and model in self.row_versions
        if guarded:
            assert self.row_versions is not None
            sql += " AND xmin = %s::xid"
            params.append(self.row_versions[model])
            self._guarded.append(model)
        self._parts.append((sql, params, or_raise, guarded))

    def insert_rows(self, model: type[models.Model], rows: list[dict[str, Any]]) -> None:
        if not self.deferred:
            insert_rows(model, rows)
            return
        if not rows:
            return
        fields = tuple(rows[0])
        sql = _insert_sql(self.connection, model, fields, len(rows))
        params = [_value(model, f, row[f], self.connection) for row in rows for f in fields]
        self._parts.append((sql, params, None, False))

    def run(self) -> None:
        """Send what was gathered (nothing, where each write was made as it came)."""
        parts, self._parts = self._parts, []
        if not parts:
            return
        alone = self.row_versions is not None
        required, self._required = self._required, []
        key = (
            "cte",
            self.connection.alias,
            alone,
            *(p[0] for p in parts),
            *(r[0] for r in required),
        )
        sql = _SQL.get(key)
        if sql is None:
            names = [f"w{i}" for i in range(len(parts))]
            returning = ["xmin::text AS v" if p[3] else "1 AS v" for p in parts]
            if alone:  # a lost compare-and-set fails the statement: nothing of it is kept
                counted = [
                    f"1 / (SELECT count(*) FROM {n})::int"
                    if p[2] is not None
                    else f"(SELECT count(*) FROM {n})"
                    for n, p in zip(names, parts, strict=True)
                ]
                counted += [f"1 / ({r[0]})::int" for r in required]
            else:
                counted = [f"(SELECT count(*) FROM {n})" for n in names]
            versions = [f"(SELECT v FROM {n})" for n, p in zip(names, parts, strict=True) if p[3]]
            sql = (
                "WITH "
                + ", ".join(
                    f"{n} AS ({p[0]} RETURNING {r})"
                    for n, p, r in zip(names, parts, returning, strict=True)
                )
                + " SELECT "
                + ", ".join(counted + versions)
            )
            _SQL[key] = sql
        params = [value for p in parts for value in p[1]]
        params += [value for r in required for value in r[1]]
        if alone:
            try:
                row = _run_prepared(self.connection, sql, params)
            except DatabaseError as exc:
                if isinstance(exc.__cause__, DivisionByZero):
                    raise Lost from exc
                if getattr(exc.__cause__, "sqlstate", None) is None:
                    raise  # the connection failed: whether the statement was kept is unknown
                # PostgreSQL refused the statement (a pooler that lost the prepared statement,
                # say): it kept nothing, so the move can be made the usual way.
                log.warning("a statement alone failed; made the usual way: %s", exc)
                raise Lost from exc
            versions_at = len(parts) + len(required)
            self.new_versions = dict(zip(self._guarded, row[versions_at:], strict=True))
            return
        with self.connection.cursor() as cursor:
            cursor.execute(sql, params)
            counts = cursor.fetchone()
        for (_sql, _params, or_raise, _guarded), count in zip(parts, counts, strict=True):
            if or_raise is not None and not count:
                raise or_raise()


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
    found = _select(model, related, where, lock=True, row_versions=False)
    return None if found is None else found[0]


def select_with_row_versions(
    model: type[models.Model], related: str, where: dict[str, Any]
) -> tuple[models.Model, str, str] | None:
    """PostgreSQL only: as `select_locked`, without the lock, and with each row's version (its
    `xmin`, the transaction that wrote it last; any write to the row changes it), for a
    compare-and-set on the whole row later (`Writes.alone`)."""
    return _select(model, related, where, lock=False, row_versions=True)


def _select(
    model: type[models.Model],
    related: str,
    where: dict[str, Any],
    *,
    lock: bool,
    row_versions: bool,
) -> tuple[models.Model, str, str] | None:
    connection = _connection(model)
    key = (connection.alias, model._meta.label, related, tuple(where), lock, row_versions)
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
        if row_versions:
            columns += [f"{own_table}.xmin::text", f"{other_table}.xmin::text"]
        sql = (
            f"SELECT {', '.join(columns)} FROM {own_table} INNER JOIN {other_table} ON "
            f"{own_table}.{quote(foreign_key.column)} = "
            f"{other_table}.{quote(foreign_key.target_field.column)} WHERE "
            + " AND ".join(
                f"{own_table}.{quote(model._meta.get_field(f).column)} = %s" for f in where
            )
            + " LIMIT 1"
        )
        if lock and connection.features.has_select_for_update:
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
    end = split + len(other_names)
    instance = model.from_db(connection.alias, own_names, values[:split])
    other_model = model._meta.get_field(related).related_model
    assert isinstance(other_model, type)
    target = other_model.from_db(connection.alias, other_names, values[split:end])
    model._meta.get_field(related).set_cached_value(instance, target)  # type: ignore[union-attr]
    if row_versions:
        return instance, values[end], values[end + 1]
    return instance, "", ""
