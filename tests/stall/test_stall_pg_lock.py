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
    assert_reads_served_and_writers_refused,
    assert_writes_again,
    client,
    running_server,
    timed,
    two_games,
    writes_and_reads,
)

pytestmark = pytest.mark.postgres


def test_a_locked_game_row_holds_up_no_other_game(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_server(monkeypatch, postgres_url, tmp_path, "pg-lock") as server:
        asyncio.run(_scenario(server.base_url, postgres_url))


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
        assert_reads_served_and_writers_refused(writes, reads, ready)
        await assert_writes_again(http, stuck)
