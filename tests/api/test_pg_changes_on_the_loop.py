"""On PostgreSQL a change that reads its game without a lock runs on the event loop
(app/persistence/pg_loop_changes.py): its game read first, its code on the loop, its change
stored last, on the async connections; no request thread and no pooled connection. A
change that needs more (a row lock, an Idempotency-Key, a game's log) goes to a thread
before any round trip; one that loses its race runs again, and after a few lost races on a
thread, as it always did."""

from __future__ import annotations

import asyncio
import threading
import uuid
from typing import Any

import httpx
import psycopg
import pytest
from fastapi import FastAPI

from app.api.platform import admission
from app.persistence.async_reads import AsyncGameRows
from app.persistence.libpq_statements import LibpqStatement
from app.services.races import LOST_RACES, RACE_ATTEMPTS
from tests.api.conftest import GameHandle, create_game
from tests.statements import count_statements

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.parametrize("database_url", ["postgres"], indirect=True),
]


def _off_the_loop() -> float:
    return admission.OFF_THE_LOOP._value.get()


def _lost_races() -> float:
    return LOST_RACES._value.get()


async def _faith(game: GameHandle) -> list[int]:
    return [player["faith"] for player in (await game.read())["players"]]


async def test_a_change_runs_on_the_loop_in_two_statements(
    app: FastAPI, client: httpx.AsyncClient, threads: list[threading.Thread]
) -> None:
    game = await create_game(client)
    await game.set_faith(p1=1)  # its token is admitted from now on (admission.py)
    threads.clear()
    before = _off_the_loop()
    with count_statements(app.state.db.engine) as statements:
        answer = await client.put(
            f"{game.url}/players/p1/faith", json={"faith": 4}, headers=game.host()
        )
    assert answer.status_code == 200, answer.text
    assert answer.headers["ETag"] == '"3"'
    assert threads == []  # no pooled connection, so no request thread either
    assert [s.split()[0] for s in statements] == ["SELECT", "WITH"]
    assert _off_the_loop() == before
    assert await _faith(game) == [4, 0, 0]


async def test_a_refused_change_stores_nothing_and_answers_as_on_a_thread(
    client: httpx.AsyncClient, threads: list[threading.Thread]
) -> None:
    game = await create_game(client)
    threads.clear()
    stale = await client.put(
        f"{game.url}/players/p1/faith",
        json={"faith": 4},
        headers={**game.host(), "If-Match": '"7"'},
    )
    assert stale.status_code == 412, stale.text
    not_theirs = await client.put(
        f"{game.url}/players/p1/faith", json={"faith": 4}, headers=game.player("p2")
    )
    assert not_theirs.status_code == 403, not_theirs.text
    no_player = await client.put(
        f"{game.url}/players/p9/faith", json={"faith": 4}, headers=game.host()
    )
    assert no_player.status_code == 404, no_player.text
    assert threads == []
    assert await _faith(game) == [0, 0, 0]
    assert game.game["version"] == 1


async def test_a_change_that_locks_goes_to_a_thread_before_any_round_trip(
    app: FastAPI, client: httpx.AsyncClient, threads: list[threading.Thread]
) -> None:
    game = await create_game(client)
    await game.set_faith(p1=3, p2=3, p3=3)
    before = _off_the_loop()
    threads.clear()
    headers = {**game.host(), "Idempotency-Key": str(uuid.uuid4())}
    with count_statements(app.state.db.engine) as statements:
        keyed = await client.post(
            f"{game.url}/players/p1/faith-changes", json={"delta": 2}, headers=headers
        )
    assert keyed.status_code == 200, keyed.text
    assert _off_the_loop() == before + 1
    assert threads and threading.current_thread() not in threads
    # Its token's check (a read of its own) sent it to a thread: nothing read on the loop.
    assert statements[0] == "BEGIN"
    retry = await client.post(
        f"{game.url}/players/p1/faith-changes", json={"delta": 2}, headers=headers
    )
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert await _faith(game) == [5, 3, 3]


