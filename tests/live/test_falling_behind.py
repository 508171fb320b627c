"""Streams in process, through the whole route. A client that stops reading: the
server's send waits (as uvicorn's does once the socket's buffers are full) while events
pile up for it; past STREAM_BUFFER_BYTES the stream is ended with ``: end behind``, what
it held is let go at once, and the client resumes by ``Last-Event-ID`` with every seq
once, in order.

Over loopback the kernel takes megabytes of an unread stream before a send waits, more
than a game's whole log: hence an ASGI client here rather than a socket. And a flood of
new streams: their token checks take a few request threads at most."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fastapi import FastAPI

from app.services.live import LiveHub
from app.services.live_limits import STREAM_ADMISSIONS
from tests.api.conftest import GameHandle
from tests.live.conftest import PATIENCE
from tests.live.test_replays import seqs_of


@pytest.fixture
def live_settings() -> dict[str, Any]:
    # A faith_set frame is about 200 bytes: a few of them fill this buffer.
    return {"stream_buffer_bytes": 600, "game_write_rate": 0, "db_pool_timeout_ms": 500}


class StreamClient:
    """One stream request to the app, driven as a server would drive it; while
    ``reading`` is clear, every send of the body waits."""

    def __init__(self, app: FastAPI, game: GameHandle, last_event_id: str | None = None):
        headers = [(b"host", b"test"), (b"authorization", f"Bearer {game.host_token}".encode())]
        if last_event_id is not None:
            headers.append((b"last-event-id", last_event_id.encode()))
        path = f"{game.url}/events/stream"
        self.scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("test", 80),
            "extensions": {},
        }
        self.app = app
        self.reading = asyncio.Event()
        self.reading.set()
        self.status: int | None = None
        self.body = b""
        self.ended = asyncio.Event()
        self._asked = False
        self._gone = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def _receive(self) -> dict[str, Any]:
        if not self._asked:
            self._asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self._gone.wait()
        return {"type": "http.disconnect"}

    async def _send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            return
        await self.reading.wait()
        self.body += message.get("body", b"")
        if not message.get("more_body", False):
            self.ended.set()

    def start(self) -> StreamClient:
        self.task = asyncio.create_task(self.app(self.scope, self._receive, self._send))
        return self

    async def until(self, condition: Any) -> None:
        async with asyncio.timeout(PATIENCE):
            while not condition():
                await asyncio.sleep(0.02)

    async def close(self) -> None:
        self._gone.set()
        self.reading.set()
        if self.task is not None:
            async with asyncio.timeout(PATIENCE):
                await self.task


async def test_a_client_that_stops_reading_is_cut_behind_and_resumes_with_every_seq_once(
    live_app: FastAPI, live_game: GameHandle
) -> None:
    hub: LiveHub = live_app.state.live_hub
    slow = StreamClient(live_app, live_game).start()
    await slow.until(lambda: b"id: 1\n" in slow.body)
    assert slow.status == 200
    (follower,) = [s for channel in hub._channels.values() for s in channel.subscribers]
    slow.reading.clear()  # the client reads nothing more
    for faith in range(1, 13):
        await live_game.set_faith(p1=faith)

    # Cut while its client still reads nothing: what it held is dropped already. (Its
    # stream may have ended already too, if it was not waiting on the client's socket.)
    await slow.until(lambda: follower.ended == "behind")
    assert not follower._items
    slow.reading.set()
    async with asyncio.timeout(PATIENCE):
        await slow.ended.wait()
    await slow.close()
    assert slow.body.endswith(b": end behind\n\n")
    got = seqs_of(slow.body)
    assert got and got[-1] < 13

    resumed = StreamClient(live_app, live_game, last_event_id=str(got[-1])).start()
    await resumed.until(lambda: b"id: 13\n" in resumed.body)
    await resumed.close()
    assert got + seqs_of(resumed.body) == list(range(1, 14))
    assert hub.count == 0


async def test_streams_have_their_tokens_checked_a_few_at_a_time_and_wait_in_line_boundedly(
    live_app: FastAPI, live_game: GameHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each check of a stream's token may take a request thread: a flood of streams gets
    STREAM_ADMISSIONS of them at once, the others wait on the event loop, at most
    DB_POOL_TIMEOUT_MS (here 500 ms), then 503 too-many-streams with Retry-After."""
    service = live_app.state.game_service
    check = service.follower
    under_way, most, release = 0, 0, asyncio.Event()

    async def slow_check(game_id: str, token: str | None) -> tuple[int, str]:
        nonlocal under_way, most
        under_way += 1
        most = max(most, under_way)
        try:
            await release.wait()
            return await check(game_id, token)
        finally:
            under_way -= 1

    monkeypatch.setattr(service, "follower", slow_check)
    clients = [StreamClient(live_app, live_game).start() for _ in range(6)]
    refused = clients[STREAM_ADMISSIONS:]
    await clients[0].until(lambda: all(c.ended.is_set() for c in refused))
    assert most == STREAM_ADMISSIONS
    for client in refused:
        assert client.status == 503
        assert b"too-many-streams" in client.body
    release.set()
    for client in clients[:STREAM_ADMISSIONS]:
        await client.until(lambda c=client: b"id: 1\n" in c.body)
        assert client.status == 200
    for client in clients:
        await client.close()
