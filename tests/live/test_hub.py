"""The hub in process, on both databases: one read of the log per game however many
follow it, and a slow follower is ended rather than holding back the others."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import httpx
import psycopg
import pytest
from fastapi import FastAPI

from app.api.schemas.games import EventRead
from app.main import create_app
from app.persistence.repositories import LoggedEvent
from app.services.live import Delivery, LiveHub, Subscription
from app.settings import Settings
from tests.api.conftest import GameHandle
from tests.live.conftest import PATIENCE


@pytest.fixture
def live_settings() -> dict[str, Any]:
    return {"stream_buffer_events": 3, "max_streams": 50}


async def change_through_another_app(database_url: str, game: GameHandle, *, faith: int) -> None:
    """Set p1's faith through a second app on the same database, as another process would."""
    other = create_app(Settings(database_url=database_url))
    try:
        transport = httpx.ASGITransport(app=other)
        async with httpx.AsyncClient(transport=transport, base_url="http://other") as client:
            response = await client.put(
                f"{game.url}/faith", json={"faith": {"p1": faith}}, headers=game.host()
            )
            assert response.status_code == 200
    finally:
        other.state.db.dispose()


async def until(condition: Any) -> None:
    async with asyncio.timeout(PATIENCE):
        while not condition():
            await asyncio.sleep(0.02)


async def drain(
    hub: LiveHub, subscription: Subscription, last: int, seqs: list[int] | None = None
) -> list[int]:
    """Follow ``subscription`` from seq 1 until ``last``; the seqs it got (appended to
    ``seqs`` as they come, if given)."""
    seqs = [] if seqs is None else seqs
    frames = hub.follow(subscription, 1, heartbeat=0.2, max_seconds=PATIENCE)
    async with contextlib.aclosing(frames):
        async for frame in frames:
            if frame is not None:
                # A replayed chunk holds a page's frames at once; a live one, one frame.
                seqs.extend(
                    int(line.removeprefix(b"id: "))
                    for line in frame.split(b"\n")
                    if line.startswith(b"id: ")
                )
                if seqs[-1] == last:
                    break
    return seqs


