"""On a SQLite file an admitted change runs on the event loop (app/api/platform/admission.py,
app/persistence/sqlite_loop_writes.py): no request thread. While the database's lock is
held elsewhere for a moment (another worker's change), it is tried again on the loop after
short pauses; held longer, it runs again on a thread, waits there, and the loop goes on
serving meanwhile; a change with an Idempotency-Key too (its claim is in the change's
transaction there). PostgreSQL's changes on the loop: test_pg_changes_on_the_loop.py."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy.engine import make_url

from app.api.platform import admission
from tests.api.conftest import create_game


@contextmanager
def held_write_lock(
    app: FastAPI, seconds: float, *, released_by_the_loop: bool = False
) -> Iterator[None]:
    """The database's write lock held by another connection for ``seconds``: released by a
    thread's timer, or ``released_by_the_loop`` (by the running event loop itself, as
    another worker's commit comes while a change pauses there, with no thread to wake)."""
    path = Path(str(make_url(app.state.db.url).database))
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    timer = None
    if released_by_the_loop:
        asyncio.get_running_loop().call_later(seconds, holder.rollback)
    else:
        timer = threading.Timer(seconds, holder.rollback)
        timer.start()
    try:
        yield
    finally:
        if timer is not None:
            timer.join()
        holder.close()


def _reruns() -> float:
    return admission.OFF_THE_LOOP._value.get()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_change_on_a_sqlite_file_runs_on_the_event_loop(
    client: httpx.AsyncClient, threads: list[threading.Thread]
) -> None:
    game = await create_game(client)
    threads.clear()
    before = _reruns()
    answer = await client.put(
        f"{game.url}/players/p1/faith", json={"faith": 4}, headers=game.host()
    )
    assert answer.status_code == 200, answer.text
    assert threads and set(threads) == {threading.current_thread()}
    assert _reruns() == before
    assert (await game.read())["players"][0]["faith"] == 4


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_change_that_finds_the_lock_held_for_a_moment_is_stored_on_the_loop(
    app: FastAPI, client: httpx.AsyncClient, threads: list[threading.Thread]
) -> None:
    game = await create_game(client)
    threads.clear()
    before = _reruns()
    with held_write_lock(app, seconds=0.001, released_by_the_loop=True):
        answer = await client.put(
            f"{game.url}/players/p1/faith", json={"faith": 6}, headers=game.host()
        )
    assert answer.status_code == 200, answer.text
    assert _reruns() == before  # never handed to a request thread
    assert len(threads) >= 2 and set(threads) == {threading.current_thread()}
    assert (await game.read())["players"][0]["faith"] == 6


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_change_that_would_wait_runs_again_on_a_thread_while_the_loop_serves(
    app: FastAPI, client: httpx.AsyncClient, threads: list[threading.Thread]
) -> None:
    game = await create_game(client)
    threads.clear()
    before = _reruns()
    with held_write_lock(app, seconds=0.5):
        started = time.monotonic()
        change = asyncio.create_task(
            client.put(f"{game.url}/players/p1/faith", json={"faith": 6}, headers=game.host())
        )
        await asyncio.sleep(0.05)
        read = await client.get(game.url, headers=game.host())
        read_after = time.monotonic() - started
        answer = await change
        changed_after = time.monotonic() - started
    assert read.status_code == 200 and read.json()["players"][0]["faith"] == 0
    assert read_after < 0.4  # the loop served while the change waited for the lock
    assert answer.status_code == 200, answer.text
    assert changed_after >= 0.45  # it waited for the lock (on a thread), then stored
    assert _reruns() == before + 1
    assert threads[0] is threading.current_thread()
    assert any(t is not threading.current_thread() for t in threads)
    assert (await game.read())["players"][0]["faith"] == 6


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_change_with_an_idempotency_key_runs_on_the_loop_and_its_retry_replays(
    client: httpx.AsyncClient, threads: list[threading.Thread]
) -> None:
    game = await create_game(client)
    threads.clear()
    before = _reruns()
    headers = {**game.host(), "Idempotency-Key": str(uuid.uuid4())}
    url = f"{game.url}/players/p1/faith-changes"
    first = await client.post(url, json={"delta": 2}, headers=headers)
    assert first.status_code == 200, first.text
    # The token's check, then the key's claim, the change and its answer in one transaction.
    assert len(threads) == 2 and set(threads) == {threading.current_thread()}
    retry = await client.post(url, json={"delta": 2}, headers=headers)
    assert retry.status_code == 200 and retry.headers["Idempotent-Replayed"] == "true"
    assert retry.content == first.content
    assert _reruns() == before
    assert (await game.read())["players"][0]["faith"] == 2  # once


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_keyed_change_that_would_wait_runs_again_on_a_thread_and_acts_once(
    app: FastAPI, client: httpx.AsyncClient, threads: list[threading.Thread]
) -> None:
    game = await create_game(client)
    threads.clear()
    before = _reruns()
    headers = {**game.host(), "Idempotency-Key": str(uuid.uuid4())}
    url = f"{game.url}/players/p1/faith-changes"
    with held_write_lock(app, seconds=0.3):
        first = await client.post(url, json={"delta": 3}, headers=headers)
    assert first.status_code == 200, first.text
    assert _reruns() == before + 1  # refused on the loop before it stored anything
    assert any(t is not threading.current_thread() for t in threads)
    retry = await client.post(url, json={"delta": 3}, headers=headers)
    assert retry.status_code == 200 and retry.headers["Idempotent-Replayed"] == "true"
    assert (await game.read())["players"][0]["faith"] == 3  # once
