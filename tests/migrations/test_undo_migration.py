"""Migration 0005: the games stored before it can undo every change of play of their log,
have no round and no recovery code; a downgrade gives back the state format 1 rows."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.pool import NullPool

from app.main import create_app
from app.persistence.db import normalize_url
from app.persistence.migrate import downgrade, upgrade
from app.settings import Settings
from tests.api.conftest import create_game
from tests.settings import LIMITS_OFF


def _state(url: str, game_id: str) -> dict[str, Any]:
    engine = create_engine(normalize_url(url), poolclass=NullPool)
    try:
        with engine.connect() as conn:
            raw = conn.execute(text("SELECT state FROM games WHERE id = :id"), {"id": game_id})
            value = raw.scalar_one()
            return json.loads(value) if isinstance(value, str) else value
    finally:
        engine.dispose()


def _columns(url: str) -> set[str]:
    engine = create_engine(normalize_url(url), poolclass=NullPool)
    try:
        with engine.connect() as conn:
            return {c["name"] for c in inspect(conn).get_columns("games")}
    finally:
        engine.dispose()


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ]
)
def url(request: pytest.FixtureRequest) -> str:
    found: str = request.getfixturevalue(
        "sqlite_url" if request.param == "sqlite" else "postgres_url"
    )
    upgrade(found)
    return found


async def _play(url: str) -> tuple[str, dict[str, str], dict[str, Any]]:
    """A game with the changes the release before 0005 could make; its id, host header and
    document."""
    app = create_app(Settings(database_url=url, **LIMITS_OFF))
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            game = await create_game(client)
            await game.set_faith(p1=5, p2=1, p3=9)
            assert (await game.decide(1, "p3", "refuse")).status_code == 200
            assert (await game.resolve(1, default_choice="support")).status_code == 201
            return game.id, game.host(), await game.read()
    finally:
        app.state.db.dispose()


async def test_a_game_stored_before_0005_undoes_every_change_of_its_log(url: str) -> None:
    game_id, host, document = await _play(url)
    downgrade(url, "0004_player_budgets")
    old = _state(url, game_id)
    assert old["format"] == 1 and not {"round", "undoable", "redoable"} & set(old)
    assert "recovery_code_hash" not in _columns(url)

    upgrade(url)
    new = _state(url, game_id)
    assert new["format"] == 2 and new["round"] is None and new["redoable"] == []
    assert new["undoable"] == [[2, "faith_set"], [3, "decision_set"], [4, "report_resolved"]]
    assert {
        k: v for k, v in new.items() if k not in ("format", "round", "undoable", "redoable")
    } == {k: v for k, v in old.items() if k != "format"}
    app = create_app(Settings(database_url=url, **LIMITS_OFF))
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            read = await client.get(f"/v1/games/{game_id}", headers=host)
            assert read.json() == {**document, "round": None}
            for kind in ("report_resolved", "decision_set", "faith_set"):
                undone = await client.post(f"/v1/games/{game_id}/undo", headers=host)
                assert undone.status_code == 200, undone.text
                assert undone.json()["undone"]["type"] == kind
            players = undone.json()["game"]["players"]
            assert [(p["faith"], p["excommunications"]) for p in players] == [(0, [])] * 3
            nothing = await client.post(f"/v1/games/{game_id}/undo", headers=host)
            assert nothing.status_code == 409 and nothing.json()["type"].endswith("nothing-to-undo")
            # No recovery code was ever shown for it: none regains its seat.
            recovery = await client.post(
                f"/v1/games/{game_id}/recovery", json={"recovery_code": "A" * 32}
            )
            assert recovery.status_code == 401
    finally:
        app.state.db.dispose()
