"""The reads on the event loop (app/persistence/async_reads.py, PostgreSQL): the same rows
as the repository reads, and every bound of the threadpool path: at most ``size``
connections, a bounded wait for one, a bounded hold of one, and a stale pooled connection
replaced instead of failing a request."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
import pytest

from app.persistence.async_reads import AsyncGameRows
from app.persistence.db import Database, DatabaseBusy, DatabaseTimeouts, is_unavailable_error
from app.persistence.libpq_statements import Session
from app.persistence.watchdog import CUT_CONNECTIONS
from tests.persistence.conftest import GameFactory, loop_reads, repository_reads, store

# The reads on the event loop exist on PostgreSQL only.
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.parametrize("database_url", ["postgres"], indirect=True),
]

# A statement with the reads' one parameter, game_id (here the seconds it sleeps).
SLEEP = "SELECT pg_sleep(CAST(%(game_id)s AS float))"


async def _sleep(rows: AsyncGameRows, seconds: str) -> Any:
    return await rows.fetch_one(SLEEP, {"game_id": seconds})


def _rows(database: Database, size: int = 2, **timeouts: int) -> AsyncGameRows:
    return AsyncGameRows(database.url, size=size, timeouts=DatabaseTimeouts(**timeouts))


class _Connections:
    """Counts the connections AsyncGameRows opens, and how many are in use at once (by a
    read or by a change's statement)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.opened = 0
        self.in_use = 0
        self.most_in_use = 0
        connect = psycopg.AsyncConnection.connect

        async def counted_connect(*args: Any, **kwargs: Any) -> Any:
            self.opened += 1
            return await connect(*args, **kwargs)

        monkeypatch.setattr(psycopg.AsyncConnection, "connect", counted_connect)
        first_row = Session.first_row

        async def counted(session: Session, *args: Any) -> Any:
            self.in_use += 1
            self.most_in_use = max(self.most_in_use, self.in_use)
            try:
                await asyncio.sleep(0.01)  # let the other readers pile up
                return await first_row(session, *args)
            finally:
                self.in_use -= 1

        monkeypatch.setattr(Session, "first_row", counted)


def test_async_reads_return_what_the_repository_reads(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game = make_game(players=4)
    store(migrated_database, game)
    expected = repository_reads(migrated_database, game.id)
    assert asyncio.run(loop_reads(_rows(migrated_database), game.id)) == expected


def test_async_reads_open_at_most_size_connections_and_reuse_them(
    migrated_database: Database, make_game: GameFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = make_game(players=2)
    store(migrated_database, game)
    connections = _Connections(monkeypatch)

    async def read_many() -> None:
        rows = _rows(migrated_database, size=3)
        try:
            for _ in range(3):
                results = await asyncio.gather(*(rows.document(game.id) for _ in range(40)))
                assert all(r is not None and r.version == game.version for r in results)
        finally:
            await rows.close()

    asyncio.run(read_many())
    assert connections.opened == 3
    assert connections.most_in_use == 3


def test_waiting_for_a_connection_is_bounded_by_the_pool_timeout(
    migrated_database: Database,
) -> None:
    async def scenario() -> float:
        rows = _rows(migrated_database, size=1, pool_ms=300, hold_ms=5000)
        try:
            holder = asyncio.create_task(_sleep(rows, "1.5"))
            await asyncio.sleep(0.3)  # the holder has the only connection
            started = asyncio.get_running_loop().time()
            with pytest.raises(DatabaseBusy, match="connection is busy") as raised:
                await rows.document("0" * 32)
            waited = asyncio.get_running_loop().time() - started
            assert is_unavailable_error(raised.value)
            await holder
            return waited
        finally:
            await rows.close()

    waited = asyncio.run(scenario())
    assert 0.25 <= waited < 1.2


def test_holding_a_connection_is_bounded_and_the_connection_is_closed(
    migrated_database: Database,
    make_game: GameFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = make_game(players=2)
    store(migrated_database, game)
    connections = _Connections(monkeypatch)
    cut_before = CUT_CONNECTIONS._value.get()

    async def scenario() -> None:
        rows = _rows(migrated_database, size=1, hold_ms=400)
        try:
            await rows.document(game.id)  # one pooled connection
            started = asyncio.get_running_loop().time()
            with pytest.raises(DatabaseBusy, match="did not answer") as raised:
                await _sleep(rows, "3")
            assert asyncio.get_running_loop().time() - started < 1.5
            assert is_unavailable_error(raised.value)
            # The connection cut short is not reused: the next read opens a new one.
            assert (await rows.document(game.id)) is not None
        finally:
            await rows.close()

    asyncio.run(scenario())
    assert connections.opened == 2
    assert CUT_CONNECTIONS._value.get() == cut_before + 1


def test_connections_held_at_once_are_each_cut_at_their_own_deadline(
    migrated_database: Database,
) -> None:
    """One timer serves every connection in use: each is still cut when its own hold runs
    out, not before, whichever ends first and however many there are."""

    async def scenario() -> list[float]:
        rows = _rows(migrated_database, size=3, hold_ms=600)
        loop = asyncio.get_running_loop()
        started = loop.time()

        async def held(after: float, seconds: str) -> float:
            await asyncio.sleep(after)
            with pytest.raises(DatabaseBusy, match="did not answer"):
                await _sleep(rows, seconds)
            return loop.time() - started

        try:
            await rows.version("0" * 32)  # let the three connections be made in turn
            started = loop.time()
            ends = await asyncio.gather(held(0, "3"), held(0.3, "3"), held(0.45, "3"))
            # Held in between, and let go before its deadline: no cut.
            assert await _sleep(rows, "0.1") is not None
            return ends
        finally:
            await rows.close()

    first, second, third = asyncio.run(scenario())
    assert 0.55 <= first < 0.85
    assert 0.85 <= second < 1.15
    assert 1.0 <= third < 1.3


def test_a_pooled_connection_the_server_dropped_is_replaced_without_an_error(
    migrated_database: Database, make_game: GameFactory, postgres_server_url: str
) -> None:
    game = make_game(players=2)
    store(migrated_database, game)

    async def scenario() -> None:
        rows = _rows(migrated_database, size=1)
        try:
            await rows.document(game.id)
            (pooled,) = rows._idle
            # What a server restart does to an idle pooled connection.
            with psycopg.connect(postgres_server_url, autocommit=True) as admin:
                admin.execute(
                    "SELECT pg_terminate_backend(%s)", (pooled.connection.info.backend_pid,)
                )
            stored = await rows.document(game.id)
            assert stored is not None and stored.version == game.version
            assert rows._idle and rows._idle[0] is not pooled
        finally:
            await rows.close()

    asyncio.run(scenario())


def test_a_cancelled_read_gives_its_connection_back_closed(
    migrated_database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client that goes away mid-read cancels it: the connection, in an unknown state,
    is closed rather than pooled, and the slot is free for the next read."""
    connections = _Connections(monkeypatch)

    async def scenario() -> None:
        rows = _rows(migrated_database, size=1)
        try:
            read = asyncio.create_task(_sleep(rows, "2"))
            await asyncio.sleep(0.3)
            read.cancel()
            with pytest.raises(asyncio.CancelledError):
                await read
            assert rows._idle == []
            assert (await rows.version("0" * 32)) is None
        finally:
            await rows.close()

    asyncio.run(scenario())
    assert connections.opened == 2


def test_disposing_the_database_closes_its_reads_connections_without_their_loop(
    database_url: str, make_game: GameFactory
) -> None:
    """A test on an ASGI transport never runs the app's shutdown: disposing the database
    must still close what its reads opened, or each such test leaves connections open."""
    database = Database(database_url)
    game = make_game(players=2)
    store(database, game)
    rows = database.async_game_rows(size=2)
    assert isinstance(rows, AsyncGameRows)

    async def read() -> list[psycopg.AsyncConnection[Any]]:
        await asyncio.gather(rows.document(game.id), rows.version(game.id))
        return [session.connection for session in rows._idle]

    opened = asyncio.run(read())  # the loop is gone after this
    assert opened and not any(connection.closed for connection in opened)
    database.dispose()
    assert all(connection.closed for connection in opened)
