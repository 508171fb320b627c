"""Reads of one game row on the event loop (PostgreSQL): what ``GET /v1/games/{id}`` and
its 304 cost, without a thread or a SQLAlchemy session.

Measured (``bench/RESULTS.md``, "Where a read's cost is"): the same one-row SELECT serves
2-3x the requests through psycopg's async connections that it serves through a pooled
``Session`` in the threadpool, where at 64 connections the requests queue for the four
threads. Changes stay on the threadpool path (``db.py``): they hold a row lock across
Python code, which is what threads are for.

The bounds are the same as the threadpool path's (``DatabaseTimeouts``):

- at most ``size`` connections per process, opened on demand and kept; waiting for one is
  bounded by ``pool_ms``;
- connecting, and the server-side statement bound, as ``db.py`` sets them for libpq;
- holding a connection at all: ``hold_ms`` (``asyncio.timeout``), which is what ends a
  read of a frozen server; the connection is then closed, as the watchdog closes a
  threadpool connection, and counted in ``db_connections_cut_total``.

Each statement runs in autocommit: one statement, no BEGIN/COMMIT round trips.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import psycopg
from psycopg import AsyncConnection

from app.persistence.db import (
    DatabaseBusy,
    DatabaseTimeouts,
    libpq_conninfo,
    postgres_connect_args,
)
from app.persistence.repositories import Credentials, StoredDocument, StoredVersion
from app.persistence.watchdog import CUT_CONNECTIONS

_DOCUMENT = (
    "SELECT version, document, document_key, host_token_hash, player_token_hashes"
    " FROM games WHERE id = %s"
)
_VERSION = "SELECT version, host_token_hash, player_token_hashes FROM games WHERE id = %s"


class AsyncGameRows:
    """A game's read model and version, read on the event loop with bounded connections."""

    def __init__(self, url: str, *, size: int, timeouts: DatabaseTimeouts) -> None:
        # The URL's own libpq options are merged into the connect arguments' ones.
        self._conninfo = libpq_conninfo(url)
        self._connect_args = postgres_connect_args(url, timeouts)
        self._size = size
        self._pool_s = timeouts.pool_ms / 1000
        self._hold_s = timeouts.hold_ms / 1000
        self._idle: list[AsyncConnection[Any]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots = asyncio.Semaphore(size)

    async def document(self, game_id: str) -> StoredDocument | None:
        row = await self._fetch_one(_DOCUMENT, game_id)
        if row is None:
            return None
        version, document, key, host_hash, player_hashes = row
        return StoredDocument(version, document, key, Credentials(host_hash, player_hashes))

    async def version(self, game_id: str) -> StoredVersion | None:
        row = await self._fetch_one(_VERSION, game_id)
        if row is None:
            return None
        version, host_hash, player_hashes = row
        return StoredVersion(version, Credentials(host_hash, player_hashes))

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for connection in idle:
            await connection.close()

    # ---- the bounded connections ---------------------------------------------------------

    async def _fetch_one(self, statement: str, game_id: str) -> tuple[Any, ...] | None:
        self._follow_running_loop()
        try:
            async with asyncio.timeout(self._pool_s):
                await self._slots.acquire()
        except TimeoutError:
            raise DatabaseBusy("Every database connection is busy; retry shortly.") from None
        try:
            try:
                return await self._on_a_connection(statement, game_id, reuse=True)
            except _StalePooledConnection:
                # The server restarted (or dropped it) while it sat idle: one new connection
                # answers instead of failing the request, as db.py's checkout ping does.
                return await self._on_a_connection(statement, game_id, reuse=False)
        finally:
            self._slots.release()

    async def _on_a_connection(
        self, statement: str, game_id: str, *, reuse: bool
    ) -> tuple[Any, ...] | None:
        reused = reuse and bool(self._idle)
        connection = self._idle.pop() if reused else None
        try:
            async with asyncio.timeout(self._hold_s):
                if connection is None:
                    connection = await AsyncConnection.connect(
                        self._conninfo,
                        autocommit=True,
                        **self._connect_args,
                    )
                cursor = await connection.execute(statement, (game_id,))
                row = await cursor.fetchone()
        except TimeoutError:
            if connection is not None:
                CUT_CONNECTIONS.inc()
            await _discard(connection)
            raise DatabaseBusy(
                "The database did not answer within the service's bound; retry shortly."
            ) from None
        except psycopg.OperationalError as exc:
            await _discard(connection)
            if reused and connection is not None and connection.broken:
                raise _StalePooledConnection from exc
            raise
        except BaseException:
            # Cancelled (the client went away) or failed mid-statement: its state is unknown.
            await _discard(connection)
            raise
        self._idle.append(connection)
        return row

    def _follow_running_loop(self) -> None:
        """Connections and the semaphore belong to one event loop: a new loop (a test's
        second client, say) starts with none of the old loop's."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop = loop
            self._idle = []
            self._slots = asyncio.Semaphore(self._size)


class _StalePooledConnection(Exception):
    pass


async def _discard(connection: AsyncConnection[Any] | None) -> None:
    if connection is not None:
        # Closing a broken connection may fail: it is gone either way.
        with contextlib.suppress(Exception):
            await connection.close()
