"""Reads of one game row on the event loop (PostgreSQL): what ``GET /v1/games/{id}`` and
its 304 cost, a report's read (the game's state), and the checks a stranger's recovery
gets (the code's hash, whether its Idempotency-Key is held), without a thread or
SQLAlchemy.

Measured (``bench/RESULTS.md``, "Where a read's cost is"): the same one-row SELECT serves
2-3x the requests through psycopg's async connections that it serves through a pooled
connection in the threadpool, where at 64 connections the requests queue for the four
threads. A change that reads its game without a lock sends its two statements here too
(``pg_loop_changes.py``); one that holds a row lock across Python code stays on the
threadpool path (``db.py``), which is what threads are for.

The bounds are the same as the threadpool path's (``DatabaseTimeouts``):

- at most ``size`` connections per process, opened on demand and kept; waiting for one is
  bounded by ``pool_ms``;
- connecting, and the server-side statement bound, as ``db.py`` sets them for libpq;
- holding a connection at all: ``hold_ms``, which is what ends a read of a frozen server.
  Its socket is shut down, as the watchdog does on the threadpool path: the read fails at
  once, the connection is dropped and counted in ``db_connections_cut_total``. A caller
  that goes away (its client did) ends its statement too: its connection is closed at
  once. (Through psycopg's cursor, a cancelled statement would send the server a cancel
  request and wait for the statement again, 5 s each, psycopg issue 1371, 15 s in all on
  a frozen server; ``libpq_statements.py`` never hands psycopg a cancellation);
- while the database is stalled (``stall.py``) a read fails at once, and a read that runs
  out of ``hold_ms`` or of ``connect_timeout`` marks it stalled.

Each statement runs in autocommit: one statement, no BEGIN/COMMIT round trips, sent by
libpq's own calls (``libpq_statements.py``) as a statement prepared once per connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Mapping
from typing import Any

import psycopg
from psycopg import AsyncConnection
from psycopg.types.json import set_json_dumps, set_json_loads
from sqlalchemy.dialects import postgresql

from app.persistence.connections import DatabaseTimeouts, libpq_conninfo, postgres_connect_args
from app.persistence.errors import DatabaseBusy
from app.persistence.game_state import game_state
from app.persistence.json_columns import json_text, json_value
from app.persistence.libpq_statements import LibpqStatement, Session
from app.persistence.repositories import Credentials, StoredDocument, StoredGame, StoredVersion
from app.persistence.stall import StallBreaker
from app.persistence.statements import (
    GAME_DOCUMENT,
    GAME_RECOVERY,
    GAME_STATE,
    GAME_VERSION,
    KEY_STORED,
    driver_sql,
)
from app.persistence.unit_of_work import translated
from app.persistence.watchdog import CUT_CONNECTIONS

# The psycopg dialect's constructor is not annotated in SQLAlchemy.
_DIALECT = postgresql.psycopg.dialect()  # type: ignore[no-untyped-call]
_DOCUMENT = LibpqStatement(driver_sql(GAME_DOCUMENT, _DIALECT))
_VERSION = LibpqStatement(driver_sql(GAME_VERSION, _DIALECT))
_RECOVERY = LibpqStatement(driver_sql(GAME_RECOVERY, _DIALECT))
_KEY_STORED = LibpqStatement(driver_sql(KEY_STORED, _DIALECT))
_STATE = LibpqStatement(driver_sql(GAME_STATE, _DIALECT))


class AsyncGameRows:
    """A game's read model and version, read on the event loop with bounded connections."""

    def __init__(
        self,
        url: str,
        *,
        size: int,
        timeouts: DatabaseTimeouts,
        stall: StallBreaker | None = None,
    ) -> None:
        # The URL's own libpq options are merged into the connect arguments' ones.
        self._conninfo = libpq_conninfo(url)
        self._connect_args = postgres_connect_args(url, timeouts)
        self._size = size
        self._pool_s = timeouts.pool_ms / 1000
        self._hold_s = timeouts.hold_ms / 1000
        self._idle: list[Session] = []
        self._held = _HoldBound()
        self._statements: dict[str, LibpqStatement] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots = asyncio.Semaphore(size)
        self._stall = stall

    async def document(self, game_id: str) -> StoredDocument | None:
        row = await self._fetch_one(_DOCUMENT, {"game_id": game_id})
        if row is None:
            return None
        version, document, key, host_hash, player_hashes = row
        return StoredDocument(version, document, key, Credentials(host_hash, player_hashes))

    async def version(self, game_id: str) -> StoredVersion | None:
        row = await self._fetch_one(_VERSION, {"game_id": game_id})
        if row is None:
            return None
        version, host_hash, player_hashes = row
        return StoredVersion(version, Credentials(host_hash, player_hashes))

    async def recovery(self, game_id: str) -> StoredVersion | None:
        row = await self._fetch_one(_RECOVERY, {"game_id": game_id})
        if row is None:
            return None
        version, host_hash, player_hashes, recovery_hash = row
        return StoredVersion(version, Credentials(host_hash, player_hashes, recovery_hash))

    async def state(self, game_id: str) -> StoredGame | None:
        row = await self._fetch_one(_STATE, {"game_id": game_id})
        if row is None:
            return None
        version, state, host_hash, player_hashes, recovery_hash, write_tat_ms, budgets = row
        return StoredGame(
            game_state(game_id, version, state),
            Credentials(host_hash, player_hashes, recovery_hash),
            write_tat_ms,
            budgets,
        )

    async def key_stored(self, key_hash: str) -> bool:
        return await self._fetch_one(_KEY_STORED, {"key_hash": key_hash}) is not None

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for session in idle:
            session.close()

    def discard(self) -> None:
        """Close the idle connections without their event loop (it may be gone)."""
        idle, self._idle = self._idle, []
        for session in idle:
            _discard(session)

    # ---- the bounded connections ---------------------------------------------------------

    async def fetch_one(self, sql: str, values: Mapping[str, Any]) -> tuple[Any, ...] | None:
        """The first row of one statement (the driver's SQL, its values by name in the
        driver's form) run in autocommit on one of these connections, within their bounds:
        a change stored by one statement that checks what it read (``pg_loop_changes.py``)."""
        statement = self._statements.get(sql)
        if statement is None:  # one per statement of the code's, never a client's
            statement = self._statements[sql] = LibpqStatement(sql)
        return await self._fetch_one(statement, values)

    async def _fetch_one(
        self, statement: LibpqStatement, values: Mapping[str, Any]
    ) -> tuple[Any, ...] | None:
        # The database's outages reach the use cases as the storage port's.
        with translated():
            return await self._fetch_bounded(statement, values)

    async def _fetch_bounded(
        self, statement: LibpqStatement, values: Mapping[str, Any]
    ) -> tuple[Any, ...] | None:
        self._follow_running_loop()
        self._check_stall()
        if self._slots.locked():
            try:
                async with asyncio.timeout(self._pool_s):
                    await self._slots.acquire()
            except TimeoutError:
                raise DatabaseBusy("Every database connection is busy; retry shortly.") from None
        else:
            # A free slot is taken at once, without waiting: no timer to arm and cancel.
            await self._slots.acquire()
        try:
            # Stalled while this read waited: it fails now rather than wait out a bound.
            self._check_stall()
            try:
                return await self._on_a_connection(statement, values, reuse=True)
            except _StalePooledConnection:
                # The server restarted (or dropped it) while it sat idle: one new connection
                # answers instead of failing the request, as db.py's checkout ping does.
                return await self._on_a_connection(statement, values, reuse=False)
        finally:
            self._slots.release()

    async def _on_a_connection(
        self, statement: LibpqStatement, values: Mapping[str, Any], *, reuse: bool
    ) -> tuple[Any, ...] | None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._hold_s
        reused = reuse and bool(self._idle)
        session = self._idle.pop() if reused else await self._connect(deadline)
        connection = session.connection
        cut = _Cut(connection)
        self._held.hold(cut, deadline)
        try:
            row = await session.first_row(statement, values)
        except psycopg.OperationalError as exc:
            lost = connection.broken  # the server's doing, or the cut's: not a refusal
            _discard(session)
            if cut.fired:
                CUT_CONNECTIONS.inc()
                self._trip("a read held its connection past DB_HOLD_TIMEOUT_MS")
                raise DatabaseBusy(
                    "The database did not answer within the service's bound; retry shortly."
                ) from None
            if reused and lost:
                raise _StalePooledConnection from exc
            raise
        except BaseException:
            # Failed or cancelled mid-statement (its caller went away): the connection's
            # state is unknown. Closed, its statement ends at once.
            _discard(session)
            raise
        finally:
            self._held.release(cut)
        if cut.fired:  # cut as the answer came: the connection is no use any more
            _discard(session)
        else:
            self._idle.append(session)
        return row

    async def _connect(self, deadline: float) -> Session:
        """A new connection, made within ``connect_timeout`` (psycopg's own,
        per address) and the hold bound (a connection being made has no server statement
        to cancel)."""
        try:
            async with asyncio.timeout_at(deadline):
                connection = await AsyncConnection.connect(
                    self._conninfo, autocommit=True, **self._connect_args
                )
                set_json_loads(json_value, connection)
                set_json_dumps(json_text, connection)  # a change's JSON columns
                return Session(connection)
        except TimeoutError:
            self._trip("no answer to a new connection within DB_HOLD_TIMEOUT_MS")
            raise DatabaseBusy(
                "The database did not answer within the service's bound; retry shortly."
            ) from None
        except psycopg.errors.ConnectionTimeout:
            self._trip("no answer to a new connection within DB_CONNECT_TIMEOUT_S")
            raise

    def _check_stall(self) -> None:
        if self._stall is not None:
            self._stall.check()

    def _trip(self, why: str) -> None:
        if self._stall is not None:
            self._stall.trip(why)

    def _follow_running_loop(self) -> None:
        """Connections and the semaphore belong to one event loop: a new loop (a test's
        second client, say) starts with none of the old loop's."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop = loop
            self._idle = []
            self._slots = asyncio.Semaphore(self._size)
            self._held = _HoldBound()


class _StalePooledConnection(Exception):
    pass


class _HoldBound:
    """Cuts each connection held past its deadline, with one timer for them all: at the
    earliest deadline of the connections in use, armed again at the next one when it
    fires. Every connection is held for the same time, so a later hold never has an
    earlier deadline than the timer's. A statement only adds its cut and takes it back,
    where a timer of its own (made, pushed on the loop's heap, cancelled) measured dearer
    (bench/RESULTS.md, twentieth round)."""

    def __init__(self) -> None:
        self._deadlines: dict[_Cut, float] = {}
        self._timer: asyncio.TimerHandle | None = None

    def hold(self, cut: _Cut, deadline: float) -> None:
        self._deadlines[cut] = deadline
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_at(deadline, self._expire)

    def release(self, cut: _Cut) -> None:
        del self._deadlines[cut]

    def _expire(self) -> None:
        self._timer = None
        if not self._deadlines:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        for cut, deadline in list(self._deadlines.items()):
            if deadline <= now:
                cut()
        waiting = [deadline for deadline in self._deadlines.values() if deadline > now]
        if waiting:
            self._timer = loop.call_at(min(waiting), self._expire)


class _Cut:
    """Shuts down a connection's socket, once: its statement fails at once, as when the
    watchdog cuts a threadpool connection (a duplicate descriptor, so that the
    connection's own stays for psycopg to close)."""

    def __init__(self, connection: AsyncConnection[Any]) -> None:
        self._connection = connection
        self.fired = False

    def __call__(self) -> None:
        if self.fired:
            return
        self.fired = True
        with contextlib.suppress(OSError, psycopg.OperationalError):
            fileno = os.dup(self._connection.pgconn.socket)
            with socket.socket(fileno=fileno) as sock:
                sock.shutdown(socket.SHUT_RDWR)


def _discard(session: Session) -> None:
    # Closing a broken connection may fail: it is gone either way.
    with contextlib.suppress(Exception):
        session.close()
