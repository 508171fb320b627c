"""Replays in process, on both databases: a log read in pages shared by every follower,
never on a request thread, and never a last page older than the follower."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from anyio import to_thread
from fastapi import FastAPI

from app.services.live import LiveHub, Subscription
from app.services.replay_pages import PAGE_EVENTS
from tests.api.conftest import GameHandle
from tests.live.conftest import PATIENCE
from tests.live.test_hub import change_through_another_app


@pytest.fixture
def live_settings() -> dict[str, Any]:
    return {"max_streams": 50, "game_write_rate": 0}


def seqs_of(chunk: bytes) -> list[int]:
    """The ids of the events in a chunk of the stream (a page of the log, or one event)."""
    return [int(line[4:]) for line in chunk.split(b"\n") if line.startswith(b"id: ")]


async def follow_until(
    hub: LiveHub, subscription: Subscription, after: int, last: int
) -> list[int]:
    """Follow ``subscription`` from ``after`` until seq ``last`` and a heartbeat after it
    (so its replay is over); the seqs it got."""
    seqs: list[int] = []
    frames = hub.follow(subscription, after, heartbeat=0.2, max_seconds=PATIENCE)
    async with asyncio.timeout(PATIENCE), contextlib.aclosing(frames):
        async for frame in frames:
            if frame is not None:
                seqs += seqs_of(frame)
            elif seqs and seqs[-1] >= last:
                break
    return seqs


async def grow_log(game: GameHandle, events: int) -> None:
    """Change ``game`` until its log holds ``events`` events (its creation is the first)."""
    for i in range(events - 1):
        await game.set_faith(p1=i % 15 + 1)


def counting_pages(hub: LiveHub, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The index of every page of the log the hub reads for replays from now on."""
    reads: list[int] = []
    read = hub.pages.read

    async def counted(game_id: str, index: int) -> list[tuple[int, bytes]]:
        reads.append(index)
        return await read(game_id, index)

    monkeypatch.setattr(hub.pages, "read", counted)
    return reads


async def test_twenty_replays_of_a_log_read_each_page_of_it_once(
    live_app: FastAPI, live_game: GameHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    events = 2 * PAGE_EVENTS + 50
    await grow_log(live_game, events)
    hub: LiveHub = live_app.state.live_hub
    reads = counting_pages(hub, monkeypatch)
    subscriptions = [hub.subscribe(live_game.id, events) for _ in range(20)]
    replays = [follow_until(hub, s, 0, events) for s in subscriptions]
    for seqs in await asyncio.gather(*replays):
        assert seqs == list(range(1, events + 1))
    assert sorted(reads) == [0, 1, 2]
    # A resume in the middle of a page takes the cached page from there.
    late = hub.subscribe(live_game.id, events)
    assert await follow_until(hub, late, 150, events) == list(range(151, events + 1))
    assert sorted(reads) == [0, 1, 2, 2]  # the last page again: it may have grown since
    assert hub.count == 0


async def test_a_replay_needs_no_request_thread(live_app: FastAPI, live_game: GameHandle) -> None:
    """Every request thread is taken (a stored route's threads all busy): a replay still
    reads the log, on the hub's own threads."""
    await grow_log(live_game, 30)
    hub: LiveHub = live_app.state.live_hub
    limiter = to_thread.current_default_thread_limiter()
    holders = [object() for _ in range(int(limiter.total_tokens))]
    for holder in holders:
        await limiter.acquire_on_behalf_of(holder)
    try:
        subscription = hub.subscribe(live_game.id, 30)
        assert await follow_until(hub, subscription, 0, 30) == list(range(1, 31))
    finally:
        for holder in holders:
            limiter.release_on_behalf_of(holder)


async def test_a_last_page_read_before_a_follower_subscribed_is_read_again(
    live_app: FastAPI, database_url: str, live_game: GameHandle
) -> None:
    """A replay reads the last page of the log and leaves; another process commits seq 3
    while nobody here follows the game (so this process hears nothing of it); a new
    follower's replay must not take the page as it was, without seq 3."""
    await grow_log(live_game, 2)
    hub: LiveHub = live_app.state.live_hub
    first = hub.subscribe(live_game.id, 2)
    assert await follow_until(hub, first, 0, 2) == [1, 2]
    await change_through_another_app(database_url, live_game, faith=9)
    second = hub.subscribe(live_game.id, 3)
    assert await follow_until(hub, second, 0, 3) == [1, 2, 3]


async def test_an_event_committed_between_the_check_and_the_subscription_is_replayed(
    live_app: FastAPI, live_game: GameHandle
) -> None:
    """The stream's token check read version 1, then seq 2 was committed before the
    subscription: nothing will deliver seq 2 live, the replay must."""
    await live_game.set_faith(p1=4)
    hub: LiveHub = live_app.state.live_hub
    subscription = hub.subscribe(live_game.id, 1)
    assert await follow_until(hub, subscription, 1, 2) == [2]


def now() -> float:
    return asyncio.get_running_loop().time()


async def test_followers_joining_a_followed_game_replay_only_up_to_what_it_heard(
    live_app: FastAPI, live_game: GameHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game is followed here already: the channel hears whatever is committed after a
    new follower's check, so that follower's replay ends at the seq it was checked at
    (the page after the log's last is never read); a thousand of them cost a read of each
    page of the log, no more."""
    events = 2 * PAGE_EVENTS
    await grow_log(live_game, events)
    hub: LiveHub = live_app.state.live_hub
    first = hub.subscribe(live_game.id, events)
    reads = counting_pages(hub, monkeypatch)
    joining = [hub.subscribe(live_game.id, events, checked_from=now()) for _ in range(20)]
    replays = [follow_until(hub, s, 0, events) for s in joining]
    for seqs in await asyncio.gather(*replays):
        assert seqs == list(range(1, events + 1))
    assert sorted(reads) == [0, 1]
    hub.unsubscribe(first)


async def test_a_follower_checked_before_a_change_the_channel_heard_replays_it(
    live_app: FastAPI, database_url: str, live_game: GameHandle
) -> None:
    """Seq 2 is committed by another process after the follower's check (which read
    version 1) and heard by the channel before the follower subscribed: nothing will hand
    it over live, and the page of the log kept from an earlier replay stops at seq 1; the
    replay must reach seq 2 all the same."""
    hub: LiveHub = live_app.state.live_hub
    keeper = hub.subscribe(live_game.id, 1)  # the game stays followed here throughout
    first = hub.subscribe(live_game.id, 1)
    replay = asyncio.create_task(follow_until(hub, first, 0, 2))
    async with asyncio.timeout(PATIENCE):  # it replayed seq 1, and the page is kept
        while (live_game.id, 0) not in hub.pages._cached:
            await asyncio.sleep(0.01)
    checked_from = now()
    await change_through_another_app(database_url, live_game, faith=9)
    async with asyncio.timeout(PATIENCE):
        assert await replay == [1, 2]  # heard by the channel, handed over live
    late = hub.subscribe(live_game.id, 1, checked_from=checked_from)
    assert await follow_until(hub, late, 1, 2) == [2]
    hub.unsubscribe(keeper)
