"""SQLite: a held write lock must not block readers (WAL), and writers that wait for it
get a 503 ``service-unavailable`` with Retry-After within DB_LOCK_TIMEOUT_MS (plus the
wait for a write slot), never a thread for ever. Against a real ``python -m app``."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest

from tests.stall.stall_support import (
    assert_reads_served_and_writers_refused,
    assert_writes_again,
    client,
    running_server,
    timed,
    two_games,
    writes_and_reads,
)


def test_a_held_sqlite_write_lock_blocks_no_reader_and_writers_end_in_503(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "stall.db"
    with running_server(monkeypatch, f"sqlite:///{path}", tmp_path, "sqlite-stall") as server:
        asyncio.run(_scenario(server.base_url, path))


async def _scenario(base_url: str, path: Path) -> None:
    async with client(base_url) as http:
        stuck, other = await two_games(http)
        # Another process holds the database's write lock (as a long migration, a backup
        # tool or a stuck writer would).
        holder = sqlite3.connect(path, isolation_level=None, timeout=0)
        try:
            holder.execute("BEGIN IMMEDIATE")
            holder.execute("UPDATE games SET version = version WHERE id = ?", (stuck.id,))
            started = time.monotonic()
            writes, reads = await writes_and_reads(http, stuck, other)
            ready = await timed(http, "readyz", "GET", "/readyz")
            held_for = time.monotonic() - started
        finally:
            holder.rollback()
            holder.close()
        report = "\n".join(map(str, [*writes, *reads, ready]))
        print(f"\nlock held {held_for:.1f}s\n{report}")
        assert_reads_served_and_writers_refused(writes, reads, ready)
        await assert_writes_again(http, stuck)
