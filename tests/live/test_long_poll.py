"""The long-poll (``wait`` on the events list) and conditional reads, in process, on both
databases. Time is only bounded from below, or generously from above."""

from __future__ import annotations

import asyncio
import time

import httpx
from fastapi import FastAPI

from tests.api.conftest import GameHandle


async def test_a_long_poll_answers_at_once_when_events_exist(live_game: GameHandle) -> None:
    started = time.monotonic()
    response = await live_game.client.get(
        f"{live_game.url}/events", params={"after": 0, "wait": 30}, headers=live_game.host()
    )
    assert response.status_code == 200
    assert [e["seq"] for e in response.json()["events"]] == [1]
    assert time.monotonic() - started < 20  # far below 30: it did not wait


async def test_a_long_poll_answers_when_the_first_change_arrives(live_game: GameHandle) -> None:
    poll = asyncio.create_task(
        live_game.client.get(
            f"{live_game.url}/events",
            params={"after": 1, "wait": 30},
            headers=live_game.player("p2"),
        )
    )
    await asyncio.sleep(0.3)
    assert not poll.done()
    started = time.monotonic()
    await live_game.set_faith(p1=6)
    response = await poll
    assert time.monotonic() - started < 20  # far below the 30 s it could have waited
    assert response.status_code == 200
    body = response.json()
    assert [e["seq"] for e in body["events"]] == [2] and body["last_seq"] == 2
    assert response.headers["ETag"] == '"2"'


async def test_a_long_poll_with_nothing_new_is_an_empty_page_after_wait(
    live_app: FastAPI, live_game: GameHandle
) -> None:
    started = time.monotonic()
    response = await live_game.client.get(
        f"{live_game.url}/events", params={"after": 1, "wait": 0.5}, headers=live_game.host()
    )
    assert time.monotonic() - started >= 0.5
    assert response.status_code == 200
    assert response.json() == {"events": [], "last_seq": 1}
    assert "Follow-Ended" not in response.headers  # the wait ran out: nothing ended it
    assert live_app.state.live_hub.count == 0  # the waiter left no subscriber behind


async def test_wait_is_bounded_and_checked(
    live_client: httpx.AsyncClient, live_game: GameHandle
) -> None:
    for wait in ("31", "-1", "nan", "inf", "soon"):
        response = await live_client.get(
            f"{live_game.url}/events", params={"wait": wait}, headers=live_game.host()
        )
        assert response.status_code == 422, wait
        assert response.json()["errors"][0]["loc"] == ["query", "wait"], wait


async def test_a_long_poll_checks_the_token_before_waiting(live_game: GameHandle) -> None:
    started = time.monotonic()
    response = await live_game.client.get(
        f"{live_game.url}/events", params={"after": 1, "wait": 30}
    )
    assert response.status_code == 401
    assert time.monotonic() - started < 20


async def test_events_and_reports_answer_304_to_their_current_etag(
    live_game: GameHandle,
) -> None:
    for path in ("/events", "/reports/1"):
        first = await live_game.client.get(f"{live_game.url}{path}", headers=live_game.host())
        assert first.status_code == 200
        again = await live_game.client.get(
            f"{live_game.url}{path}",
            headers={**live_game.host(), "If-None-Match": first.headers["ETag"]},
        )
        assert (again.status_code, again.content) == (304, b""), path
    await live_game.set_faith(p1=2)
    for path in ("/events", "/reports/1"):
        stale = await live_game.client.get(
            f"{live_game.url}{path}", headers={**live_game.host(), "If-None-Match": '"1"'}
        )
        assert stale.status_code == 200 and stale.headers["ETag"] == '"2"', path
