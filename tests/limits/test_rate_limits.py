"""429 ``too-many-requests`` with ``Retry-After``: game creation per client address, changes
per game. Each test runs on SQLite and on PostgreSQL; the limits live in the database."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
from fastapi import FastAPI
from sqlalchemy import text

from tests.limits.conftest import GAME, AppWith, retry_after, slug

ClientFor = Callable[[FastAPI], httpx.AsyncClient]
# A rate so slow that nothing refills while a test runs: only the burst counts.
NO_REFILL = 0.001


async def test_creation_past_the_burst_is_429_with_retry_after(
    app_with: AppWith, client_for: ClientFor
) -> None:
    client = client_for(app_with(game_creation_rate=1, game_creation_burst=2))
    for _ in range(2):
        assert (await client.post("/v1/games", json=GAME)).status_code == 201
    refused = await client.post("/v1/games", json=GAME)
    assert refused.status_code == 429, refused.text
    assert refused.headers["content-type"] == "application/problem+json"
    assert slug(refused) == "too-many-requests"
    # One a minute, two at once, two used: the next one is a minute away (less the time
    # this test took; generous bounds for a loaded machine).
    assert 30 <= retry_after(refused) <= 60


async def test_a_refused_creation_stores_nothing(app_with: AppWith, client_for: ClientFor) -> None:
    app = app_with(game_creation_rate=NO_REFILL, game_creation_burst=1)
    client = client_for(app)
    assert (await client.post("/v1/games", json=GAME)).status_code == 201
    key = {"Idempotency-Key": "a-refused-creation-0000000001"}
    assert (await client.post("/v1/games", json=GAME, headers=key)).status_code == 429
    with app.state.db.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM games")).scalar() == 1
        assert conn.execute(text("SELECT count(*) FROM idempotency_keys")).scalar() == 0


async def test_after_retry_after_the_creation_is_admitted(
    app_with: AppWith, client_for: ClientFor
) -> None:
    client = client_for(app_with(game_creation_rate=600, game_creation_burst=1))  # one per 0.1 s
    assert (await client.post("/v1/games", json=GAME)).status_code == 201
    refused = await client.post("/v1/games", json=GAME)
    if refused.status_code == 201:  # more than 0.1 s passed on a loaded machine: no proof
        refused = await client.post("/v1/games", json=GAME)
    assert refused.status_code == 429
    assert retry_after(refused) == 1
    await asyncio.sleep(retry_after(refused))
    assert (await client.post("/v1/games", json=GAME)).status_code == 201


async def test_an_idempotent_replay_is_not_counted(
    app_with: AppWith, client_for: ClientFor
) -> None:
    client = client_for(app_with(game_creation_rate=NO_REFILL, game_creation_burst=1))
    key = {"Idempotency-Key": "replayed-creation-000000000001"}
    first = await client.post("/v1/games", json=GAME, headers=key)
    assert first.status_code == 201
    again = await client.post("/v1/games", json=GAME, headers=key)
    assert again.status_code == 201, again.text
    assert again.json() == first.json()
    assert (await client.post("/v1/games", json=GAME)).status_code == 429


async def test_a_rate_of_zero_turns_the_creation_limit_off(
    app_with: AppWith, client_for: ClientFor
) -> None:
    client = client_for(app_with(game_creation_rate=0, game_creation_burst=1))
    for _ in range(5):
        assert (await client.post("/v1/games", json=GAME)).status_code == 201


async def test_a_spoofed_x_forwarded_for_from_an_untrusted_peer_is_ignored(
    app_with: AppWith, client_for: ClientFor
) -> None:
    """No TRUSTED_PROXIES: a client that makes up a new X-Forwarded-For for every request
    is still one address."""
    client = client_for(app_with(game_creation_rate=NO_REFILL, game_creation_burst=1))
    first = await client.post("/v1/games", json=GAME, headers={"X-Forwarded-For": "198.51.100.1"})
    assert first.status_code == 201
    spoofed = await client.post("/v1/games", json=GAME, headers={"X-Forwarded-For": "198.51.100.2"})
    assert spoofed.status_code == 429, spoofed.text


async def test_a_peer_not_in_trusted_proxies_is_not_believed(
    app_with: AppWith, client_for: ClientFor
) -> None:
    client = client_for(
        app_with(game_creation_rate=NO_REFILL, game_creation_burst=1, trusted_proxies="10.0.0.0/8")
    )
    for index, status in enumerate([201, 429]):
        answer = await client.post(
            "/v1/games", json=GAME, headers={"X-Forwarded-For": f"198.51.100.{index}"}
        )
        assert answer.status_code == status


async def test_behind_a_trusted_proxy_each_client_address_has_its_own_limit(
    app_with: AppWith, client_for: ClientFor
) -> None:
    client = client_for(
        app_with(
            game_creation_rate=NO_REFILL, game_creation_burst=1, trusted_proxies="127.0.0.1/32"
        )
    )

    async def create(forwarded: str) -> int:
        headers = {"X-Forwarded-For": forwarded}
        return (await client.post("/v1/games", json=GAME, headers=headers)).status_code

    assert await create("198.51.100.1") == 201
    assert await create("198.51.100.2") == 201
    assert await create("198.51.100.1") == 429
    # What the client prepends itself does not make it someone else.
    assert await create("203.0.113.77, 198.51.100.2") == 429


async def _new_game(client: httpx.AsyncClient) -> tuple[str, dict[str, str]]:
    created = await client.post("/v1/games", json=GAME)
    assert created.status_code == 201, created.text
    data = created.json()
    return data["game"]["id"], {"Authorization": f"Bearer {data['host_token']}"}


async def test_changes_past_the_burst_are_429_and_change_nothing(
    app_with: AppWith, client_for: ClientFor
) -> None:
    client = client_for(app_with(game_write_rate=1, game_write_burst=2))
    game_id, host = await _new_game(client)
    url = f"/v1/games/{game_id}/players/p1/faith"
    for faith in (1, 2):
        assert (await client.put(url, json={"faith": faith}, headers=host)).status_code == 200
    refused = await client.put(url, json={"faith": 3}, headers=host)
    assert refused.status_code == 429, refused.text
    assert slug(refused) == "too-many-requests"
    assert 30 <= retry_after(refused) <= 60
    read = await client.get(f"/v1/games/{game_id}", headers=host)
    assert read.headers["ETag"] == '"3"'  # created, two changes; the refused one not stored
    assert read.json()["players"][0]["faith"] == 2
    # Another game has a limit of its own; reads are never limited.
    other_id, other_host = await _new_game(client)
    changed = await client.put(
        f"/v1/games/{other_id}/turn-order", json={"turn_order": ["p2", "p1"]}, headers=other_host
    )
    assert changed.status_code == 200, changed.text
    for _ in range(5):
        assert (await client.get(f"/v1/games/{game_id}", headers=host)).status_code == 200


async def test_every_kind_of_change_counts(app_with: AppWith, client_for: ClientFor) -> None:
    client = client_for(app_with(game_write_rate=NO_REFILL, game_write_burst=3))
    game_id, host = await _new_game(client)
    url = f"/v1/games/{game_id}"
    answers = [
        await client.put(f"{url}/faith", json={"faith": {"p1": 5, "p2": 5}}, headers=host),
        await client.put(f"{url}/players/p1/leaders", json={"leaders": ["sisto_iv"]}, headers=host),
        await client.put(f"{url}/reports/1/decisions/p1", json={"choice": "support"}, headers=host),
        await client.post(
            f"{url}/reports/1/resolution", json={"default_choice": "refuse"}, headers=host
        ),
    ]
    assert [a.status_code for a in answers] == [200, 200, 200, 429], answers[-1].text


async def test_a_refused_change_does_not_use_up_the_limit(
    app_with: AppWith, client_for: ClientFor
) -> None:
    """Only stored changes count: a 412 or a 403 leaves the limit as it was."""
    client = client_for(app_with(game_write_rate=NO_REFILL, game_write_burst=1))
    game_id, host = await _new_game(client)
    url = f"/v1/games/{game_id}/players/p1/faith"
    stale = await client.put(url, json={"faith": 1}, headers={**host, "If-Match": '"7"'})
    assert stale.status_code == 412
    assert (await client.put(url, json={"faith": 1}, headers=host)).status_code == 200
    assert (await client.put(url, json={"faith": 2}, headers=host)).status_code == 429


async def test_the_event_limit_still_comes_first(app_with: AppWith, client_for: ClientFor) -> None:
    client = client_for(
        app_with(game_write_rate=NO_REFILL, game_write_burst=1, max_events_per_game=1)
    )
    game_id, host = await _new_game(client)
    full = await client.put(
        f"/v1/games/{game_id}/players/p1/faith", json={"faith": 1}, headers=host
    )
    assert full.status_code == 409
    assert slug(full) == "event-limit-reached"
