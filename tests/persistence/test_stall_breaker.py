"""A database that answers nothing (app/persistence/stall.py, async_reads.py): a read of a
frozen server ends at its hold bound, not at psycopg's cancel request and second wait;
once one call got no answer, the others fail at once until a probe gets one.

The frozen server is a TCP proxy in front of the test server that stops passing bytes
(as SIGSTOP would: connections are accepted, nothing is answered): no cluster is stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from app.persistence.async_reads import AsyncGameRows
from app.persistence.db import Database, DatabaseTimeouts
from app.persistence.errors import DatabaseBusy, is_unavailable_error
from app.persistence.stall import STALLED_DETAIL, StallBreaker
from tests.persistence.conftest import GameFactory, store


def _wait_for(condition: object, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "not within the test's bound"
        time.sleep(0.01)


def test_a_stall_refuses_calls_at_once_until_a_probe_gets_an_answer() -> None:
    answers = threading.Event()
    probes = []

    def probe() -> None:
        probes.append(time.monotonic())
        if not answers.is_set():
            raise ConnectionError("no answer")

    breaker = StallBreaker(probe, interval_s=0.01)
    try:
        breaker.check()  # not stalled: nothing to refuse
        breaker.trip("test")
        with pytest.raises(DatabaseBusy, match=STALLED_DETAIL) as refused:
            breaker.check()
        assert is_unavailable_error(refused.value)  # a 503 with Retry-After
        _wait_for(lambda: len(probes) >= 3)
        assert breaker.stalled
        answers.set()
        _wait_for(lambda: not breaker.stalled)
        breaker.check()
        # A second stall probes again.
        answers.clear()
        breaker.trip("again")
        assert breaker.stalled
        answers.set()
        _wait_for(lambda: not breaker.stalled)
    finally:
        breaker.close()


def test_a_probe_that_answers_at_once_ends_a_false_alarm_at_once() -> None:
    breaker = StallBreaker(lambda: None)
    try:
        breaker.trip("a live server held a connection too long")
        _wait_for(lambda: not breaker.stalled, seconds=2.0)
    finally:
        breaker.close()


class _FreezableProxy:
    """TCP in front of the PostgreSQL server; ``frozen`` holds every byte either way."""

    def __init__(self, host: str, port: int) -> None:
        self.upstream = (host, port)
        self.thawed = asyncio.Event()
        self.thawed.set()
        self.port = 0
        self._tasks: set[asyncio.Task[None]] = set()

    @contextlib.asynccontextmanager
    async def serving(self) -> AsyncIterator[_FreezableProxy]:
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        try:
            yield self
        finally:
            self.thawed.set()
            server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        pumps = [
            asyncio.create_task(self._pump(reader, up_writer)),
            asyncio.create_task(self._pump(up_reader, writer)),
        ]
        self._tasks.update(pumps)
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        for pump in pumps:
            pump.cancel()
        for w in (writer, up_writer):
            w.close()

    async def _pump(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        while data := await source.read(65536):
            await self.thawed.wait()
            sink.write(data)
            await sink.drain()


def _through(database: Database, proxy: _FreezableProxy) -> str:
    url = make_url(database.url).set(host="127.0.0.1", port=proxy.port)
    return url.render_as_string(hide_password=False)


@pytest.mark.postgres
@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_a_read_of_a_frozen_server_ends_at_its_hold_bound_and_stalls_the_others(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game = make_game(players=2)
    store(migrated_database, game)
    url = make_url(migrated_database.url)

    async def scenario() -> None:
        async with _FreezableProxy(url.host or "127.0.0.1", url.port or 5432).serving() as proxy:
            breaker = StallBreaker(lambda: None if proxy.thawed.is_set() else _no_answer())
            rows = AsyncGameRows(
                _through(migrated_database, proxy),
                size=2,
                timeouts=DatabaseTimeouts(hold_ms=1000),
                stall=breaker,
            )
            loop = asyncio.get_running_loop()
            try:
                assert (await rows.document(game.id)) is not None  # a pooled connection
                proxy.thawed.clear()
                started = loop.time()
                with pytest.raises(DatabaseBusy, match="did not answer"):
                    await rows.document(game.id)
                # The bound is 1 s; psycopg's cancel request and second wait would add 10.
                assert loop.time() - started < 4.0
                assert breaker.stalled
                started = loop.time()
                with pytest.raises(DatabaseBusy, match=STALLED_DETAIL):
                    await rows.version(game.id)
                assert loop.time() - started < 0.5  # at once: no bound of its own
                proxy.thawed.set()
                while breaker.stalled:
                    assert loop.time() - started < 10
                    await asyncio.sleep(0.02)
                stored = await rows.document(game.id)
                assert stored is not None and stored.version == game.version
            finally:
                breaker.close()
                await rows.close()

    asyncio.run(scenario())


@pytest.mark.postgres
@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_a_cancelled_read_of_a_frozen_server_ends_at_once(
    migrated_database: Database, make_game: GameFactory
) -> None:
    """A client that goes away: its read is cut, not cancelled through psycopg (whose
    cancel request to a frozen server waits 5 s, and then the statement 5 s more)."""
    game = make_game(players=2)
    store(migrated_database, game)
    url = make_url(migrated_database.url)

    async def scenario() -> None:
        async with _FreezableProxy(url.host or "127.0.0.1", url.port or 5432).serving() as proxy:
            rows = AsyncGameRows(
                _through(migrated_database, proxy), size=1, timeouts=DatabaseTimeouts()
            )
            loop = asyncio.get_running_loop()
            try:
                assert (await rows.document(game.id)) is not None
                proxy.thawed.clear()
                read = asyncio.create_task(rows.document(game.id))
                await asyncio.sleep(0.2)
                started = loop.time()
                read.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await read
                assert loop.time() - started < 1.0
                assert rows._idle == []  # the connection cut is not pooled
                proxy.thawed.set()
                assert (await rows.document(game.id)) is not None  # its slot is free
            finally:
                await rows.close()

    asyncio.run(scenario())


def _no_answer() -> None:
    raise ConnectionError("frozen")


@pytest.mark.postgres
@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_a_frozen_server_costs_the_threadpool_path_one_bound_then_nothing(
    migrated_database: Database,
) -> None:
    """The watchdog's cut marks the database stalled: the next transactions and pings fail
    at once (they would each wait out the bound again), until the probe gets an answer."""
    url = make_url(migrated_database.url)
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    holder: list[_FreezableProxy] = []
    stop = asyncio.Event()

    async def serve() -> None:
        async with _FreezableProxy(url.host or "127.0.0.1", url.port or 5432).serving() as proxy:
            holder.append(proxy)
            ready.set()
            await stop.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    assert ready.wait(10)
    proxy = holder[0]
    database = Database(_through(migrated_database, proxy), timeouts=DatabaseTimeouts(hold_ms=1000))
    try:
        database.ping()
        with database.transaction(write=False) as connection:
            connection.execute(text("SELECT 1"))
        loop.call_soon_threadsafe(proxy.thawed.clear)
        started = time.monotonic()
        with pytest.raises(Exception) as cut, database.transaction(write=False) as connection:
            connection.execute(text("SELECT 1"))
        assert is_unavailable_error(cut.value)
        assert time.monotonic() - started < 4.0  # the bound is 1 s
        assert database.stall is not None and database.stall.stalled
        started = time.monotonic()
        for call in (database.ping, lambda: database.transaction(write=True).__enter__()):
            with pytest.raises(DatabaseBusy, match=STALLED_DETAIL):
                call()
        assert time.monotonic() - started < 0.5
        loop.call_soon_threadsafe(proxy.thawed.set)
        _wait_for(lambda: not database.stall.stalled)  # type: ignore[union-attr]
        with database.transaction(write=False) as connection:
            assert connection.execute(text("SELECT 1")).scalar() == 1
    finally:
        database.dispose()
        loop.call_soon_threadsafe(proxy.thawed.set)
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
