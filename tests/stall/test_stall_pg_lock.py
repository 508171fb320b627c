"""PostgreSQL: one game's row held locked by another session. Changes of that game end
in a 503 ``service-unavailable`` with Retry-After within DB_LOCK_TIMEOUT_MS (plus the wait
for a write slot); they never take every thread, so reads of *other* games go on at
once. Against a real ``python -m app`` on a throwaway database of the shared server."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import psycopg
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

pytestmark = pytest.mark.postgres


def test_a_locked_game_row_holds_up_no_other_game(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = start_server(monkeypatch, postgres_url, tmp_path, "pg-lock")
    try:
        asyncio.run(_scenario(server.base_url, postgres_url))
    finally:
        server.stop()


async def _scenario(base_url: str, database_url: str) -> None:
    async with client(base_url) as http:
        stuck, other = await two_games(http)
        with psycopg.connect(database_url) as holder:
            holder.execute("SELECT id FROM games WHERE id = %s FOR UPDATE", (stuck.id,))
            started = time.monotonic()
            writes, reads = await writes_and_reads(http, stuck, other)
            ready = await timed(http, "readyz", "GET", "/readyz")
            held_for = time.monotonic() - started
            holder.rollback()
        report = "\n".join(map(str, [*writes, *reads, ready]))
        print(f"\nrow locked {held_for:.1f}s\n{report}")
        # Reads of another game do not wait for the lock's writers (an idle machine:
        # ~10 ms; 2 s is a generous bound).
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
        after = await timed(
            http,
            "write after",
            "PUT",
            f"{stuck.url}/players/{stuck.player_ids[0]}/faith",
            json={"faith": 3},
            headers=stuck.auth,
        )
        assert after.status == 200, after
