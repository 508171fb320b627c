"""Games and limits made old on purpose, on both databases."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx
from sqlalchemy import text, update

from app.persistence.db import Database
from app.persistence.tables import GAMES, hour_of
from tests.api.conftest import app, client

__all__ = ["app", "client", "create_game"]

GAME = {"players": [{"name": "Anna"}, {"name": "Bruno"}], "seed": 42}


async def create_game(client: httpx.AsyncClient, key: str | None = None) -> dict[str, Any]:
    """A game with one change after its creation (two events), created with ``key``."""
    headers = {"Idempotency-Key": key} if key else {}
    created = await client.post("/v1/games", json=GAME, headers=headers)
    assert created.status_code == 201, created.text
    data: dict[str, Any] = created.json()
    changed = await client.put(
        f"/v1/games/{data['game']['id']}/players/p1/faith",
        json={"faith": 3},
        headers={"Authorization": f"Bearer {data['host_token']}"},
    )
    assert changed.status_code == 200, changed.text
    return data


def last_changed(db: Database, game_id: str, at: datetime) -> None:
    """Pretend the game's last change was at ``at`` (and in its hour, as a change writes)."""
    with db.engine.begin() as conn:
        conn.execute(
            update(GAMES)
            .where(GAMES.c.id == game_id)
            .values(updated_at=at, updated_hour=hour_of(at))
        )


def count(db: Database, table: str, game_id: str | None = None) -> int:
    where, params = ("", {}) if game_id is None else (" WHERE game_id = :id", {"id": game_id})
    if table == "games" and game_id is not None:
        where = " WHERE id = :id"
    with db.engine.connect() as conn:
        return int(conn.execute(text(f"SELECT count(*) FROM {table}{where}"), params).scalar_one())
