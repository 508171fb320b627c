"""Idle games, expired idempotency keys and expired creation limits are deleted: by the
service's periodic sweep (bounded batches) and by ``python -m app purge``. Both databases."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import httpx
from fastapi import FastAPI
from sqlalchemy import text

from app.main import create_app
from app.persistence.db import Database
from app.services.retention import Purged, Retention
from app.services.stored import utcnow
from app.settings import Settings
from tests.retention.conftest import count, create_game, last_changed
from tests.settings import LIMITS_OFF

REPO_ROOT = Path(__file__).resolve().parents[2]
OLD = timedelta(days=31)  # older than the 30 days the tests keep games for


def _retention(db: Database, batch_size: int = 100) -> Retention:
    return Retention(db, retention_days=30, batch_size=batch_size)


async def test_a_sweep_deletes_idle_games_with_their_events_and_keys(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    db: Database = app.state.db
    idle = (await create_game(client, key="idle-game-key-00000000000001"))["game"]["id"]
    kept = (await create_game(client, key="kept-game-key-00000000000001"))["game"]["id"]
    last_changed(db, idle, utcnow() - OLD)
    last_changed(db, kept, utcnow() - timedelta(days=29))
    assert count(db, "events", idle) == 2
    assert count(db, "idempotency_keys", idle) == 1

    assert _retention(db).sweep() == Purged(games=1)

    assert count(db, "games", idle) == 0
    assert count(db, "events", idle) == 0
    assert count(db, "idempotency_keys", idle) == 0
    assert count(db, "games", kept) == 1
    assert count(db, "events", kept) == 2
    assert count(db, "idempotency_keys", kept) == 1
    host = {"Authorization": "Bearer whatever"}
    assert (await client.get(f"/v1/games/{idle}", headers=host)).status_code == 404


async def test_a_sweep_deletes_one_batch_and_purge_all_of_them(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    db: Database = app.state.db
    for _ in range(5):
        game_id = (await create_game(client))["game"]["id"]
        last_changed(db, game_id, utcnow() - OLD)
    retention = _retention(db, batch_size=2)
    assert retention.sweep().games == 2
    assert count(db, "games") == 3
    assert retention.purge().games == 3
    assert count(db, "games") == 0
    assert count(db, "events") == 0


async def test_a_retention_of_zero_keeps_games(app: FastAPI, client: httpx.AsyncClient) -> None:
    db: Database = app.state.db
    game_id = (await create_game(client))["game"]["id"]
    last_changed(db, game_id, utcnow() - timedelta(days=3650))
    assert Retention(db, retention_days=0, batch_size=10).purge() == Purged()
    assert count(db, "games") == 1


def _insert_limits_and_keys(db: Database) -> None:
    now_ms = int(time.time() * 1000)
    now = utcnow()
    with db.engine.begin() as conn:
        for address, tat in [("192.0.2.1", now_ms - 1000), ("192.0.2.2", now_ms + 600_000)]:
            conn.execute(
                text("INSERT INTO creation_limits (address, tat_ms) VALUES (:a, :t)"),
                {"a": address, "t": tat},
            )
        for name, expires in [("expired", now - timedelta(hours=1)), ("live", now + OLD)]:
            conn.execute(
                text(
                    "INSERT INTO idempotency_keys (key_hash, request_hash, state, locked_until,"
                    " created_at, expires_at) VALUES (:k, 'r', 'completed', :c, :c, :e)"
                ),
                {"k": name, "c": now - timedelta(days=2), "e": expires},
            )


def test_a_sweep_deletes_expired_creation_limits_and_idempotency_keys(
    migrated_database: Database,
) -> None:
    _insert_limits_and_keys(migrated_database)
    assert _retention(migrated_database).sweep() == Purged(idempotency_keys=1, creation_limits=1)
    with migrated_database.engine.connect() as conn:
        assert conn.execute(text("SELECT address FROM creation_limits")).scalars().all() == [
            "192.0.2.2"
        ]
        assert conn.execute(text("SELECT key_hash FROM idempotency_keys")).scalars().all() == [
            "live"
        ]


async def test_the_service_sweeps_by_itself(database_url: str) -> None:
    app = create_app(
        Settings(
            database_url=database_url,
            retention_sweep_seconds=0.05,
            game_retention_days=30,
            **LIMITS_OFF,
        )
    )
    db: Database = app.state.db
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            game_id = (await create_game(client))["game"]["id"]
            last_changed(db, game_id, utcnow() - OLD)
            # Generous: the sweep runs every 0.05 s; a loaded machine may take far longer.
            deadline = time.monotonic() + 30
            while count(db, "games", game_id) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert count(db, "games", game_id) == 0


async def test_purge_command_deletes_and_prints_what_it_deleted(
    app: FastAPI, client: httpx.AsyncClient, database_url: str
) -> None:
    db: Database = app.state.db
    idle = [(await create_game(client))["game"]["id"] for _ in range(3)]
    kept = (await create_game(client))["game"]["id"]
    for game_id in idle:
        last_changed(db, game_id, utcnow() - OLD)
    _insert_limits_and_keys(db)
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "GAME_RETENTION_DAYS": "30",
        "RETENTION_BATCH_SIZE": "2",
    }
    done = subprocess.run(
        [sys.executable, "-m", "app", "purge"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Deleted 3 games idle since before "), done.stdout
    assert "1 expired idempotency keys and 1 expired creation limits" in done.stdout
    assert count(db, "games") == 1
    assert count(db, "games", kept) == 1
    assert count(db, "events") == 2
