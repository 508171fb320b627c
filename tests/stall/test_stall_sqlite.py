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
    LOCK_DETAILS,
    RETRY_AFTER,
    client,
    start_server,
    timed,
    two_games,
    writes_and_reads,
)


def test_a_held_sqlite_write_lock_blocks_no_reader_and_writers_end_in_503(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "stall.db"
    server = start_server(monkeypatch, f"sqlite:///{path}", tmp_path, "sqlite-stall")
    try:
        asyncio.run(_scenario(server.base_url, path))
    finally:
        server.stop()


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
        # Readers go through WAL at once (an idle machine: ~10 ms; 2 s is a generous bound).
        for read in reads:
            assert read.status == 200 and read.seconds < 2.0, report
        assert ready.status == 200 and ready.seconds < 2.0, report
        # Writers: 503 within DB_LOCK_TIMEOUT_MS 2 s + DB_POOL_TIMEOUT_MS 2 s (waiting for
        # a write slot), 10 s allowing for the load.
        for write in writes:
            assert write.status == 503 and write.slug == "service-unavailable", report
            assert write.retry_after == RETRY_AFTER, report
            assert write.detail.startswith(LOCK_DETAILS), (write.detail, report)
            assert write.seconds < 10.0, report
        # The lock is gone: the same process writes again.
        after = await timed(
            http,
            "write after",
            "PUT",
            f"{stuck.url}/players/{stuck.player_ids[0]}/faith",
            json={"faith": 3},
            headers=stuck.auth,
        )
        assert after.status == 200, after
