"""API.md Idempotency-Key on createGame and resolveReport, on both databases: replay byte
for byte, reuse with another body, a failed first attempt, a request in flight, and what
the database keeps (hashed key, encrypted answer)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import Row, Table, func, select

from app.api.schemas.games import GameCreate, ResolutionCreate
from app.persistence.repositories import IdempotencyRepository
from app.persistence.tables import EVENTS, GAMES, IDEMPOTENCY_KEYS
from app.services.idempotency import request_fingerprint
from app.services.stored import utcnow
from app.services.tokens import idempotency_key_hash
from tests.api.conftest import GameHandle
from tests.api.test_api_support import assert_problem, assert_unchanged, snapshot

BODY: dict[str, Any] = {"players": [{"name": "Anna"}, {"name": "Bruno"}], "seed": 7}


def count(app: FastAPI, table: Table) -> int:
    with app.state.db.transaction(write=False) as connection:
        return int(connection.scalar(select(func.count()).select_from(table)) or 0)


def stored_key(app: FastAPI, scope: str, key: str) -> Row[Any] | None:
    with app.state.db.transaction(write=False) as connection:
        return IdempotencyRepository(connection).get(idempotency_key_hash(scope, key))


def insert_in_flight(app: FastAPI, scope: str, key: str, fingerprint: str, seconds: int) -> None:
    now = utcnow()
    with app.state.db.transaction(write=True) as connection:
        inserted = IdempotencyRepository(connection).try_insert(
            {
                "key_hash": idempotency_key_hash(scope, key),
                "request_hash": fingerprint,
                "state": "in_flight",
                "locked_until": now + timedelta(seconds=seconds),
                "created_at": now,
                "expires_at": now + timedelta(hours=24),
            }
        )
        assert inserted


@contextmanager
def in_flight(app: FastAPI, scope: str, key: str, fingerprint: str) -> Iterator[None]:
    """A first attempt still working: its claimed row, and on PostgreSQL the row lock its
    work transaction holds (that lock, not the lease, is what "in flight" means there)."""
    insert_in_flight(app, scope, key, fingerprint, seconds=60)
    if app.state.db.dialect_name != "postgresql":
        yield  # SQLite serializes writers: an unexpired lease stands for the worker
        return
    with app.state.db.transaction(write=True) as connection:
        IdempotencyRepository(connection).get(idempotency_key_hash(scope, key), for_update=True)
        yield


async def create(client: httpx.AsyncClient, key: str, body: dict[str, Any]) -> httpx.Response:
    return await client.post("/v1/games", json=body, headers={"Idempotency-Key": key})


async def test_create_game_replay_is_byte_for_byte_with_tokens(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    first = await create(client, "key-create-1-0123456789abcdef", BODY)
    assert first.status_code == 201, first.text
    assert "idempotent-replayed" not in first.headers
    events_before = count(app, EVENTS)
    for _ in range(2):
        again = await create(client, "key-create-1-0123456789abcdef", BODY)
        assert again.status_code == 201
        assert again.headers["idempotent-replayed"] == "true"
        assert again.content == first.content
        assert again.headers["location"] == first.headers["location"]
        assert again.headers["etag"] == first.headers["etag"]
        assert again.headers["content-type"].startswith("application/json")
    assert count(app, GAMES) == 1 and count(app, EVENTS) == events_before == 1
    replayed = again.json()
    assert set(replayed["player_tokens"]) == {"p1", "p2"}
    read = await client.get(
        first.headers["location"], headers={"Authorization": f"Bearer {replayed['host_token']}"}
    )
    assert read.status_code == 200 and read.json() == first.json()["game"]
    # Another key is another game.
    other = await create(client, "key-create-2-0123456789abcdef", BODY)
    assert other.status_code == 201 and other.json()["game"]["id"] != first.json()["game"]["id"]
    assert count(app, GAMES) == 2


async def test_create_game_key_reused_with_another_body_is_422(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    assert (await create(client, "key-reuse-0123456789abcdef", BODY)).status_code == 201
    response = await create(client, "key-reuse-0123456789abcdef", {**BODY, "seed": 8})
    assert_problem(response, 422, "idempotency-key-reused")
    response = await create(
        client, "key-reuse-0123456789abcdef", {**BODY, "players_enter_faith": True}
    )
    assert_problem(response, 422, "idempotency-key-reused")
    assert count(app, GAMES) == 1


async def test_stored_answer_is_encrypted_and_the_key_hashed(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    key = "key-secret-0123456789-0123456789abcdef"
    first = await create(client, key, BODY)
    tokens = [first.json()["host_token"], *first.json()["player_tokens"].values()]
    row = stored_key(app, "createGame", key)
    assert row is not None
    assert row.state == "completed" and row.status_code == 201
    assert row.key_hash == idempotency_key_hash("createGame", key) != key
    assert row.expires_at - row.created_at >= timedelta(hours=24)
    assert row.body is not None
    stored = row.body + repr(row.headers).encode() + row.request_hash.encode()
    for secret in [*tokens, key]:
        assert secret.encode() not in stored
    assert b"host_token" not in row.body and first.content not in row.body
    assert first.json()["game"]["id"].encode() not in row.body


async def test_create_game_in_flight_is_409(client: httpx.AsyncClient, app: FastAPI) -> None:
    fingerprint = request_fingerprint(
        "createGame", GameCreate.model_validate(BODY).model_dump_json(by_alias=True)
    )
    with in_flight(app, "createGame", "key-busy-0123456789abcdef", fingerprint):
        response = await create(client, "key-busy-0123456789abcdef", BODY)
        assert_problem(response, 409, "idempotency-in-flight")
        assert count(app, GAMES) == 0
        # Another body under the same key is still a reuse, in flight or not.
        assert_problem(
            await create(client, "key-busy-0123456789abcdef", {**BODY, "seed": 9}),
            422,
            "idempotency-key-reused",
        )
    row = stored_key(app, "createGame", "key-busy-0123456789abcdef")
    assert row is not None and row.state == "in_flight"


async def test_create_game_in_flight_past_its_lease_is_taken_over(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    fingerprint = request_fingerprint(
        "createGame", GameCreate.model_validate(BODY).model_dump_json(by_alias=True)
    )
    insert_in_flight(app, "createGame", "key-dead-0123456789abcdef", fingerprint, seconds=-1)
    response = await create(client, "key-dead-0123456789abcdef", BODY)
    assert response.status_code == 201, response.text
    assert count(app, GAMES) == 1
    replay = await create(client, "key-dead-0123456789abcdef", BODY)
    assert replay.headers["idempotent-replayed"] == "true" and replay.content == response.content


async def test_bad_idempotency_key_is_422(client: httpx.AsyncClient, app: FastAPI) -> None:
    # Keys must be as hard to guess as a token (app/api/platform/idempotency_keys.py).
    weak = ("1", "k" * 21, "has space but long enough", "x" * 256, "tab\tkey-0123456789abcdef")
    for key in weak:
        response = await create(client, key, BODY)
        assert_problem(response, 422, "validation-error", loc=["header", "Idempotency-Key"])
    assert count(app, GAMES) == 0


async def test_a_uuid_or_22_base64url_characters_are_strong_keys(client: httpx.AsyncClient) -> None:
    for key in (str(uuid.uuid4()), str(uuid.uuid4()).upper(), "A" * 10 + "_-" + "zy9x8" * 2):
        assert (await create(client, key, BODY)).status_code == 201


async def resolve(game: GameHandle, key: str, **body: Any) -> httpx.Response:
    return await game.client.post(
        f"{game.url}/reports/1/resolution",
        json=body,
        headers={**game.host(), "Idempotency-Key": key},
    )


async def test_resolution_replay_creates_nothing_new(
    client: httpx.AsyncClient, app: FastAPI, game: GameHandle
) -> None:
    await game.set_faith(p1=5, p2=1, p3=4)
    first = await resolve(game, "key-resolve-0123456789abcdef", default_choice="support")
    assert first.status_code == 201, first.text
    assert "idempotent-replayed" not in first.headers
    before = await snapshot(game)
    again = await resolve(game, "key-resolve-0123456789abcdef", default_choice="support")
    assert again.status_code == 201
    assert again.headers["idempotent-replayed"] == "true"
    assert again.content == first.content and again.headers["etag"] == first.headers["etag"]
    await assert_unchanged(game, before)
    assert before[0]["version"] == 3
    reused = await resolve(game, "key-resolve-0123456789abcdef", default_choice="refuse")
    assert_problem(reused, 422, "idempotency-key-reused")
    # Without the key, a second resolution is refused as usual.
    assert_problem(await game.resolve(1, default_choice="support"), 409, "report-resolved")
    await assert_unchanged(game, before)
    row = stored_key(app, f"resolveReport:{game.id}:1", "key-resolve-0123456789abcdef")
    assert row is not None and row.state == "completed"


async def test_failed_resolution_does_not_burn_the_key(
    client: httpx.AsyncClient, app: FastAPI, game: GameHandle
) -> None:
    await game.set_faith(p1=5, p2=1, p3=4)
    before = await snapshot(game)
    failed = await resolve(game, "key-retry-0123456789abcdef")
    body = assert_problem(failed, 409, "decisions-pending")
    assert body["pending"] == ["p1", "p3"]
    assert stored_key(app, f"resolveReport:{game.id}:1", "key-retry-0123456789abcdef") is None
    await assert_unchanged(game, before)
    await game.decide(1, "p1", "support")
    await game.decide(1, "p3", "refuse")
    retried = await resolve(game, "key-retry-0123456789abcdef")
    assert retried.status_code == 201, retried.text
    assert "idempotent-replayed" not in retried.headers
    assert [o["outcome"] for o in retried.json()["outcomes"]] == [
        "supported",
        "excommunicated",
        "excommunicated",
    ]


async def test_resolution_in_flight_is_409(
    client: httpx.AsyncClient, app: FastAPI, game: GameHandle
) -> None:
    await game.set_faith(p1=1, p2=1, p3=1)
    scope = f"resolveReport:{game.id}:1"
    fingerprint = request_fingerprint(scope, ResolutionCreate().model_dump_json())
    before = await snapshot(game)
    with in_flight(app, scope, "key-busy-0123456789abcdef", fingerprint):
        assert_problem(
            await resolve(game, "key-busy-0123456789abcdef"), 409, "idempotency-in-flight"
        )
    await assert_unchanged(game, before)
    # The same key for another period is another scope: it is not in flight there.
    assert_problem(
        await game.client.post(
            f"{game.url}/reports/2/resolution",
            json={},
            headers={**game.host(), "Idempotency-Key": "key-busy-0123456789abcdef"},
        ),
        409,
        "report-out-of-order",
    )


async def test_resolution_retry_without_the_right_token_is_401_or_403(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    await game.set_faith(p1=1, p2=1, p3=1)
    assert (await resolve(game, "key-auth-0123456789abcdef")).status_code == 201
    url = f"{game.url}/reports/1/resolution"
    anonymous = await client.post(
        url, json={}, headers={"Idempotency-Key": "key-auth-0123456789abcdef"}
    )
    assert_problem(anonymous, 401, "unauthorized")
    player = await client.post(
        url, json={}, headers={**game.player("p1"), "Idempotency-Key": "key-auth-0123456789abcdef"}
    )
    assert_problem(player, 403, "forbidden")


async def test_the_answer_that_carries_tokens_is_never_stored_by_a_cache(
    client: httpx.AsyncClient,
) -> None:
    key = str(uuid.uuid4())
    first = await create(client, key, BODY)
    replay = await create(client, key, BODY)
    assert first.status_code == replay.status_code == 201
    assert "host_token" in first.json()
    assert first.headers["cache-control"] == replay.headers["cache-control"] == "no-store"


def expire(app: FastAPI, scope: str, key: str) -> None:
    """The key's row as it is once its time is up (a day later)."""
    with app.state.db.transaction(write=True) as connection:
        connection.execute(
            IDEMPOTENCY_KEYS.update()
            .where(IDEMPOTENCY_KEYS.c.key_hash == idempotency_key_hash(scope, key))
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )


async def test_an_expired_key_acts_anew_and_a_claim_leaves_other_expired_keys(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    old, other = "key-expired-0123456789abcdef", "key-other-expired-0123456789abcdef"
    first = await create(client, old, BODY)
    assert (await create(client, other, BODY)).status_code == 201
    expire(app, "createGame", old)
    expire(app, "createGame", other)
    again = await create(client, old, BODY)
    assert again.status_code == 201 and "idempotent-replayed" not in again.headers
    assert again.json()["game"]["id"] != first.json()["game"]["id"]
    assert count(app, GAMES) == 3
    # The other expired key is retention's to delete, in its batches, not this claim's.
    assert stored_key(app, "createGame", other) is not None
