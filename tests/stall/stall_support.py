"""Helpers for the stuck-database tests: a live server with small bounds, timed requests,
freezing a private PostgreSQL cluster.

Timings are asserted with generous margins (several times what an idle machine needs),
because these tests run on a loaded 2-core CI machine: each bound checks "answers within
the documented bound instead of hanging", not speed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.integration.support import Game, Server, create_game, slug

# Small bounds so that each test ends in seconds (documented defaults are larger).
# STALL_DEFAULT_BOUNDS=1 runs the same tests with the service's defaults instead (for
# bench/STALL.md): every assertion holds for both.
SMALL_BOUNDS = {
    "DB_LOCK_TIMEOUT_MS": "2000",
    "DB_STATEMENT_TIMEOUT_MS": "2500",
    "DB_HOLD_TIMEOUT_MS": "3000",
    "DB_POOL_TIMEOUT_MS": "2000",
    "DB_CONNECT_TIMEOUT_S": "2",
    "READYZ_TIMEOUT_MS": "1000",
    "THREADPOOL_SIZE": "4",
    "MAX_CONCURRENT_WRITES": "3",
    "RETRY_AFTER_SECONDS": "1",
}
BOUNDS = {} if os.environ.get("STALL_DEFAULT_BOUNDS") == "1" else SMALL_BOUNDS
RETRY_AFTER = BOUNDS.get("RETRY_AFTER_SECONDS", "2")
# A change refused for a lock it waited for too long (PostgreSQL's lock_timeout applies
# to each lock a statement waits for, one after the other: behind another waiting change
# the statement_timeout may come first), or for want of a write slot.
LOCK_DETAILS = (
    "Another change held what this one needs",
    "The database did not finish this call within the service's bound",
    "3 changes are already waiting",
)
# The client gives up here: far past every bound above, so a timeout means "hung".
CLIENT_TIMEOUT_S = 20.0


@contextlib.contextmanager
def running_server(
    monkeypatch: pytest.MonkeyPatch, database_url: str, tmp_path: Path, name: str
) -> Iterator[Server]:
    """A ``python -m app`` with the stall bounds, ready, stopped on the way out."""
    for key in SMALL_BOUNDS:
        if key in BOUNDS:
            monkeypatch.setenv(key, BOUNDS[key])
        else:
            monkeypatch.delenv(key, raising=False)
    server = Server(database_url, tmp_path, name).start()
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


@dataclass
class Timed:
    what: str
    status: int | None  # None: no answer before CLIENT_TIMEOUT_S
    slug: str | None
    retry_after: str | None
    seconds: float
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.what}: {self.status} {self.slug} in {self.seconds:.2f}s"


async def timed(client: httpx.AsyncClient, what: str, method: str, url: str, **kw: object) -> Timed:
    start = time.monotonic()
    try:
        response = await client.request(method, url, **kw)  # type: ignore[arg-type]
    except httpx.TimeoutException:
        return Timed(what, None, None, None, time.monotonic() - start)
    return Timed(
        what,
        response.status_code,
        slug(response),
        response.headers.get("retry-after"),
        time.monotonic() - start,
        response.json().get("detail", "") if slug(response) else "",
    )


def client(base_url: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=base_url,
        timeout=httpx.Timeout(CLIENT_TIMEOUT_S, connect=5.0),
        limits=httpx.Limits(max_connections=64, max_keepalive_connections=64),
    )


async def two_games(http: httpx.AsyncClient) -> tuple[Game, Game]:
    return await create_game(http, 2, seed=1), await create_game(http, 2, seed=2)


async def writes_and_reads(
    http: httpx.AsyncClient, stuck: Game, other: Game, writers: int = 8, readers: int = 6
) -> tuple[list[Timed], list[Timed]]:
    """``writers`` changes of ``stuck`` at once, then (once they hold the threads)
    ``readers`` reads of ``other``, one after the other: each read's own time."""
    player = stuck.player_ids[0]

    async def write(i: int) -> Timed:
        return await timed(
            http,
            f"write {i}",
            "PUT",
            f"{stuck.url}/players/{player}/faith",
            # Never its current faith (0): a change that leaves the game as it is stores nothing.
            json={"faith": i % 10 + 1},
            headers=stuck.auth,
        )

    async def reads() -> list[Timed]:
        await asyncio.sleep(0.5)  # the writes are in and waiting on the lock
        results = []
        for i in range(readers):
            results.append(await timed(http, f"read {i}", "GET", other.url, headers=other.auth))
            await asyncio.sleep(0.1)
        return results

    write_results, read_results = await asyncio.gather(
        asyncio.gather(*(write(i) for i in range(writers))), reads()
    )
    return list(write_results), read_results


def assert_reads_served_and_writers_refused(
    writes: list[Timed], reads: list[Timed], ready: Timed
) -> None:
    """While one game's row is held: reads of another game and ``/readyz`` answer at once
    (an idle machine: ~10 ms; 2 s is a generous bound); the held game's writers end in a
    503 within DB_LOCK_TIMEOUT_MS 2 s + DB_POOL_TIMEOUT_MS 2 s (waiting for a write slot),
    10 s allowing for the load."""
    report = "\n".join(map(str, [*writes, *reads, ready]))
    for read in reads:
        assert read.status == 200 and read.seconds < 2.0, report
    assert ready.status == 200 and ready.seconds < 2.0, report
    for write in writes:
        assert write.status == 503 and write.slug == "service-unavailable", report
        assert write.retry_after == RETRY_AFTER, report
        assert write.detail.startswith(LOCK_DETAILS), (write.detail, report)
        assert write.seconds < 10.0, report


async def assert_writes_again(http: httpx.AsyncClient, stuck: Game) -> None:
    """The lock is gone: the same process changes the game again."""
    after = await timed(
        http,
        "write after",
        "PUT",
        f"{stuck.url}/players/{stuck.player_ids[0]}/faith",
        json={"faith": 3},
        headers=stuck.auth,
    )
    assert after.status == 200, after


# ---- freezing a private PostgreSQL ---------------------------------------------------------


def cluster_pids(data_dir: Path) -> list[int]:
    """The postmaster (first) and every process it started."""
    postmaster = int((data_dir / "postmaster.pid").read_text().splitlines()[0])
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == postmaster:
            children.append(int(entry.name))
    return [postmaster, *children]


def signal_all(pids: list[int], sig: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
