"""A creation and a change sent with an Idempotency-Key while PostgreSQL is frozen: each
is refused (503), leaves nothing half-written and no answer that a retry would replay
wrongly; retried with the same key once the cluster is resumed, each acts exactly once,
and a further retry replays that answer. A PRIVATE cluster, a real ``python -m app``."""

from __future__ import annotations

import asyncio
import time
import uuid

import httpx
import psycopg
import pytest

from tests.integration.support import PrivatePostgres, Server
from tests.stall.freeze import assert_refused_within_the_bound, fire, frozen, recovered
from tests.stall.stall_support import client
from tests.stall.stored_routes import GAME_BODY, Call, new_game

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.parametrize("async_reads", [True], ids=["async-reads"]),
]


def _games(cluster: PrivatePostgres) -> int:
    with psycopg.connect(cluster.url, connect_timeout=5) as conn:
        row = conn.execute("SELECT count(*) FROM games").fetchone()
    assert row is not None
    return int(row[0])


async def _served(http: httpx.AsyncClient, call: Call) -> httpx.Response:
    """The call sent until the service acts on it: a retry may meet the first attempt's
    key still held (409 in flight) until the frozen backend notices its client is gone."""
    deadline = time.monotonic() + 30
    while True:
        response = await http.request(call.method, call.url, **call.send_args())
        if response.status_code not in (409, 503):
            return response
        assert time.monotonic() < deadline, response.text
        await asyncio.sleep(0.2)


def test_a_keyed_creation_and_change_refused_by_the_outage_act_once_when_retried(
    server: Server, cluster: PrivatePostgres
) -> None:
    async def scenario() -> None:
        async with client(server.base_url) as http:
            game = await new_game(http)
            await http.get(game.url, headers=game.auth)
            creation = Call(
                "create",
                "createGame",
                "POST",
                "/v1/games",
                {"Idempotency-Key": str(uuid.uuid4())},
                GAME_BODY,
            )
            change = Call(
                "faith change",
                "changePlayerFaith",
                "POST",
                f"{game.url}/players/{game.player_ids[0]}/faith-changes",
                {**game.auth, "Idempotency-Key": str(uuid.uuid4())},
                {"delta": 2},
            )
            games_before = _games(cluster)
            with frozen(cluster.data):
                assert_refused_within_the_bound(await fire(http, [creation, change]))
            await recovered(http, game.url, game.auth)
            assert _games(cluster) == games_before  # the refused creation stored nothing

            created = await _served(http, creation)
            assert created.status_code == 201, created.text
            again = await http.request(creation.method, creation.url, **creation.send_args())
            assert again.status_code == 201 and again.headers.get("Idempotent-Replayed") == "true"
            assert again.json()["game"]["id"] == created.json()["game"]["id"]
            assert _games(cluster) == games_before + 1

            changed = await _served(http, change)
            assert changed.status_code == 200, changed.text
            replayed = await http.request(change.method, change.url, **change.send_args())
            assert replayed.headers.get("Idempotent-Replayed") == "true"
            assert replayed.json() == changed.json()
            # Nothing half-written: the log holds the creation and the one change, and
            # the stored game is what they make.
            events = (await http.get(f"{game.url}/events", headers=game.auth)).json()["events"]
            assert [e["type"] for e in events] == ["game_created", "faith_changed"], events
            stored = (await http.get(game.url, headers=game.auth)).json()
            assert stored["version"] == 2
            faith = {p["id"]: p["faith"] for p in stored["players"]}
            assert faith == {game.player_ids[0]: 2, game.player_ids[1]: 0}

    asyncio.run(scenario())
