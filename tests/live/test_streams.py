"""The event stream over real HTTP, between real ``python -m app`` processes sharing one
database: on PostgreSQL through LISTEN/NOTIFY, on SQLite through each process's watcher."""

from __future__ import annotations

import asyncio
import contextlib
import json

import httpx
import pytest

from tests.api.conftest import GameHandle, create_game
from tests.live.conftest import (
    PATIENCE,
    Stream,
    open_stream,
    wait_for_subscribers,
)
from tests.support.servers import Server


async def set_faith(game: GameHandle, faith: int) -> None:
    await game.set_faith(p1=faith)


async def test_a_change_made_through_a_reaches_a_stream_on_b(
    clients: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    on_a, on_b = clients
    game = await create_game(on_a)
    async with open_stream(on_b, f"{game.url}/events/stream", game.player("p2")) as stream:
        assert stream.response.status_code == 200
        assert stream.response.headers["content-type"].startswith("text/event-stream")
        first = await stream.next_frame()
        assert first is not None and first.retry is not None and first.retry > 0
        created = await stream.next_event()
        assert created is not None and (created.id, created.event) == ("1", "game_created")
        await set_faith(game, 7)
        changed = await stream.next_event()
        assert changed is not None and (changed.id, changed.event) == ("2", "faith_set")
    # The data is the events list's JSON for the same event.
    listed = await on_a.get(f"{game.url}/events", params={"after": 1}, headers=game.host())
    assert json.loads(changed.data) == listed.json()["events"][0]


async def test_resume_after_forced_disconnects_in_a_burst_gets_every_seq_once_in_order(
    clients: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    on_a, on_b = clients
    game = await create_game(on_a)
    burst = 100

    async def write() -> None:
        for i in range(burst):
            await set_faith(game, i % 15 + 1)

    writer = asyncio.create_task(write())
    seen: list[int] = []
    last_id: str | None = None
    cuts = 0
    try:
        async with asyncio.timeout(PATIENCE * 4):
            while len(seen) < burst + 1:
                headers = (
                    game.host() if last_id is None else {**game.host(), "Last-Event-ID": last_id}
                )
                async with open_stream(on_b, f"{game.url}/events/stream", headers) as stream:
                    assert stream.response.status_code == 200, await stream.response.aread()
                    while (event := await stream.next_event()) is not None:
                        assert event.id is not None
                        seen.append(int(event.id))
                        last_id = event.id
                        # Hang up in the middle of the burst, three times.
                        if len(seen) in (20, 50, 80) and cuts < 3:
                            cuts += 1
                            break
    finally:
        await writer
    assert cuts == 3
    assert seen == list(range(1, burst + 2)), seen


async def test_heartbeats_arrive_while_nothing_happens(
    clients: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    on_a, on_b = clients
    game = await create_game(on_a)
    async with open_stream(on_b, f"{game.url}/events/stream", game.host()) as stream:
        comments = 0
        while comments < 3:
            frame = await stream.next_frame()
            assert frame is not None, "the stream ended before three heartbeats"
            comments += frame.comment == "heartbeat"


async def test_a_stream_ends_at_its_time_bound_and_resumes(
    clients: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    """STREAM_MAX_SECONDS is 4 here: the stream ends cleanly, the client comes back."""
    on_a, on_b = clients
    game = await create_game(on_a)
    async with open_stream(on_b, f"{game.url}/events/stream", game.host()) as stream:
        while await stream.next_frame() is not None:
            pass
    # Its last line says why it ended (docs/api.md).
    assert stream.frames[-1].comment == "end time-bound"
    headers = {**game.host(), "Last-Event-ID": "1"}
    async with open_stream(on_b, f"{game.url}/events/stream", headers) as stream:
        await set_faith(game, 3)
        event = await stream.next_event()
        assert event is not None and event.id == "2"


@pytest.mark.parametrize(
    ("headers", "status", "slug"),
    [
        ({}, 401, "unauthorized"),
        ({"Authorization": "Bearer not-a-token-of-this-game"}, 401, "unauthorized"),
    ],
)
async def test_a_stream_needs_a_token_of_the_game(
    clients: tuple[httpx.AsyncClient, httpx.AsyncClient],
    headers: dict[str, str],
    status: int,
    slug: str,
) -> None:
    on_a, on_b = clients
    game = await create_game(on_a)
    response = await on_b.get(f"{game.url}/events/stream", headers=headers)
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["type"].endswith(slug)


async def test_a_token_in_the_url_is_not_read(
    clients: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    on_a, on_b = clients
    game = await create_game(on_a)
    for name in ("token", "access_token"):
        response = await on_b.get(f"{game.url}/events/stream", params={name: game.host_token})
        assert response.status_code == 401


async def test_a_token_of_another_game_and_an_unknown_game(
    clients: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    on_a, on_b = clients
    game, other = await create_game(on_a), await create_game(on_a)
    response = await on_b.get(f"{game.url}/events/stream", headers=other.host())
    assert response.status_code == 401
    missing = await on_b.get(f"/v1/games/{'0' * 32}/events/stream", headers=game.host())
    assert (missing.status_code, missing.json()["type"].rsplit("/", 1)[-1]) == (404, "not-found")
    # RFC 9110 digits only, and no more of them than the largest seq has: superscripts
    # (which str.isdigit takes), a sign and 4,301 digits (which int() refuses) included.
    for value in (b"x", b"\xb2", b"\xb9", b"+1", b"1_0", b"9" * 4301, b"2147483648"):
        bad = await on_b.get(
            f"{game.url}/events/stream", headers={**game.host(), "Last-Event-ID": value}
        )
        assert bad.status_code == 422, (value[:12], bad.status_code)
        assert bad.json()["errors"][0]["loc"] == ["header", "Last-Event-ID"]


async def test_clients_that_vanish_leave_no_subscriber_behind(
    clients: tuple[httpx.AsyncClient, httpx.AsyncClient], servers: tuple[Server, Server]
) -> None:
    on_a, on_b = clients
    game = await create_game(on_a)
    streams: list[Stream] = []
    async with contextlib.AsyncExitStack() as stack:
        for _ in range(3):
            stream = await stack.enter_async_context(
                open_stream(on_b, f"{game.url}/events/stream", game.host())
            )
            await stream.next_event()
            streams.append(stream)
        await wait_for_subscribers(on_b, servers[1].base_url, 3)
    # The connections are gone without a word: the gauge comes back to 0 (the fixture
    # checks it too).
    await wait_for_subscribers(on_b, servers[1].base_url, 0)


async def test_past_max_streams_a_process_answers_503_with_retry_after(
    clients: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    """MAX_STREAMS is 4 here, as many as one seat may hold (MAX_STREAMS_PER_SEAT): the
    host's four take every place, and the players find none."""
    on_a, on_b = clients
    game = await create_game(on_a)
    async with contextlib.AsyncExitStack() as stack:
        for _ in range(4):
            stream = await stack.enter_async_context(
                open_stream(on_b, f"{game.url}/events/stream", game.host())
            )
            assert stream.response.status_code == 200
        refused = await on_b.get(f"{game.url}/events/stream", headers=game.player("p1"))
        assert refused.status_code == 503
        assert refused.json()["type"].endswith("/too-many-streams")
        assert int(refused.headers["Retry-After"]) >= 0
        # A long-poll holds a place too.
        polled = await on_b.get(
            f"{game.url}/events", params={"after": 1, "wait": 1}, headers=game.player("p2")
        )
        assert polled.status_code == 503
        # Another process still has room.
        async with open_stream(on_a, f"{game.url}/events/stream", game.host()) as elsewhere:
            assert elsewhere.response.status_code == 200


async def test_a_long_poll_on_b_answers_when_a_commits(
    clients: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    on_a, on_b = clients
    game = await create_game(on_a)
    poll = asyncio.create_task(
        on_b.get(f"{game.url}/events", params={"after": 1, "wait": 25}, headers=game.host())
    )
    await asyncio.sleep(0.5)
    assert not poll.done()
    await set_faith(game, 4)
    response = await poll
    assert response.status_code == 200
    assert [e["seq"] for e in response.json()["events"]] == [2]