def counting_reads(hub: LiveHub, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ``after`` of every read of the log the hub makes from now on."""
    reads: list[int] = []
    read_log = hub.read_log

    async def counted(game_id: str, after: int, limit: int) -> list[Delivery]:
        reads.append(after)
        return await read_log(game_id, after, limit)

    monkeypatch.setattr(hub, "read_log", counted)
    return reads


async def test_a_change_from_another_process_is_read_once_for_every_follower(
    live_app: FastAPI, database_url: str, live_game: GameHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The change goes through a second app on the same database, as another process
    would: this hub hears it from its feed (PostgreSQL LISTEN, the SQLite watcher) and
    reads the log once for its twenty followers."""
    hub: LiveHub = live_app.state.live_hub
    reads = counting_reads(hub, monkeypatch)
    subscriptions = [hub.subscribe(live_game.id, 1) for _ in range(20)]
    await change_through_another_app(database_url, live_game, faith=4)
    await until(lambda: all(s._items for s in subscriptions))
    assert reads == [1]  # one read after seq 1, for the twenty of them
    listed = await live_game.client.get(
        f"{live_game.url}/events", params={"after": 1}, headers=live_game.host()
    )
    for subscription in subscriptions:
        (delivery,) = await subscription.next(0)
        assert delivery.seq == 2
        assert delivery.frame == sse_frame_of(listed.json()["events"][0])
        hub.unsubscribe(subscription)
    assert hub.count == 0


async def test_a_change_committed_here_reaches_followers_without_reading_the_log(
    live_app: FastAPI, live_game: GameHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub: LiveHub = live_app.state.live_hub
    reads = counting_reads(hub, monkeypatch)
    heard = hub._heard

    def commit_hook_only(game_id: str, seq: int, event: LoggedEvent | None = None) -> None:
        # PostgreSQL's own notice of the commit races the commit hook and, when it wins,
        # rightly starts a read (the next test has that case): it is left out here.
        if event is not None:
            heard(game_id, seq, event)

    monkeypatch.setattr(hub, "_heard", commit_hook_only)
    subscriptions = [hub.subscribe(live_game.id, 1) for _ in range(5)]
    await live_game.set_faith(p1=4)
    await until(lambda: all(s._items for s in subscriptions))
    assert reads == []
    listed = await live_game.client.get(
        f"{live_game.url}/events", params={"after": 1}, headers=live_game.host()
    )
    for subscription in subscriptions:
        (delivery,) = await subscription.next(0)
        # The same bytes as if it had been read back from the log.
        assert delivery.frame == sse_frame_of(listed.json()["events"][0])
        hub.unsubscribe(subscription)


async def test_a_change_committed_here_whose_notice_came_first_is_not_read_back(
    live_app: FastAPI, live_game: GameHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL the database's notice of a commit can reach the hub before the
    unit of work's commit hook hands it the event: the hub still delivers that event, once,
    without reading the log. Here the notice is made to come first every time."""
    hub: LiveHub = live_app.state.live_hub
    reads = counting_reads(hub, monkeypatch)
    heard = hub._heard

    def notice_first(game_id: str, seq: int, event: LoggedEvent | None = None) -> None:
        if event is None:
            # The database's own notice (PostgreSQL), which races the commit hook: it is
            # simulated below, just ahead of the hook, every time.
            return
        heard(game_id, seq, None)
        heard(game_id, seq, event)

    monkeypatch.setattr(hub, "_heard", notice_first)
    subscriptions = [hub.subscribe(live_game.id, 1) for _ in range(3)]
    await live_game.set_faith(p1=4)
    await until(lambda: all(s._items for s in subscriptions))
    await asyncio.sleep(0.2)  # time for a read, had one been started
    assert reads == []
    for subscription in subscriptions:
        assert [delivery.seq for delivery in await subscription.next(0)] == [2]
        hub.unsubscribe(subscription)


async def test_a_change_committed_here_during_a_read_is_delivered_once(
    live_app: FastAPI, live_game: GameHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read of the log started by a notice is still under way when this process's
    commit hands the same event over: the read finds it known and offers it again to
    nobody."""
    hub: LiveHub = live_app.state.live_hub
    read_log, reading, release = hub.read_log, asyncio.Event(), asyncio.Event()

    async def held(game_id: str, after: int, limit: int) -> list[Delivery]:
        reading.set()
        await release.wait()
        return await read_log(game_id, after, limit)

    monkeypatch.setattr(hub, "read_log", held)
    subscription = hub.subscribe(live_game.id, 1)
    hub._heard(live_game.id, 2)  # a notice of seq 2, ahead of its commit
    async with asyncio.timeout(PATIENCE):
        await reading.wait()
    await live_game.set_faith(p1=4)  # seq 2, committed here: handed over at once
    await until(lambda: bool(subscription._items))
    release.set()
    await asyncio.sleep(0.3)  # the held read returns seq 2 again
    assert [delivery.seq for delivery in await subscription.next(0)] == [2]
    hub.unsubscribe(subscription)


def sse_frame_of(listed: dict[str, Any]) -> bytes:
    event = EventRead.model_validate(listed)
    seq, kind = event.root.seq, event.root.type
    return f"id: {seq}\nevent: {kind}\ndata: {event.model_dump_json()}\n\n".encode()


async def test_a_slow_follower_is_ended_and_the_others_get_everything(
    live_app: FastAPI, live_game: GameHandle
) -> None:
    """STREAM_BUFFER_EVENTS is 3 here; the slow one never reads, five changes come, each
    once the fast one has taken the one before (one that lets three wait is behind too)."""
    hub: LiveHub = live_app.state.live_hub
    slow = hub.subscribe(live_game.id, 1)
    fast = hub.subscribe(live_game.id, 1)
    seen: list[int] = []
    follower = asyncio.create_task(drain(hub, fast, 6, seen))
    for faith in range(1, 6):
        await live_game.set_faith(p1=faith)
        await until(lambda seq=faith + 1: bool(seen) and seen[-1] >= seq)
    async with asyncio.timeout(PATIENCE):
        assert await follower == [2, 3, 4, 5, 6]
    await until(lambda: slow.ended is not None)
    assert slow.ended == "behind"
    assert await slow.next(0) == []  # its buffer is dropped: its client resumes by id
    hub.unsubscribe(slow)
    assert hub.count == 0


async def test_a_gap_in_deliveries_is_filled_from_the_log(
    live_app: FastAPI, live_game: GameHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seqs 2 and 3 never reach the follower (as when a notice is lost), so seq 4 comes
    with a gap before it: the follower reads the log for what is missing, and nothing is
    missed; seq 2 delivered again, stale, is skipped: nothing is doubled."""
    hub: LiveHub = live_app.state.live_hub
    subscription = hub.subscribe(live_game.id, 1)
    offer = subscription.offer
    monkeypatch.setattr(
        subscription, "offer", lambda deliveries: offer([d for d in deliveries if d.seq > 3])
    )
    seen: list[int] = []
    follower = asyncio.create_task(drain(hub, subscription, 5, seen))
    await until(lambda: subscription._waiter is not None)  # replayed to seq 1, now live
    for faith in (1, 2, 3):
        await live_game.set_faith(p1=faith)  # seqs 2, 3 (lost) and 4
    await until(lambda: bool(seen) and seen[-1] == 4)
    assert seen == [2, 3, 4]
    stale = (await hub.read_log(live_game.id, 1, 1))[0]
    offer([stale])
    await live_game.set_faith(p1=4)  # seq 5
    async with asyncio.timeout(PATIENCE):
        assert await follower == [2, 3, 4, 5]
    assert hub.count == 0


async def test_shutdown_ends_followers_and_refuses_new_ones(
    live_app: FastAPI, live_game: GameHandle
) -> None:
    hub: LiveHub = live_app.state.live_hub
    subscription = hub.subscribe(live_game.id, 1)
    follower = asyncio.create_task(drain(hub, subscription, 99))
    waiting = asyncio.create_task(
        live_game.client.get(
            f"{live_game.url}/events", params={"after": 1, "wait": 30}, headers=live_game.host()
        )
    )
    async with asyncio.timeout(PATIENCE):
        while hub.count < 2:
            await asyncio.sleep(0.01)
    hub.close_threadsafe()
    async with asyncio.timeout(PATIENCE):
        assert await follower == []
        # A waiting long-poll answers its empty page at once, and says why.
        page = await waiting
    assert page.status_code == 200 and page.json()["events"] == []
    assert page.headers["Follow-Ended"] == "shutdown"
    response = await live_game.client.get(
        f"{live_game.url}/events", params={"after": 1, "wait": 5}, headers=live_game.host()
    )
    assert response.status_code == 503
    assert response.json()["type"].endswith("/too-many-streams")
    assert "Retry-After" in response.headers


@pytest.mark.parametrize(
    "database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
async def test_a_change_while_the_listener_is_disconnected_is_not_lost(
    live_app: FastAPI, database_url: str, live_game: GameHandle
) -> None:
    """PostgreSQL: the LISTEN connection is killed (its backend terminated, on this test's
    own database), a change is committed by another process meanwhile, and its notice is
    lost; the listener connects again and reports the watched games' versions."""
    # PostgreSQL only: SQLite's watcher polls and has no connection to lose.
    hub: LiveHub = live_app.state.live_hub
    subscription = hub.subscribe(live_game.id, 1)
    listening = (
        "SELECT pid FROM pg_stat_activity"
        " WHERE query LIKE 'LISTEN%%' AND datname = current_database()"
    )
    with psycopg.connect(database_url, autocommit=True) as admin:
        async with asyncio.timeout(PATIENCE):
            while not admin.execute(listening).fetchall():
                await asyncio.sleep(0.05)
        for (pid,) in admin.execute(listening).fetchall():
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    await change_through_another_app(database_url, live_game, faith=9)
    async with asyncio.timeout(PATIENCE):
        deliveries = await subscription.next(PATIENCE)
    assert [d.seq for d in deliveries] == [2]
    hub.unsubscribe(subscription)
