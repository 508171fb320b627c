"""A change's statements (and those of an Idempotency-Key's row, which a keyed change also
runs), compiled once and sent as the driver's own SQL.

A change runs two statements on PostgreSQL (its game's row read, then the row rewritten
and its event appended in one) and three on SQLite. Beside the round trip (none on
SQLite), most of what each costs is SQLAlchemy's per-call work (the compiled form looked
up in its cache, an execution context, each value bound) rather than the database's.
Each statement is still declared once, as Core, in ``statements.py``; it is compiled
once for the connection's dialect, and each call only converts its values with their
columns' own types as the dialect implements them (``dialect_impl``, then
``bind_processor`` and ``result_processor``: the JSON and timestamp forms Core would
write and read) before ``exec_driver_sql``. What is stored and read is the same as
through Core (tests/persistence/test_driver_statements.py).

On SQLite the statement goes to the sqlite3 connection itself, as its ``BEGIN`` does
(``connections.begin_on_sqlite``): ``exec_driver_sql`` still wraps each call in an
execution context, a cursor result and its metadata, for a statement whose SQL, values and
row this module already has in the driver's form (bench/RESULTS.md). Its errors are the
driver's own, which ``errors.py`` reads as it reads wrapped ones; nothing listens to the
engine's statements (tests/statements.py counts these where they are sent). PostgreSQL
keeps SQLAlchemy's execution, whose error handling invalidates a connection the server
dropped.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast
from weakref import WeakKeyDictionary

from sqlalchemy import Connection, Dialect, Select
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement

from app.persistence.connections import sqlite_driver
from app.persistence.statements import (
    EVENT_APPEND,
    GAME_CHANGE,
    GAME_CHANGE_HOURLY,
    GAME_INSERT,
    GAME_STATE,
    GAME_STATE_LOCKED,
    GAME_VERSION,
    KEY_COMPLETE,
    KEY_EXPIRED,
    KEY_LEASE,
    KEY_RELEASE,
    KEY_ROW,
    KEY_ROW_LOCKED,
    KEY_ROW_LOCKED_NOWAIT,
    STORE_CHANGE,
    key_claim,
)

Processor = Callable[[Any], Any] | None


class DriverStatement:
    """One Core statement compiled for one dialect: its SQL and how to bind its values."""

    def __init__(self, statement: ClauseElement, dialect: Dialect) -> None:
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect))
        self.sql = str(compiled)
        binds = compiled.binds
        # Positional (SQLite's ?) in the statement's order, else by name (psycopg's).
        self._positional = compiled.positiontup is not None
        self.to_the_driver = dialect.name == "sqlite"
        names = compiled.positiontup if compiled.positiontup is not None else list(binds)
        self._parameters: tuple[tuple[str, Processor], ...] = tuple(
            (name, binds[name].type.dialect_impl(dialect).bind_processor(dialect)) for name in names
        )

    def parameters(self, values: Mapping[str, Any]) -> tuple[Any, ...] | dict[str, Any]:
        """``values`` as the driver takes them, each in the form its column stores."""
        if self._positional:
            return tuple(
                values[name] if process is None else process(values[name])
                for name, process in self._parameters
            )
        return {
            name: values[name] if process is None else process(values[name])
            for name, process in self._parameters
        }

    def execute(self, connection: Connection, values: Mapping[str, Any]) -> Any:
        """The statement run on ``connection``: the driver's cursor on SQLite, else
        SQLAlchemy's result (both have ``rowcount``; a row is read by ``first_row``)."""
        if self.to_the_driver:
            return sqlite_driver(connection).execute(self.sql, self.parameters(values))
        return connection.exec_driver_sql(self.sql, self.parameters(values))

    def first_row(self, connection: Connection, values: Mapping[str, Any]) -> Any:
        """The statement's first row (a tuple of the driver's values), or None."""
        result = self.execute(connection, values)
        return result.fetchone() if self.to_the_driver else result.first()


class DriverSelect(DriverStatement):
    """A ``SELECT`` whose row comes back with each column read as Core reads it."""

    def __init__(self, statement: Select[Any], dialect: Dialect) -> None:
        super().__init__(statement, dialect)
        columns = statement.selected_columns
        self._columns: tuple[Processor, ...] = tuple(
            column.type.dialect_impl(dialect).result_processor(dialect, None) for column in columns
        )
        # Read by attribute, as a Core row is (row.version).
        self._row: Any = namedtuple("Row", [column.key for column in columns])  # type: ignore[misc]

    def one_or_none(self, connection: Connection, values: Mapping[str, Any]) -> Any:
        """The one row (its columns by name) or None."""
        row = self.first_row(connection, values)  # by the game's key: one row at most
        if row is None:
            return None
        return self._row._make(
            value if process is None else process(value)
            for process, value in zip(self._columns, row, strict=True)
        )


