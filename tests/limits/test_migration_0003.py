"""Migration 0003 (the limits' columns and table) keeps every game and event, up and down."""

from __future__ import annotations

import httpx
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.pool import NullPool

from app.main import create_app
from app.persistence.db import normalize_url
from app.persistence.migrate import downgrade, upgrade
from app.settings import Settings
from tests.limits.conftest import GAME
from tests.settings import LIMITS_OFF


def _counts(url: str) -> tuple[int, int, set[str], set[str]]:
    engine = create_engine(normalize_url(url), poolclass=NullPool)
    try:
        with engine.connect() as conn:
            games = conn.execute(text("SELECT count(*) FROM games")).scalar_one()
            events = conn.execute(text("SELECT count(*) FROM events")).scalar_one()
            columns = {c["name"] for c in inspect(conn).get_columns("games")}
            tables = set(inspect(conn).get_table_names())
        return games, events, columns, tables
    finally:
        engine.dispose()


async def test_0003_down_and_up_keeps_games_and_events(empty_url: str) -> None:
    upgrade(empty_url)
    app = create_app(Settings(database_url=empty_url, **LIMITS_OFF))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        for _ in range(2):
            created = await client.post("/v1/games", json=GAME)
            assert created.status_code == 201
            data = created.json()
            changed = await client.put(
                f"/v1/games/{data['game']['id']}/faith",
                json={"faith": {"p1": 2}},
                headers={"Authorization": f"Bearer {data['host_token']}"},
            )
            assert changed.status_code == 200
    app.state.db.dispose()

    downgrade(empty_url, "0002_game_row")
    games, events, columns, tables = _counts(empty_url)
    assert (games, events) == (2, 4)
    assert "write_tat_ms" not in columns
    assert "creation_limits" not in tables

    upgrade(empty_url)
    games, events, columns, tables = _counts(empty_url)
    assert (games, events) == (2, 4)
    assert "write_tat_ms" in columns
    assert "creation_limits" in tables