async def test_a_change_that_loses_its_race_runs_again_on_the_newer_game(
    app: FastAPI, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = await create_game(client)
    races = _lost_races()
    before = _off_the_loop()
    _another_writer_stores_after_the_read(app, monkeypatch, game, times=1)
    answer = await client.post(
        f"{game.url}/players/p1/faith-changes", json={"delta": 2}, headers=game.host()
    )
    assert answer.status_code == 200, answer.text
    assert _lost_races() == races + 1
    assert _off_the_loop() == before  # won on its second attempt, on the loop
    # Both count: the other writer's +1 to Bruno, then this change on the newer game.
    assert await _faith(game) == [2, 1, 0]
    assert game.game["version"] == 3


async def test_a_change_that_keeps_losing_its_race_ends_on_a_thread(
    app: FastAPI,
    client: httpx.AsyncClient,
    monkeypatch: pytest.MonkeyPatch,
    threads: list[threading.Thread],
) -> None:
    game = await create_game(client)
    races = _lost_races()
    before = _off_the_loop()
    _another_writer_stores_after_the_read(app, monkeypatch, game, times=RACE_ATTEMPTS)
    threads.clear()
    answer = await client.post(
        f"{game.url}/players/p1/faith-changes", json={"delta": 2}, headers=game.host()
    )
    assert answer.status_code == 200, answer.text
    assert _lost_races() == races + RACE_ATTEMPTS - 1
    assert _off_the_loop() == before + 1
    assert any(t is not threading.current_thread() for t in threads)
    loop_losses = RACE_ATTEMPTS - 1
    assert await _faith(game) == [2, loop_losses, 0]
    assert game.game["version"] == 2 + loop_losses


async def test_a_change_whose_statement_fails_answers_503_and_stores_nothing(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = await create_game(client)
    fetch = AsyncGameRows._fetch_bounded

    async def failing_store(self: AsyncGameRows, statement: LibpqStatement, values: Any) -> Any:
        if statement.sql.startswith("WITH"):
            raise psycopg.OperationalError("server closed the connection unexpectedly")
        return await fetch(self, statement, values)

    monkeypatch.setattr(AsyncGameRows, "_fetch_bounded", failing_store)
    answer = await client.put(
        f"{game.url}/players/p1/faith", json={"faith": 4}, headers=game.host()
    )
    assert answer.status_code == 503, answer.text
    assert answer.headers["Content-Type"] == "application/problem+json"
    monkeypatch.undo()
    assert await _faith(game) == [0, 0, 0]


async def test_concurrent_changes_of_one_game_on_the_loop_all_count(
    client: httpx.AsyncClient,
) -> None:
    game = await create_game(client)
    url = f"{game.url}/players/p2/faith-changes"
    answers = await asyncio.gather(
        *(client.post(url, json={"delta": 1}, headers=game.host()) for _ in range(12))
    )
    assert [a.status_code for a in answers] == [200] * 12
    assert await _faith(game) == [0, 12, 0]
    assert game.game["version"] == 13


def _another_writer_stores_after_the_read(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch, game: GameHandle, *, times: int
) -> None:
    """The next ``times`` reads of the game's state on the loop are each followed by a
    change of another writer (Bruno's faith +1, on a thread, as another process would):
    the change that read first finds the game moved on when it stores."""
    state = AsyncGameRows.state
    left = [times]
    games = app.state.game_service

    async def then_another_writer(self: AsyncGameRows, game_id: str) -> Any:
        stored = await state(self, game_id)
        if left[0] > 0 and game_id == game.id:
            left[0] -= 1
            await asyncio.to_thread(
                games.change_faith, game.id, "p2", 1, game.host_token, None, None, ""
            )
        return stored

    monkeypatch.setattr(AsyncGameRows, "state", then_another_writer)
