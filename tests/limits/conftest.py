"""The app with rate limits set by each test, on both databases."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.main import create_app
from app.settings import Settings

GAME = {"players": [{"name": "Anna"}, {"name": "Bruno"}], "seed": 42}

AppWith = Callable[..., FastAPI]


@pytest.fixture
def app_with(database_url: str) -> AppWith:
    """``app_with(**settings)``: the app on the test's database with those settings."""

    def build(**settings: Any) -> FastAPI:
        return create_app(Settings(database_url=database_url, **settings))

    return build


@pytest.fixture
async def client_for() -> AsyncIterator[Callable[[FastAPI], httpx.AsyncClient]]:
    """``client_for(app)``: an in-process client whose peer address is 127.0.0.1."""
    clients: list[tuple[FastAPI, httpx.AsyncClient]] = []

    def build(app: FastAPI) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
        client = httpx.AsyncClient(transport=transport, base_url="http://test")
        clients.append((app, client))
        return client

    yield build
    for app, client in clients:
        await client.aclose()
        app.state.db.dispose()


def slug(response: httpx.Response) -> str:
    return str(response.json()["type"]).rsplit("/", 1)[-1]


def retry_after(response: httpx.Response) -> int:
    value = response.headers["Retry-After"]
    assert value.isdigit(), value
    return int(value)
