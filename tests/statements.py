"""Counting the SQL statements the service sends, for the tests that pin them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, event
from sqlalchemy.engine import Connection

from app.persistence.connections import sqlite_begin_statement
from app.persistence.driver_statements import DriverStatement
from app.persistence.libpq_statements import LibpqStatement, Session
from app.persistence.sqlite_reads import SqliteLoopReads


@contextmanager
def count_statements(engine: Engine) -> Iterator[list[str]]:
    """Record every SQL statement the engine sends (an executemany counts once), and every
    one that bypasses the engine: on psycopg's async connections and on SQLite's loop
    connection (the reads of app/persistence/async_reads.py and sqlite_reads.py), and a
    change's statements sent to SQLite's driver (driver_statements.py). The ``BEGIN``
    psycopg sends itself before the first statement of a transaction counts too: it is a
    round trip, as SQLite's ``BEGIN`` is a statement (``COMMIT`` counts on neither)."""
    statements: list[str] = []

    def record(
        conn: Connection,
        cursor: Any,
        statement: str,
        parameters: Any,
        context: Any,
        executemany: bool,
    ) -> None:
        dbapi = conn.connection.dbapi_connection
        if isinstance(dbapi, psycopg.Connection) and _begins_first(dbapi):
            statements.append("BEGIN")  # what psycopg sends before the statement
        statements.append(statement)

    def record_begin(conn: Connection) -> None:
        # SQLite's BEGIN goes to the driver directly (app/persistence/connections.py).
        if conn.dialect.name == "sqlite":
            statements.append(sqlite_begin_statement(conn))

    # The cursor's: every async statement of psycopg's goes through it (a connection's own
    # execute makes a cursor and calls it).
    execute = psycopg.AsyncCursor.execute

    async def record_async(
        self: psycopg.AsyncCursor[Any], query: Any, *args: Any, **kw: Any
    ) -> Any:
        statements.append(str(query))
        return await execute(self, query, *args, **kw)

    # The event loop's reads and changes go through libpq's calls
    # (app/persistence/libpq_statements.py); a statement's preparation, once per
    # connection, is not counted.
    first_row = Session.first_row

    async def record_libpq(self: Session, statement: LibpqStatement, values: Any) -> Any:
        statements.append(statement.sql)
        return await first_row(self, statement, values)

    on_the_loop = SqliteLoopReads._on_the_loop

    def record_on_the_loop(self: SqliteLoopReads, statement: str, game_id: str) -> Any:
        # A read the loop may not do is read again through the engine: it counts there.
        read = on_the_loop(self, statement, game_id)
        if read[0]:
            statements.append(statement)
        return read

    execute_change = DriverStatement.execute

    def record_change(self: DriverStatement, connection: Connection, values: Any) -> Any:
        # A change's statements on SQLite go to the driver itself (driver_statements.py);
        # elsewhere they pass through the engine and count there.
        if self.to_the_driver:
            statements.append(self.sql)
        return execute_change(self, connection, values)

    event.listen(engine, "before_cursor_execute", record)
    event.listen(engine, "begin", record_begin)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(psycopg.AsyncCursor, "execute", record_async)
        patch.setattr(Session, "first_row", record_libpq)
        patch.setattr(SqliteLoopReads, "_on_the_loop", record_on_the_loop)
        patch.setattr(DriverStatement, "execute", record_change)
        try:
            yield statements
        finally:
            event.remove(engine, "before_cursor_execute", record)
            event.remove(engine, "begin", record_begin)


def _begins_first(connection: psycopg.Connection[Any]) -> bool:
    """Whether psycopg sends ``BEGIN`` before the next statement on ``connection``."""
    idle = connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    return not connection.autocommit and idle
