"""PostgreSQL frozen (SIGSTOP on its postmaster and every backend: the kernel still
accepts and acknowledges, nothing answers, the server enforces no timeout). ``/readyz``
answers 503 within 2 s; stored reads and changes answer 503 ``service-unavailable`` with
Retry-After within DB_HOLD_TIMEOUT_MS (+ DB_CONNECT_TIMEOUT_S); the same process serves
again once the server is thawed. A PRIVATE cluster (never the shared server), against a
real ``python -m app``."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.support import PrivatePostgres
from tests.stall.stall_support import (
    RETRY_AFTER,
    assert_writes_again,
    client,
    cluster_pids,
    running_server,
    signal_all,
    timed,
    two_games,
)

pytestmark = pytest.mark.postgres


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    if not PrivatePostgres.available():
        pytest.fail("PostgreSQL 15 binaries (initdb, pg_ctl) are needed for this test")
    cluster = PrivatePostgres()
    try:
        cluster.init()
        cluster.start()
        cluster.wait_accepting()
        yield cluster
    finally:
        cluster.cleanup()


def test_a_frozen_database_costs_a_503_within_the_bound_and_the_process_recovers(
    private_postgres: PrivatePostgres, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_server(monkeypatch, private_postgres.url, tmp_path, "pg-freeze") as server:
        asyncio.run(_scenario(server.base_url, private_postgres))


async def _scenario(base_url: str, cluster: PrivatePostgres) -> None:
    async with client(base_url) as http:
        game, other = await two_games(http)
        # Warm the pool: the requests below find connections that were fine a moment ago.
        for _ in range(3):
            await asyncio.gather(
                *(timed(http, "warm", "GET", g.url, headers=g.auth) for g in (game, other))
            )
        pids = cluster_pids(cluster.data)
        signal_all(pids, signal.SIGSTOP)
        try:
            started = time.monotonic()
            player = game.player_ids[0]
            requests = [
                *(timed(http, f"read {i}", "GET", other.url, headers=other.auth) for i in range(4)),
                *(
                    timed(
                        http,
                        f"write {i}",
                        "PUT",
                        f"{game.url}/players/{player}/faith",
                        json={"faith": i},
                        headers=game.auth,
                    )
                    for i in range(3)
                ),
            ]
            stored_task = asyncio.gather(*requests)
            await asyncio.sleep(0.2)  # the stored requests hold the threads now
            ready = await asyncio.gather(
                *(timed(http, f"readyz {i}", "GET", "/readyz") for i in range(3))
            )
            stored = await stored_task
            frozen_for = time.monotonic() - started
        finally:
            signal_all(pids, signal.SIGCONT)
        report = "\n".join(map(str, [*ready, *stored]))
        print(f"\nfrozen {frozen_for:.1f}s\n{report}")
        # READYZ_TIMEOUT_MS is 1 s; 2 s allows for the load.
        for probe in ready:
            assert probe.status == 503 and probe.slug == "service-unavailable", report
            assert probe.seconds < 2.0, report
        # DB_HOLD_TIMEOUT_MS 3 s (+ DB_CONNECT_TIMEOUT_S 2 s for a new connection, +
        # DB_POOL_TIMEOUT_MS 2 s queueing); 15 s allows for the load and is far below
        # the hang this replaces (70 s and more).
        for answer in stored:
            assert answer.status == 503 and answer.slug == "service-unavailable", report
            assert answer.retry_after == RETRY_AFTER, report
            assert answer.seconds < 15.0, report

        # Thawed: the same process answers again, without a restart.
        deadline = time.monotonic() + 15
        while True:
            probe = await timed(http, "readyz", "GET", "/readyz")
            read = await timed(http, "read", "GET", game.url, headers=game.auth)
            if probe.status == 200 and read.status == 200:
                break
            assert time.monotonic() < deadline, f"no recovery: {probe} {read}"
            await asyncio.sleep(0.2)
        await assert_writes_again(http, game)
        metrics = (await http.get("/metrics")).text
        cut = [line for line in metrics.splitlines() if line.startswith("db_connections_cut_total")]
        assert cut and float(cut[0].split()[-1]) >= 1, cut
