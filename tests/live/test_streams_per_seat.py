"""One seat of one game (one token: the host's or a player's) holds at most
MAX_STREAMS_PER_SEAT of a process's followers, streams and waiting long-polls together: a
newer one ends the seat's oldest (``: end superseded``). So a party flooding streams on
its own token keeps only that many places, and every other party still finds the rest of
MAX_STREAMS; a phone that comes back before the process noticed it had gone is never
kept out by its own stale stream."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.api.conftest import GameHandle, create_game
from tests.live.conftest import (
    LIVE_ENV,
    PATIENCE,
    Stream,
    open_stream,
    server_pair,
    wait_for_subscribers,
)
from tests.support.servers import Server

# Six places in a process, two a seat: a seat flooding streams must leave four to others.
ENV = {**LIVE_ENV, "STREAM_MAX_SECONDS": "600", "MAX_STREAMS": "6", "MAX_STREAMS_PER_SEAT": "2"}


@pytest.fixture(scope="module")
def servers(
    shared_database: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Server, Server]]:
    with server_pair(shared_database, tmp_path_factory, ENV) as pair:
        yield pair


@pytest.fixture
def live_settings() -> dict[str, Any]:
    return {"max_streams": 6, "max_streams_per_seat": 2}


async def _end_of(stream: Stream) -> str | None:
    """The comment the server ended ``stream`` with (heartbeats and events skipped)."""
    last = None
    while (frame := await stream.next_frame()) is not None:
        if frame.comment is not None and frame.comment.startswith("end "):
            last = frame.comment.removeprefix("end ")
    return last


async def test_a_seat_flooding_streams_keeps_two_and_leaves_the_rest_to_others(
    clients: tuple[httpx.AsyncClient, httpx.AsyncClient], servers: tuple[Server, Server]
) -> None:
    on_a, on_b = clients
    game = await create_game(on_a)
    url = f"{game.url}/events/stream"
    async with contextlib.AsyncExitStack() as stack:
        flood: list[Stream] = []
        for _ in range(10):  # more than MAX_STREAMS, all on the host's token
            stream = await stack.enter_async_context(open_stream(on_b, url, game.host()))
            assert stream.response.status_code == 200
            assert (await stream.next_event()).event == "game_created"  # type: ignore[union-attr]
            flood.append(stream)
        # Every stream but the two newest was ended for the newer, said so, and was counted.
        for stream in flood[:-2]:
            assert await _end_of(stream) == "superseded"
        await wait_for_subscribers(on_b, servers[1].base_url, 2)
        metrics = (await on_b.get(f"{servers[1].base_url}/metrics")).text
        assert "live_followers_superseded_total 8.0" in metrics
        # The players still find the four other places of the process. (Each stream is
        # kept: one dropped would close its connection when collected.)
        players: list[Stream] = []
        for player in ("p1", "p1", "p2", "p2"):
            stream = await stack.enter_async_context(open_stream(on_b, url, game.player(player)))
            assert stream.response.status_code == 200
            assert (await stream.next_event()).event == "game_created"  # type: ignore[union-attr]
            players.append(stream)
        await wait_for_subscribers(on_b, servers[1].base_url, 6)
        # The host's two newest go on: a change reaches them.
        await game.set_faith(p1=3)
        for stream in flood[-2:]:
            assert (await stream.next_event()).event == "faith_set"  # type: ignore[union-attr]
        # The process is full: a seat with no place of its own is refused, as before.
        refused = await on_b.get(url, headers=game.player("p3"))
        assert refused.status_code == 503
        assert refused.json()["type"].endswith("/too-many-streams")


async def test_a_waiting_long_poll_is_one_of_its_seats_followers(
    live_app: FastAPI, live_client: httpx.AsyncClient, live_game: GameHandle
) -> None:
    hub = live_app.state.live_hub
    poll_url = f"{live_game.url}/events"

    async def long_poll() -> httpx.Response:
        params = {"after": 1, "wait": PATIENCE / 2}
        return await live_client.get(poll_url, params=params, headers=live_game.host())

    first = asyncio.create_task(long_poll())
    async with asyncio.timeout(PATIENCE):
        while hub.count < 1:
            await asyncio.sleep(0.01)
    later = [asyncio.create_task(long_poll()) for _ in range(2)]
    # The third waiting long-poll of the host's seat ends the first one's wait: it answers
    # its empty page now, long before its `wait`, and the seat holds two.
    async with asyncio.timeout(PATIENCE / 4):
        answered = await first
    assert answered.status_code == 200
    assert answered.json()["events"] == []
    # ...and says why, so that a client can tell it from a wait that ran out.
    assert answered.headers["Follow-Ended"] == "superseded"
    assert hub.count == 2
    # Another seat's long-poll is not the host's to end.
    other = asyncio.create_task(
        live_client.get(
            poll_url, params={"after": 1, "wait": PATIENCE / 2}, headers=live_game.player("p1")
        )
    )
    async with asyncio.timeout(PATIENCE):
        while hub.count < 3:
            await asyncio.sleep(0.01)
    assert not any(task.done() for task in [*later, other])
    await live_game.set_faith(p1=3)
    for task in [*later, other]:
        answer = await task
        assert [event["type"] for event in answer.json()["events"]] == ["faith_set"]
        assert "Follow-Ended" not in answer.headers
    assert hub.count == 0


async def test_a_seat_s_oldest_follower_ends_and_unseated_ones_are_not_counted(
    live_app: FastAPI, live_game: GameHandle
) -> None:
    hub = live_app.state.live_hub
    hosts = [hub.subscribe(live_game.id, 1, "host") for _ in range(2)]
    player = hub.subscribe(live_game.id, 1, "p1")
    unseated = [hub.subscribe(live_game.id, 1) for _ in range(2)]  # the hub's own callers
    newest = hub.subscribe(live_game.id, 1, "host")
    assert hosts[0].ended == "superseded"
    assert [s.ended for s in (hosts[1], newest, player, *unseated)] == [None] * 5
    assert hub.count == 5  # the ended one gave its place back at once
    for subscription in (hosts[1], newest, player, *unseated):
        hub.unsubscribe(subscription)
    hub.unsubscribe(hosts[0])  # its stream's own end: nothing more to give back
    assert hub.count == 0
