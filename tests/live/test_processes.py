"""Streams across the worker processes of one server, and at its shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import create_game
from tests.live.conftest import LIVE_ENV, PATIENCE, Stream, open_stream
from tests.support.servers import Server, running


async def test_with_two_sqlite_workers_every_stream_hears_every_change(tmp_path: Path) -> None:
    """``--workers 2`` on one SQLite file: whichever worker takes a change, streams held by
    both workers get it (eight streams and eight writes: both workers hold streams and
    take writes unless the kernel sends everything to one, 2 chances in 2**16)."""
    server = Server(f"sqlite:///{tmp_path}/workers.db", tmp_path, "workers", workers=2)
    # Eight streams on the host's token, however the kernel spreads them over the workers.
    server.env = {
        **LIVE_ENV,
        "MAX_STREAMS": "100",
        "MAX_STREAMS_PER_SEAT": "8",
        "STREAM_MAX_SECONDS": "600",
    }
    with running(server):
        limits = httpx.Limits(max_keepalive_connections=0)  # a new connection per request
        async with httpx.AsyncClient(
            base_url=server.base_url, timeout=PATIENCE, limits=limits
        ) as client:
            game = await create_game(client)
            async with contextlib.AsyncExitStack() as stack:
                streams: list[Stream] = []
                for _ in range(8):
                    stream = await stack.enter_async_context(
                        open_stream(client, f"{game.url}/events/stream", game.host())
                    )
                    assert stream.response.status_code == 200
                    streams.append(stream)
                for faith in range(1, 9):
                    await game.set_faith(p1=faith)
                for stream in streams:
                    seqs = []
                    while len(seqs) < 9:
                        event = await stream.next_event()
                        assert event is not None, f"the stream ended after {seqs}"
                        seqs.append(int(event.id or 0))
                    assert seqs == list(range(1, 10))


@pytest.mark.parametrize(
    "database",
    ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
async def test_sigterm_ends_open_streams_cleanly_and_the_process_exits(
    database: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = (
        f"sqlite:///{tmp_path}/shutdown.db"
        if database == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    server = Server(url, tmp_path, "shutdown", env={**LIVE_ENV, "STREAM_MAX_SECONDS": "600"})
    with running(server):
        async with httpx.AsyncClient(base_url=server.base_url, timeout=PATIENCE) as client:
            game = await create_game(client)
            async with contextlib.AsyncExitStack() as stack:
                streams = [
                    await stack.enter_async_context(
                        open_stream(client, f"{game.url}/events/stream", game.host())
                    )
                    for _ in range(3)
                ]
                for stream in streams:
                    assert (await stream.next_event()) is not None
                assert server.proc is not None
                server.proc.send_signal(signal.SIGTERM)
                for stream in streams:
                    # Frames until the end: the server closes each stream properly (a
                    # cut connection would raise here instead).
                    async with asyncio.timeout(PATIENCE):
                        while await stream.next_frame() is not None:
                            pass
            # With its streams ended, the process exits by itself (no SIGKILL needed:
            # without the hub's signal handler it would wait for them forever).
            loop = asyncio.get_running_loop()
            code = await loop.run_in_executor(None, lambda: server.proc.wait(PATIENCE))  # type: ignore[union-attr]
            # uvicorn raises the signal again once it is done: -SIGTERM is its clean exit.
            assert code in (0, -signal.SIGTERM), server.log_tail()
            assert "Traceback" not in server.log_tail(200), server.log_tail(200)
