"""A read through libpq's own calls (app/persistence/libpq_reads.py): the row psycopg's
cursor would give, the error psycopg would raise, and a connection the server closes
while idle left alone by the event loop."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
import pytest

from app.persistence.async_reads import AsyncGameRows
from app.persistence.connections import libpq_conninfo
from app.persistence.db import Database, DatabaseTimeouts, is_unavailable_error
from app.persistence.libpq_reads import LibpqRead, Session
from app.services.storage import StorageUnavailable

# One value of each kind a read's columns hold, and a few more.
COLUMNS = (
    "WITH given AS (SELECT CAST(%(value)s AS text) AS t)"
    " SELECT CAST(t AS integer) AS n, t AS text, NULL AS nothing,"
    ' CAST(\'{"a": [1, "é"], "b": null}\' AS json) AS document,'
    " CAST(2 AS bigint) ^ 40 AS power, CAST(2 AS bigint) * 1099511627776 AS big,"
    " true AS yes, CAST('abc' AS varchar(64)) AS hash FROM given"
)


def test_a_libpq_read_binds_its_one_value_once_and_nothing_else() -> None:
    read = LibpqRead("SELECT a FROM t WHERE id = %(game_id)s", "game_id")
    assert read.command == b"SELECT a FROM t WHERE id = $1"
    for sql in (
        "SELECT a FROM t WHERE id = %(other)s",
        "SELECT a FROM t WHERE id = %(game_id)s OR id = %(game_id)s",
        "SELECT a FROM t WHERE id = %(game_id)s AND b = %(other)s",
        "SELECT a FROM t WHERE id = %(game_id)s AND b LIKE 'x%%'",
    ):
        with pytest.raises(ValueError, match="binds"):
            LibpqRead(sql, "game_id")


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
@pytest.mark.postgres
def test_a_read_loads_each_column_as_psycopgs_cursor_does(database_url: str) -> None:
    async def both() -> tuple[Any, Any]:
        connection = await psycopg.AsyncConnection.connect(
            libpq_conninfo(database_url), autocommit=True
        )
        session = Session(connection)
        try:
            by_libpq = await session.read(LibpqRead(COLUMNS, "value"), "7")
            again = await session.read(LibpqRead(COLUMNS, "value"), "7")  # prepared already
            by_cursor = await session.execute(COLUMNS, {"value": "7"})
            assert again == by_libpq
            return by_libpq, by_cursor
        finally:
            session.close()

    by_libpq, by_cursor = asyncio.run(both())
    assert by_libpq == by_cursor
    assert [type(value) for value in by_libpq] == [type(value) for value in by_cursor]


def _rows(database: Database, **timeouts: int) -> AsyncGameRows:
    return AsyncGameRows(database.url, size=1, timeouts=DatabaseTimeouts(**timeouts))


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
@pytest.mark.postgres
def test_a_read_the_server_refuses_raises_psycopgs_error_and_the_next_one_is_served(
    migrated_database: Database,
) -> None:
    async def scenario() -> None:
        rows = _rows(migrated_database)
        try:
            with pytest.raises(psycopg.errors.InvalidTextRepresentation) as raised:
                await rows._fetch_one(LibpqRead("SELECT CAST(%(v)s AS integer)", "v"), "x")
            assert not is_unavailable_error(raised.value)  # an answer, not an outage
            assert await rows.version("0" * 32) is None
        finally:
            await rows.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
@pytest.mark.postgres
def test_a_read_past_the_statement_bound_is_an_outage(migrated_database: Database) -> None:
    sleep = LibpqRead("SELECT pg_sleep(CAST(%(v)s AS float))", "v")

    async def scenario() -> None:
        rows = AsyncGameRows(
            migrated_database.url,
            size=1,
            timeouts=DatabaseTimeouts(statement_ms=200, hold_ms=5000),
        )
        try:
            with pytest.raises(StorageUnavailable, match="within the service's bound"):
                await rows._fetch_one(sleep, "2")
        finally:
            await rows.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
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

    async def scenario() -> None:
        nonlocal wakes
        rows = _rows(migrated_database)
        try:
            await rows.version("0" * 32)
            wakes = 0
            (session,) = rows._idle
            assert session._watched
            with psycopg.connect(postgres_server_url, autocommit=True) as admin:
                admin.execute(
                    "SELECT pg_terminate_backend(%s)", (session.connection.info.backend_pid,)
                )
            await asyncio.sleep(0.3)
            assert not session._watched
            assert wakes == 1
            assert await rows.version("0" * 32) is None  # on a new connection
        finally:
            await rows.close()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Session, "_wake", counted)
        asyncio.run(scenario())
