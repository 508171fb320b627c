"""Whether an Idempotency-Key is held, read on the event loop (the reads of
app/persistence/sqlite_reads.py and async_reads.py): what a wrong recovery code sent with a
key asks before it is refused. The same answer as the repository's, and on SQLite the
same answer again from the threadpool when the loop may not read."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from app.persistence.db import Database
from app.persistence.sqlite_reads import SqliteLoopReads
from app.services.stored import KeyRecord, utcnow
from app.services.tokens import idempotency_key_hash


def _held_key(database: Database) -> str:
    key_hash = idempotency_key_hash("recovery:game", "a-key-that-is-held")
    now = utcnow()
    record = KeyRecord(key_hash, "r" * 64, "in_flight", now, now, now + timedelta(hours=1))
    with database.unit_of_work(write=True) as uow:
        uow.keys.insert(record)
    return key_hash


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
def test_a_held_key_is_found_and_another_is_not_on_the_loop(
    migrated_database: Database,
) -> None:
    held = _held_key(migrated_database)
    other = idempotency_key_hash("recovery:game", "a-key-nobody-sent")

    async def read() -> tuple[bool, bool]:
        rows = migrated_database.async_game_rows(size=1)
        assert rows is not None
        try:
            return await rows.key_stored(held), await rows.key_stored(other)
        finally:
            await rows.close()

    assert asyncio.run(read()) == (True, False)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_sqlite_reads_a_key_on_the_threadpool_when_the_loop_may_not(
    migrated_database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = _held_key(migrated_database)
    other = idempotency_key_hash("recovery:game", "a-key-nobody-sent")

    def refused(self: SqliteLoopReads, statement: str, parameter: Any) -> tuple[bool, Any]:
        return False, None  # as when the read would wait for a lock

    monkeypatch.setattr(SqliteLoopReads, "_on_the_loop", refused)

    async def read() -> tuple[bool, bool]:
        rows = migrated_database.async_game_rows(size=1)
        assert isinstance(rows, SqliteLoopReads)
        try:
            return await rows.key_stored(held), await rows.key_stored(other)
        finally:
            await rows.close()

    assert asyncio.run(read()) == (True, False)
