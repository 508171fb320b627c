"""The reads on the event loop on SQLite (app/persistence/sqlite_reads.py): the same rows
as the repository reads, no thread for a read that does not wait, and a read that would
wait (a lock it may not take at once) or fails read again on the threadpool, within the
database's bounds, while the loop goes on serving."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from typing import Any

import pytest
from sqlalchemy.engine import make_url

import app.persistence.sqlite_reads as sqlite_reads
from app.persistence.db import Database, DatabaseTimeouts
from app.persistence.sqlite_reads import SqliteLoopReads
from app.services.storage import StorageUnavailable
from tests.persistence.conftest import GameFactory, loop_reads, repository_reads, store
from tests.support.loop_turns import LoopTurns

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


class _Threads:
    """Counts the reads handed to the threadpool."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        run_sync = sqlite_reads.to_thread.run_sync

        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return await run_sync(*args, **kwargs)

        monkeypatch.setattr(sqlite_reads.to_thread, "run_sync", counted)


def _rows(database: Database) -> SqliteLoopReads:
    rows = database.async_game_rows(size=1)
    assert isinstance(rows, SqliteLoopReads)
    return rows


def test_sqlite_loop_reads_return_what_the_repository_reads_without_a_thread(
    migrated_database: Database, make_game: GameFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = make_game(players=4)
    store(migrated_database, game)
    expected = repository_reads(migrated_database, game.id)
    threads = _Threads(monkeypatch)
    assert asyncio.run(loop_reads(_rows(migrated_database), game.id)) == expected
    assert threads.calls == 0


def test_sqlite_loop_read_that_would_wait_is_read_on_the_threadpool_within_the_lock_bound(
    database_url: str, make_game: GameFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = Database(database_url, timeouts=DatabaseTimeouts(lock_ms=300))
    game = make_game(players=2)
    store(database, game)
    threads = _Threads(monkeypatch)
    database.dispose()  # its connections (pooled and kept) would keep the holder out
    # A connection in exclusive locking mode that has written keeps every reader out,
    # WAL or not: the loop's read may not wait for it.
    holder = sqlite3.connect(str(make_url(database_url).database), isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("UPDATE games SET updated_at = updated_at")

    async def read_while_ticking() -> tuple[BaseException | None, int, float]:
        rows = _rows(database)
        started = time.monotonic()
        failure: BaseException | None = None
        async with LoopTurns(0.01) as turns:
            try:
                await rows.document(game.id)
            except StorageUnavailable as exc:
                failure = exc
            finally:
                elapsed = time.monotonic() - started
                await rows.close()
        return failure, turns.count, elapsed

    try:
        failure, ticks, elapsed = asyncio.run(read_while_ticking())
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        database.dispose()
    assert threads.calls == 1
    assert isinstance(failure, StorageUnavailable)  # the threadpool's bound, its error
    assert 0.25 < elapsed < 2.0
    assert ticks >= 10  # the loop served on while the thread waited


@pytest.mark.parametrize("what", ["version", "state"])
def test_sqlite_loop_read_after_an_error_reads_on_the_threadpool_and_makes_a_new_connection(
    migrated_database: Database, make_game: GameFactory, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    game = make_game(players=2)
    store(migrated_database, game)
    threads = _Threads(monkeypatch)

    async def read() -> list[Any]:
        rows = _rows(migrated_database)
        try:
            read = getattr(rows, what)
            first = await read(game.id)
            rows._local.connection.close()  # as if the loop's connection broke
            return [first, await read(game.id), await read(game.id)]
        finally:
            await rows.close()

    first, after_error, next_read = asyncio.run(read())
    assert first == after_error == next_read
    assert threads.calls == 1  # the failed read only; the next is on a new connection
