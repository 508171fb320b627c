"""Followers whose access ends, over real HTTP between two ``python -m app`` processes on
one database (PostgreSQL: LISTEN/NOTIFY; SQLite: each process's watcher): a stream on a
token that the host replaces or revokes through the other process ends, and so does its
long-poll; deleting the game ends every stream and long-poll on it. The other followers
keep following, and see the token change."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import httpx
import pytest

from tests.api.conftest import create_game
from tests.live.conftest import (
    LIVE_ENV,
    PATIENCE,
    open_stream,
    server_pair,
    wait_for_subscribers,
)
from tests.support.servers import Server

# Streams that live long and heartbeats often: a stream that ends here ended for its token.
ENV = {**LIVE_ENV, "STREAM_MAX_SECONDS": "600", "MAX_STREAMS": "20"}


@pytest.fixture(scope="module")
def servers(
    shared_database: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Server, Server]]:
    with server_pair(shared_database, tmp_path_factory, ENV) as pair:
        yield pair


async def _until_ended(stream: object) -> list[str]:
    """The events a stream still gives until the server ends it."""
    seen = []
    while (event := await stream.next_event()) is not None:  # type: ignore[attr-defined]
        seen.append(event.event)
    return seen


@pytest.mark.parametrize("how", ["reissue", "revoke"])
async def test_a_stream_on_a_replaced_token_ends_and_the_others_go_on(
    clients: tuple[httpx.AsyncClient, httpx.AsyncClient], how: str
) -> None:
    on_a, on_b = clients
    game = await create_game(on_a)
    url = f"{game.url}/events/stream"
    async with (
        open_stream(on_b, url, game.player("p2")) as lent,
        open_stream(on_b, url, game.player("p1")) as other,
    ):
        for stream in (lent, other):
            assert stream.response.status_code == 200
            assert (await stream.next_event()).event == "game_created"  # type: ignore[union-attr]
        if how == "reissue":
            changed = await on_a.post(f"{game.url}/seats/p2/token", headers=game.host())
            assert changed.status_code == 200, changed.text
        else:
            changed = await on_a.delete(f"{game.url}/seats/p2/token", headers=game.host())
            assert changed.status_code == 204, changed.text
        async with asyncio.timeout(PATIENCE):
            await _until_ended(lent)
        # The other player's stream goes on: it sees the token change, then what follows.
        seen = await other.next_event()
        assert seen is not None and seen.event == "seat_token_changed"
        await game.set_faith(p1=4)
        seen = await other.next_event()
        assert seen is not None and seen.event == "faith_set"
    refused = await on_b.get(url, headers=game.player("p2"))
    assert refused.status_code == 401


async def test_a_long_poll_on_a_revoked_token_ends_with_401(
    clients: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    on_a, on_b = clients
    game = await create_game(on_a)
    poll = asyncio.create_task(
        on_b.get(f"{game.url}/events", params={"after": 1, "wait": 25}, headers=game.player("p3"))
    )
    await wait_for_subscribers(on_b, str(on_b.base_url).rstrip("/"), 1)
    revoked = await on_a.delete(f"{game.url}/seats/p3/token", headers=game.host())
    assert revoked.status_code == 204
    async with asyncio.timeout(PATIENCE):
        answer = await poll
    assert answer.status_code == 401


async def test_deleting_a_game_ends_its_streams_and_long_polls_everywhere(
    clients: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    on_a, on_b = clients
    game = await create_game(on_a)
    url = f"{game.url}/events/stream"
    async with (
        open_stream(on_b, url, game.host()) as on_other_process,
        open_stream(on_a, url, game.player("p1")) as on_this_process,
    ):
        for stream in (on_other_process, on_this_process):
            assert (await stream.next_event()).event == "game_created"  # type: ignore[union-attr]
        poll = asyncio.create_task(
            on_b.get(f"{game.url}/events", params={"after": 1, "wait": 25}, headers=game.host())
        )
        await wait_for_subscribers(on_b, str(on_b.base_url).rstrip("/"), 2)
        deleted = await on_a.delete(game.url, headers=game.host())
        assert deleted.status_code == 204, deleted.text
        async with asyncio.timeout(PATIENCE):
            assert await _until_ended(on_other_process) == []
            assert await _until_ended(on_this_process) == []
            answer = await poll
    assert answer.status_code == 404
    assert (await on_b.get(url, headers=game.host())).status_code == 404


async def test_an_undo_reaches_a_stream_on_the_other_process_with_what_it_leaves(
    clients: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    on_a, on_b = clients
    game = await create_game(on_a)
    async with open_stream(on_b, f"{game.url}/events/stream", game.player("p2")) as stream:
        assert (await stream.next_event()).event == "game_created"  # type: ignore[union-attr]
        await game.set_faith(p1=5)
        assert (await stream.next_event()).event == "faith_set"  # type: ignore[union-attr]
        undone = await on_a.post(f"{game.url}/undo", headers=game.host())
        assert undone.status_code == 200, undone.text
        event = await stream.next_event()
        assert event is not None and (event.id, event.event) == ("3", "change_undone")
        data = json.loads(event.data)["data"]
        assert (data["seq"], data["type"]) == (2, "faith_set")
        assert data["players"] == undone.json()["game"]["players"]
