"""Faith changes under concurrency, through real ``python -m app`` servers over real HTTP:
50 concurrent +1s on one player, sent at once from several clients (the host's token and
the player's own, on a ``players_enter_faith`` game) spread at random over the servers
(PostgreSQL: two processes on one database; SQLite: one process), with the service's own
write limits. Without If-Match a delta is never lost, which is the point of it:

- every answer is 200, or 429 or 503 with ``Retry-After`` (nothing else);
- the faith is the capped sum of the 200s: min(15, their number);
- each 200 answered a faith no other 200 did below the cap, and lost 1 above it;
- the log holds one ``faith_changed`` per 200 that moved the faith (a +1 at 15 changes
  nothing, so logs nothing), each starting from the faith the one before it left.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.support import Game as IntegrationGame
from tests.integration.support import Server, all_events, bearer, http_client, read_game, running

CHANGES = 50
MAX_FAITH = 15
# The service's defaults: 60 changes at once per game, 120 a minute.
LIMITS = {"GAME_WRITE_RATE": "120", "GAME_WRITE_BURST": "60"}


async def _create(client: httpx.AsyncClient) -> dict[str, Any]:
    body = {"players": [{"name": "Anna"}, {"name": "Bruno"}], "players_enter_faith": True}
    response = await client.post("/v1/games", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


async def _scenario(servers: tuple[Server, ...], seed: int) -> Counter[int]:
    clients = [http_client(server.base_url) for server in servers]
    rng = random.Random(seed)
    try:
        created = await _create(clients[0])
        game_id = created["game"]["id"]
        tokens = [created["host_token"], created["player_tokens"]["p1"]]
        url = f"/v1/games/{game_id}/players/p1/faith-changes"
        picks = [(rng.choice(clients), rng.choice(tokens)) for _ in range(CHANGES)]
        start = asyncio.Event()

        async def plus_one(client: httpx.AsyncClient, token: str) -> httpx.Response:
            await start.wait()
            return await client.post(url, json={"delta": 1}, headers=bearer(token))

        tasks = [asyncio.create_task(plus_one(c, t)) for c, t in picks]
        await asyncio.sleep(0.2)
        start.set()
        answers = await asyncio.wait_for(asyncio.gather(*tasks), 120)

        statuses = Counter(a.status_code for a in answers)
        assert set(statuses) <= {200, 429, 503}, [
            a.text for a in answers if a.status_code not in (200, 429, 503)
        ]
        for answer in answers:
            if answer.status_code != 200:
                assert int(answer.headers["Retry-After"]) >= 0, answer.text
        ok = [a.json() for a in answers if a.status_code == 200]
        assert ok, statuses

        game = IntegrationGame(game_id, created["host_token"], ["p1", "p2"])
        final = next(
            p["faith"] for p in (await read_game(clients[-1], game))["players"] if p["id"] == "p1"
        )
        assert final == min(MAX_FAITH, len(ok))
        kept = sorted(a["player"]["faith"] for a in ok if a["faith_lost"] == 0)
        assert kept == list(range(1, final + 1))  # each step of the track reached once
        assert all(
            a["faith_lost"] == 1 and a["player"]["faith"] == MAX_FAITH
            for a in ok
            if a["faith_lost"]
        )
        assert sum(a["faith_lost"] for a in ok) == len(ok) - final

        changes = [
            e["data"] for e in await all_events(clients[0], game) if e["type"] == "faith_changed"
        ]
        assert len(changes) == final == sum(a["applied"] for a in ok)
        faith = 0
        for change in changes:
            assert change["from"] == faith, changes
            faith = change["to"]
        assert faith == final
        return statuses
    finally:
        for client in clients:
            await client.aclose()


@pytest.mark.postgres
async def test_50_concurrent_plus_ones_on_two_postgres_processes(
    postgres_url: str, tmp_path: Path
) -> None:
    first = Server(postgres_url, tmp_path, "pg-a", env=LIMITS)
    second = Server(postgres_url, tmp_path, "pg-b", env=LIMITS)
    with running(first, second, together=True) as servers:
        statuses = await _scenario(servers, seed=1)
    print(f"postgres, 2 processes: {dict(statuses)}")


async def test_50_concurrent_plus_ones_on_sqlite(sqlite_url: str, tmp_path: Path) -> None:
    with running(Server(sqlite_url, tmp_path, "sqlite", env=LIMITS)) as servers:
        statuses = await _scenario(servers, seed=2)
    print(f"sqlite, 1 process: {dict(statuses)}")
