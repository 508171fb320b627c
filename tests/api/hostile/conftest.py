"""Fixtures of the hostile-input suite (the package docstring says how to add a case).

- ``world``: one app and its five games per database (SQLite, then PostgreSQL), built once
  for the whole package and shared by every case.
- ``world_client``: an in-process client of that app.
- ``run_stateless_case``: sends a case to an endpoint that stores nothing (reference data,
  calculations, game creation) and checks the problem and that no table grew.
- ``run_game_case``: sends a case to a stored game's endpoint and checks the problem and that
  the game, its ETag, its event log and every table read as before.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from app.main import create_app
from app.settings import Settings
from tests.api.conftest import GameHandle, create_game
from tests.api.hostile.harness import (
    TWO,
    Case,
    CaseRunner,
    World,
    assert_problem,
    row_counts,
    send,
    snapshot,
)
from tests.conftest import truncate_all
from tests.settings import LIMITS_OFF

# Each refused request must leave everything as it was, so the cases can share their games:
# a case that wrote anything fails itself (snapshot and row counts), and sharing keeps the
# suite to a few seconds per database.


async def _build_games(app: FastAPI) -> dict[str, tuple[str, str, dict[str, str]]]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        handles = {
            "fresh": await create_game(client),
            "faith": await create_game(client),
            "resolved": await create_game(client),
            "enter": await create_game(client, players_enter_faith=True),
            "other": await create_game(client, players=TWO),
        }
        await handles["faith"].set_faith(p1=5)
        response = await handles["resolved"].resolve(1)
        assert response.status_code == 201, response.text
    return {k: (h.id, h.host_token, h.player_tokens) for k, h in handles.items()}


@pytest.fixture(
    # Package scope: built once per database for all the modules of this package, and torn
    # down before the suites that follow reuse (and truncate) the session's databases.
    scope="package",
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ],
)
def world(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[World]:
    """The app on a clean migrated database (SQLite, then PostgreSQL) with five games."""
    if request.param == "sqlite":
        template: Path = request.getfixturevalue("sqlite_migrated_template")
        path = tmp_path_factory.mktemp("hostile") / "test.db"
        shutil.copyfile(template, path)
        url = f"sqlite:///{path}"
    else:
        url = request.getfixturevalue("postgres_migrated_url")
        truncate_all(url)
    app = create_app(Settings(database_url=url, **LIMITS_OFF))
    try:
        yield World(request.param, app, asyncio.run(_build_games(app)))
    finally:
        app.state.db.dispose()


@pytest.fixture
async def world_client(world: World) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=world.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


@pytest.fixture
def run_stateless_case(world: World, world_client: httpx.AsyncClient) -> CaseRunner:
    """Reference data, calculations and game creation: a problem, and nothing stored."""

    async def run(c: Case) -> None:
        before = row_counts(world.app)
        assert_problem(await send(world_client, c, {}), c)
        assert row_counts(world.app) == before

    return run


@pytest.fixture
def run_game_case(
    request: pytest.FixtureRequest, world: World, world_client: httpx.AsyncClient
) -> CaseRunner:
    """A stored game's endpoints: a problem, and the game exactly as it was."""

    async def run(c: Case) -> None:
        if c.pg_bug and world.db == "postgres":
            request.node.add_marker(pytest.mark.xfail(strict=True, reason=f"BUG: {c.pg_bug}"))
        game_id, host_token, player_tokens = world.games[c.setup or "fresh"]
        _, other_host, other_players = world.games["other"]
        game = GameHandle(world_client, {}, host_token, player_tokens, {"id": game_id})
        values = {
            "game": game_id,
            "host": host_token,
            **player_tokens,
            "other": other_host,
            "other_p1": other_players["p1"],
        }
        before = await snapshot(world_client, game)
        counts = row_counts(world.app)
        assert_problem(await send(world_client, c, values), c)
        assert await snapshot(world_client, game) == before
        assert row_counts(world.app) == counts

    return run
