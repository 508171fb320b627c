"""API fixtures: the app on a clean migrated database (SQLite and PostgreSQL), an
in-process client, a helper that creates a game and keeps its tokens, and the threads the
app's units of work run on."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.main import create_app
from app.settings import Settings
from tests.settings import LIMITS_OFF


@pytest.fixture
def app(database_url: str) -> FastAPI:
    return create_app(Settings(database_url=database_url, **LIMITS_OFF))


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c
    app.state.live_hub.stop()  # a long-poll started its change feed
    app.state.db.dispose()


@dataclass
class GameHandle:
    """A created game with its tokens, and helpers to call it as the host or a player."""

    client: httpx.AsyncClient
    body: dict[str, Any]
    host_token: str
    player_tokens: dict[str, str]
    game: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return str(self.game["id"])

    @property
    def url(self) -> str:
        return f"/v1/games/{self.id}"

    def host(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.host_token}"}

    def player(self, player_id: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.player_tokens[player_id]}"}

    async def read(self) -> dict[str, Any]:
        response = await self.client.get(self.url, headers=self.host())
        assert response.status_code == 200, response.text
        self.game = response.json()
        return self.game

    async def set_faith(self, **faith: int) -> None:
        response = await self.client.put(
            f"{self.url}/faith", json={"faith": faith}, headers=self.host()
        )
        assert response.status_code == 200, response.text

    async def decide(self, period: int, player_id: str, choice: str) -> httpx.Response:
        return await self.client.put(
            f"{self.url}/reports/{period}/decisions/{player_id}",
            json={"choice": choice},
            headers=self.host(),
        )

    async def resolve(self, period: int, **body: Any) -> httpx.Response:
        return await self.client.post(
            f"{self.url}/reports/{period}/resolution", json=body, headers=self.host()
        )


async def create_game(client: httpx.AsyncClient, **overrides: Any) -> GameHandle:
    body: dict[str, Any] = {
        "players": [
            {"name": "Anna", "leaders": ["sisto_iv"]},
            {"name": "Bruno"},
            {"name": "Carla"},
        ],
        "seed": 42,
    }
    body.update(overrides)
    response = await client.post("/v1/games", json=body)
    assert response.status_code == 201, response.text
    data = response.json()
    return GameHandle(client, body, data["host_token"], data["player_tokens"], data["game"])


@pytest.fixture
async def game(client: httpx.AsyncClient) -> GameHandle:
    """Three players (Anna has Sisto IV), seed 42: tiles I-6, II-3, III-7."""
    return await create_game(client)


@pytest.fixture
def threads(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> list[threading.Thread]:
    """The threads the app's units of work run on, from now on (a read on the event loop
    opens none)."""
    seen: list[threading.Thread] = []
    database = app.state.db
    transaction = database.transaction

    def recorded(**kwargs: Any) -> AbstractContextManager[Any]:
        seen.append(threading.current_thread())
        return transaction(**kwargs)

    monkeypatch.setattr(database, "transaction", recorded)
    return seen
