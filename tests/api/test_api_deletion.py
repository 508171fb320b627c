"""Deleting a game over HTTP, on SQLite and PostgreSQL: everything it owns goes in one
transaction, and every call on it answers 404 afterwards, a retry with a key it used too."""

from __future__ import annotations

import uuid

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import text

from app.persistence.repositories import GameRepository
from tests.api.conftest import create_game
from tests.api.test_api_support import assert_problem


def _rows(app: FastAPI, game_id: str) -> dict[str, int]:
    with app.state.db.transaction(write=False) as connection:
        counts = {
            table: connection.execute(
                text(f"SELECT count(*) FROM {table} WHERE {column} = :id"), {"id": game_id}
            ).scalar_one()
            for table, column in (
                ("games", "id"),
                ("events", "game_id"),
                ("idempotency_keys", "game_id"),
            )
        }
        counts["keys"] = connection.execute(
            text("SELECT count(*) FROM idempotency_keys")
        ).scalar_one()
        return counts


async def test_a_deleted_game_is_gone_with_everything_it_owns(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    body = {"players": [{"name": "Anna"}, {"name": "Bruno"}], "seed": 5}
    create_key = {"Idempotency-Key": str(uuid.uuid4())}
    created = await client.post("/v1/games", json=body, headers=create_key)
    data = created.json()
    game_id, host = data["game"]["id"], {"Authorization": f"Bearer {data['host_token']}"}
    url = f"/v1/games/{game_id}"
    await client.put(f"{url}/faith", json={"faith": {"p1": 5}}, headers=host)
    resolve_key = {**host, "Idempotency-Key": str(uuid.uuid4())}
    resolution = {"default_choice": "support"}
    assert (
        await client.post(f"{url}/reports/1/resolution", json=resolution, headers=resolve_key)
    ).status_code == 201
    assert _rows(app, game_id) == {"games": 1, "events": 3, "idempotency_keys": 2, "keys": 2}

    assert_problem(
        await client.delete(url, headers={**host, "If-Match": '"2"'}), 412, "version-mismatch"
    )
    deleted = await client.delete(url, headers={**host, "If-Match": '"3"'})
    assert (deleted.status_code, deleted.content) == (204, b"")
    # Of its keys only their hashes are left, answering 404, until they expire.
    assert _rows(app, game_id) == {"games": 0, "events": 0, "idempotency_keys": 0, "keys": 2}
    for method, path in (("GET", ""), ("GET", "/events"), ("GET", "/reports/1"), ("DELETE", "")):
        assert_problem(await client.request(method, url + path, headers=host), 404, "not-found")
    replayed = await client.post("/v1/games", json=body, headers=create_key)
    assert_problem(replayed, 404, "not-found")
    again = await client.post(f"{url}/reports/1/resolution", json=resolution, headers=resolve_key)
    assert_problem(again, 404, "not-found")
    assert _rows(app, game_id)["keys"] == 2  # and no game was made again


async def test_a_deletion_that_fails_half_way_leaves_everything(
    app: FastAPI, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = await create_game(client)
    await game.set_faith(p1=4)
    delete = GameRepository.delete

    def fails_after_deleting(self: GameRepository, *args: object, **kwargs: object) -> int:
        delete(self, *args, **kwargs)  # type: ignore[arg-type]
        raise RuntimeError("the connection broke after the statements")

    monkeypatch.setattr(GameRepository, "delete", fails_after_deleting)
    assert_problem(await client.delete(game.url, headers=game.host()), 500, "internal-error")
    monkeypatch.undo()
    assert _rows(app, game.id) == {"games": 1, "events": 2, "idempotency_keys": 0, "keys": 0}
    assert (await game.read())["players"][0]["faith"] == 4
