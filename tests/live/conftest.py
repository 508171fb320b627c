"""Live-game fixtures: real ``python -m app`` processes sharing one database (SQLite file
or PostgreSQL), an SSE reader, and an in-process app for the long-poll and the hub.

Timings here are bounds, never measurements: every wait is generous (tens of seconds) for
a loaded 2-core machine, and a test only fails when something never happens.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.main import create_app
from app.settings import Settings
from tests.api.conftest import GameHandle, create_game
from tests.conftest import _create_database, _drop_database, _with_database
from tests.support.servers import Server, running

# A heartbeat every 0.2 s; streams live 4 s (so tests also cross the time bound); a
# process follows at most 4 clients (the 503 test opens a fifth).
LIVE_ENV = {
    "STREAM_HEARTBEAT_SECONDS": "0.2",
    "STREAM_MAX_SECONDS": "4",
    "MAX_STREAMS": "4",
    "CHANGE_POLL_SECONDS": "0.05",
}
PATIENCE = 30.0  # seconds: the most any test waits for something that must happen


@pytest.fixture(
    scope="module",
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ],
)
def shared_database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A database the module's servers share (migrated by the first server)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('live')}/live.db"
        return
    server_url: str = request.getfixturevalue("postgres_server_url")
    name = _create_database(server_url)
    try:
        yield _with_database(server_url, name)
    finally:
        _drop_database(server_url, name)


@contextlib.contextmanager
def server_pair(
    database: str, tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]
) -> Iterator[tuple[Server, Server]]:
    """Two ``python -m app`` processes, A and B, on one database, with ``env``."""
    logs = tmp_path_factory.mktemp("live-logs")
    a = Server(database, logs, "a", env=env)
    b = Server(database, logs, "b", env=env)
    with running(a, b):
        yield a, b


@pytest.fixture(scope="module")
def servers(
    shared_database: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Server, Server]]:
    """Two ``python -m app`` processes, A and B, on one database (a module may define its
    own, with ``server_pair`` and settings of its own)."""
    with server_pair(shared_database, tmp_path_factory, LIVE_ENV) as pair:
        yield pair


@dataclass
class Frame:
    """One SSE event (id, event, data) or a comment."""

    id: str | None = None
    event: str | None = None
    data: str = ""
    comment: str | None = None
    retry: int | None = None


@dataclass
class Stream:
    """An open event stream, read frame by frame."""

    response: httpx.Response
    frames: list[Frame] = field(default_factory=list)
    _lines: AsyncIterator[str] | None = None

    async def next_frame(self, timeout: float = PATIENCE) -> Frame | None:
        """The next frame, None when the server ended the stream."""
        if self._lines is None:
            self._lines = self.response.aiter_lines()
        frame = Frame()
        started = False
        async with asyncio.timeout(timeout):
            async for line in self._lines:
                if line == "":
                    if started:
                        self.frames.append(frame)
                        return frame
                    continue
                started = True
                name, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if name == "":
                    frame.comment = value
                elif name == "id":
                    frame.id = value
                elif name == "event":
                    frame.event = value
                elif name == "data":
                    frame.data = f"{frame.data}\n{value}" if frame.data else value
                elif name == "retry":
                    frame.retry = int(value)
        return None

    async def next_event(self, timeout: float = PATIENCE) -> Frame | None:
        """The next event (comments and retry advice skipped), None at the end."""
        while True:
            frame = await self.next_frame(timeout)
            if frame is None or frame.id is not None:
                return frame


@contextlib.asynccontextmanager
async def open_stream(
    client: httpx.AsyncClient, url: str, headers: dict[str, str]
) -> AsyncIterator[Stream]:
    async with client.stream("GET", url, headers=headers) as response:
        yield Stream(response)


def live_subscribers(metrics: str) -> float:
    found = re.search(r"^live_subscribers(?:\{[^}]*\})? ([0-9.e+-]+)$", metrics, re.M)
    assert found, metrics
    return float(found.group(1))


async def wait_for_subscribers(client: httpx.AsyncClient, base_url: str, count: int) -> None:
    """Until the server's ``live_subscribers`` gauge reads ``count`` (fails after PATIENCE)."""
    value = None
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(PATIENCE):
            while True:
                value = live_subscribers((await client.get(f"{base_url}/metrics")).text)
                if value == count:
                    return
                await asyncio.sleep(0.1)
    raise AssertionError(f"live_subscribers stayed at {value}, not {count}")


# ---- in process (the long-poll and the hub) --------------------------------------------


@pytest.fixture
async def clients(servers: tuple[Server, Server]) -> AsyncIterator[tuple[httpx.AsyncClient, ...]]:
    """A client of each of the module's two servers (``servers``, which a module may
    define for itself); every test leaves no follower behind, on either process."""
    a, b = servers
    timeout = httpx.Timeout(PATIENCE)
    async with (
        httpx.AsyncClient(base_url=a.base_url, timeout=timeout) as on_a,
        httpx.AsyncClient(base_url=b.base_url, timeout=timeout) as on_b,
    ):
        yield on_a, on_b
        await wait_for_subscribers(on_a, a.base_url, 0)
        await wait_for_subscribers(on_b, b.base_url, 0)


@pytest.fixture
def live_settings() -> dict[str, Any]:
    """Extra settings for ``live_app`` (override in a test module)."""
    return {}


@pytest.fixture
async def live_app(database_url: str, live_settings: dict[str, Any]) -> AsyncIterator[FastAPI]:
    app = create_app(Settings(database_url=database_url, **live_settings))
    yield app
    app.state.live_hub.stop()
    app.state.db.dispose()


@pytest.fixture
async def live_client(live_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=live_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


@pytest.fixture
async def live_game(live_client: httpx.AsyncClient) -> GameHandle:
    return await create_game(live_client)
