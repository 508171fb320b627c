"""A statement sent through libpq's own calls (app/persistence/libpq_statements.py): the
values psycopg's cursor would send, the row it would give, the error it would raise, and
a connection the server closes while idle left alone by the event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Json

from app.persistence.async_reads import AsyncGameRows
from app.persistence.connections import libpq_conninfo
from app.persistence.db import Database, DatabaseTimeouts, is_unavailable_error
from app.persistence.libpq_statements import LibpqStatement, Session
from app.services.storage import StorageUnavailable

Scenario = Callable[[AsyncGameRows], Awaitable[None]]
ON_POSTGRES = pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
# One value of each kind a read's columns hold, and a few more.
AT = datetime(2026, 12, 7, 14, 30, 1, 123456, tzinfo=UTC)
COLUMNS = (
    "SELECT CAST(%(value)s AS integer) AS n, CAST(%(value)s AS text) AS text, NULL AS nothing,"
    " CAST(%(document)s AS json) AS document, CAST(%(n)s AS bigint) AS big,"
    " CAST(2 AS bigint) ^ 40 AS power, true AS yes, CAST('abc' AS varchar(64)) AS hash,"
    " CAST(%(at)s AS timestamp with time zone) AS at"
)


def test_a_statement_numbers_its_named_values_once_each() -> None:
    statement = LibpqStatement(
        "SELECT a FROM t WHERE id = %(game_id)s AND b = %(b)s OR c = %(game_id)s"
    )
    assert statement.command == b"SELECT a FROM t WHERE id = $1 AND b = $2 OR c = $1"
    assert statement.names == ("game_id", "b")
    for sql in ("SELECT a FROM t WHERE id = %s", "SELECT a FROM t WHERE b LIKE 'x%%'"):
        with pytest.raises(ValueError, match="placeholders only"):
            LibpqStatement(sql)


@ON_POSTGRES
@pytest.mark.postgres
def test_a_statement_sends_and_loads_each_value_as_psycopgs_cursor_does(
    database_url: str,
) -> None:
    values = {"value": "7", "document": Json({"a": [1, "é"], "b": None}), "at": AT, "n": 2**40}

    async def both() -> tuple[Any, Any]:
        conninfo = libpq_conninfo(database_url)
        connection = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
        other = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
        session = Session(connection)
        try:
            by_libpq = await session.first_row(LibpqStatement(COLUMNS), values)
            again = await session.first_row(LibpqStatement(COLUMNS), values)  # prepared
            assert again == by_libpq
            cursor = await other.execute(COLUMNS, values)
            return by_libpq, await cursor.fetchone()
        finally:
            session.close()
            await other.close()

    by_libpq, by_cursor = asyncio.run(both())
    assert by_libpq == by_cursor
    assert [type(value) for value in by_libpq] == [type(value) for value in by_cursor]
    assert by_libpq[3] == {"a": [1, "é"], "b": None} and by_libpq[8] == AT


def _run(database: Database, scenario: Scenario, **timeouts: int) -> None:
    """``scenario`` on the event loop's reads of ``database`` (one connection), closed
    after."""

    async def run() -> None:
        rows = AsyncGameRows(database.url, size=1, timeouts=DatabaseTimeouts(**timeouts))
        try:
            await scenario(rows)
        finally:
            await rows.close()

    asyncio.run(run())


@ON_POSTGRES
@pytest.mark.postgres
def test_a_read_the_server_refuses_raises_psycopgs_error_and_the_next_one_is_served(
    migrated_database: Database,
) -> None:
    async def scenario(rows: AsyncGameRows) -> None:
        with pytest.raises(psycopg.errors.InvalidTextRepresentation) as raised:
            await rows.fetch_one("SELECT CAST(%(v)s AS integer)", {"v": "x"})
        assert not is_unavailable_error(raised.value)  # an answer, not an outage
        assert await rows.version("0" * 32) is None

    _run(migrated_database, scenario)


@ON_POSTGRES
@pytest.mark.postgres
def test_a_read_past_the_statement_bound_is_an_outage(migrated_database: Database) -> None:

    async def scenario(rows: AsyncGameRows) -> None:
        with pytest.raises(StorageUnavailable, match="within the service's bound"):
            await rows.fetch_one("SELECT pg_sleep(CAST(%(v)s AS float))", {"v": "2"})

    _run(migrated_database, scenario, statement_ms=200, hold_ms=5000)


@ON_POSTGRES
@pytest.mark.postgres
def test_a_connection_the_server_closes_while_idle_is_no_longer_watched(
    migrated_database: Database, postgres_server_url: str
) -> None:
    """Its socket turns readable for good: watched, it would wake the loop at every turn."""
    wakes = 0
    wake = Session._wake

    def counted(session: Session) -> None:
        nonlocal wakes
        wakes += 1
        wake(session)

    async def scenario(rows: AsyncGameRows) -> None:
        nonlocal wakes
        await rows.version("0" * 32)
        wakes = 0
        (session,) = rows._idle
        assert session._watched
        with psycopg.connect(postgres_server_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (session.connection.info.backend_pid,))
        await asyncio.sleep(0.3)
        assert not session._watched
        # Its last words (the server's FATAL message), then its end: not a wake at every
        # turn of the loop for 0.3 s.
        assert 1 <= wakes <= 3
        assert await rows.version("0" * 32) is None  # on a new connection

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Session, "_wake", counted)
        _run(migrated_database, scenario)


@ON_POSTGRES
@pytest.mark.postgres
def test_a_value_holding_a_nul_is_refused_not_cut_short(migrated_database: Database) -> None:
    """libpq reads a text value up to its first NUL: sent as it is, "a\\0b" would read as
    "a". psycopg's dumper refuses it, as through its cursor."""

    async def scenario(rows: AsyncGameRows) -> None:
        with pytest.raises(psycopg.DataError, match="NUL"):
            await rows.fetch_one("SELECT CAST(%(v)s AS text)", {"v": "a\x00b"})
        assert await rows.fetch_one("SELECT CAST(%(v)s AS text)", {"v": "a"}) == ("a",)

    _run(migrated_database, scenario)


@ON_POSTGRES
@pytest.mark.postgres
def test_a_late_wake_with_nothing_to_read_leaves_the_socket_watched(
    migrated_database: Database,
) -> None:
    """Under load the loop often polls the socket once more before the statement it woke
    has read what came: that wake finds nothing and the socket stays registered, rather
    than being registered again by the next statement."""

    async def scenario(rows: AsyncGameRows) -> None:
        await rows.version("0" * 32)
        (session,) = rows._idle
        session._wake()  # as the loop calls it then: readable once, nothing waiting
        assert session._watched
        assert await rows.version("0" * 32) is None
        assert rows._idle == [session]

    _run(migrated_database, scenario)