class ChangeStatements:
    """What a change runs on one engine (its dialect carries its JSON writer): its game's
    row read, then the row rewritten and its event appended, in one statement on
    PostgreSQL (``STORE_CHANGE``, by whether it announces the change), in two elsewhere;
    and a game's creation, its row and first event. Only the statements of the engine's
    own database are compiled."""

    def __init__(self, dialect: Dialect) -> None:
        self.insert = DriverStatement(GAME_INSERT, dialect)
        # An event appended on its own (a creation's first; on SQLite every change's).
        self.append = DriverStatement(EVENT_APPEND, dialect)
        self.state = DriverSelect(GAME_STATE, dialect)
        self.state_locked = DriverSelect(GAME_STATE_LOCKED, dialect)
        # A keyed change's check of its token reads the version and token hashes alone.
        self.version = DriverSelect(GAME_VERSION, dialect)
        self._in_one_statement = dialect.name == "postgresql"
        if self._in_one_statement:
            self._store = {
                announce: DriverStatement(statement, dialect)
                for announce, statement in STORE_CHANGE.items()
            }
        else:
            self._change = DriverStatement(GAME_CHANGE, dialect)
            self._change_hourly = DriverStatement(GAME_CHANGE_HOURLY, dialect)

    def store_statement(self, *, announce: bool) -> DriverStatement:
        """PostgreSQL's one statement that stores a change (for a driver connection of
        its own: ``pg_loop_changes.py``)."""
        return self._store[announce]

    def store(
        self,
        connection: Connection,
        values: Mapping[str, Any],
        *,
        announce: bool,
        new_hour: bool = True,
    ) -> bool:
        """Store the change (the names ``store_change`` binds; with ``announce``, also
        ``channel`` and ``payload`` of its ``pg_notify``, which only PostgreSQL sends),
        unless the game is no longer at ``read_version``: whether it was stored. Without
        ``new_hour`` (the row holds the change's hour already) SQLite leaves the row's
        hour, and so its index, alone."""
        if self._in_one_statement:
            return self._store[announce].first_row(connection, values) is not None
        change = self._change_hourly if new_hour else self._change
        if change.execute(connection, values).rowcount != 1:
            return False
        self.append.execute(connection, values)
        return True


class KeyStatements:
    """What a request with an Idempotency-Key runs on its key's row, on one engine: read
    it (locked, on PostgreSQL, and without waiting), claim it, extend its lease, complete
    it with the answer, release it; and its row's deletion, once expired, before a claim."""

    def __init__(self, dialect: Dialect) -> None:
        self.row = DriverSelect(KEY_ROW, dialect)
        self.row_locked = DriverSelect(KEY_ROW_LOCKED, dialect)
        self.row_locked_nowait = DriverSelect(KEY_ROW_LOCKED_NOWAIT, dialect)
        self.claim = DriverStatement(key_claim(dialect), dialect)
        self.lease = DriverStatement(KEY_LEASE, dialect)
        self.complete = DriverStatement(KEY_COMPLETE, dialect)
        self.release = DriverStatement(KEY_RELEASE, dialect)
        self.expired = DriverStatement(KEY_EXPIRED, dialect)


_Statements = TypeVar("_Statements", ChangeStatements, KeyStatements)
_COMPILED: WeakKeyDictionary[Dialect, dict[type[Any], Any]] = WeakKeyDictionary()


def change_statements(dialect: Dialect) -> ChangeStatements:
    """The change's statements for the engine of ``dialect`` (each engine has its own),
    compiled on first use: ``Database`` asks when it makes its engine."""
    return _compiled(ChangeStatements, dialect)


def key_statements(dialect: Dialect) -> KeyStatements:
    """The statements of Idempotency-Keys for the engine of ``dialect``."""
    return _compiled(KeyStatements, dialect)


def _compiled(kind: type[_Statements], dialect: Dialect) -> _Statements:
    by_kind = _COMPILED.setdefault(dialect, {})
    statements = by_kind.get(kind)
    if statements is None:
        statements = by_kind[kind] = kind(dialect)
    return cast(_Statements, statements)
