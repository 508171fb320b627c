"""Reads of one game row on the event loop (SQLite): what ``GET /v1/games/{id}`` and its
304 cost, a report's read (the game's state), and the checks a stranger's recovery gets
(the code's hash, whether its Idempotency-Key is held), without a hand-off to the
threadpool and back.

A read of one row by its key, in a file whose pages the OS has cached, takes less time
than waking a thread does; WAL mode lets it read while a writer writes. It must never
wait on the loop, though: its connection has ``busy_timeout = 0``, so a read that would
wait for a lock (a checkpoint, a writer's recovery) is refused at once, and it, like any
other error of the loop's connection, is read again the usual way: a unit of work on the
threadpool, within the database's bounds and with its error handling. The loop's own
connection is one per thread that reads (in practice, the event loop's), query-only,
and made again after an error.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from anyio import to_thread
from sqlalchemy.dialects import sqlite

from app.persistence.connections import SQLITE_CACHE_KIB
from app.persistence.game_state import game_state
from app.persistence.json_columns import json_value
from app.persistence.repositories import (
    Credentials,
    StoredDocument,
    StoredGame,
    StoredVersion,
)
from app.persistence.statements import (
    GAME_DOCUMENT,
    GAME_RECOVERY,
    GAME_STATE,
    GAME_VERSION,
    KEY_STORED,
    driver_sql,
)
from app.services.storage import UnitOfWork

if TYPE_CHECKING:
    from app.persistence.db import Database

_DIALECT = sqlite.dialect()
_DOCUMENT = driver_sql(GAME_DOCUMENT, _DIALECT)
_VERSION = driver_sql(GAME_VERSION, _DIALECT)
_RECOVERY = driver_sql(GAME_RECOVERY, _DIALECT)
_KEY_STORED = driver_sql(KEY_STORED, _DIALECT)
_STATE = driver_sql(GAME_STATE, _DIALECT)
_Row = TypeVar("_Row")


class SqliteLoopReads:
    """A game's read model and version, read on the event loop; the threadpool's unit of
    work reads whatever the loop may not (``AsyncGameReads``)."""

    def __init__(self, path: str, database: Database) -> None:
        self._path = path
        self._database = database
        self._local = threading.local()

    async def document(self, game_id: str) -> StoredDocument | None:
        found, row = self._on_the_loop(_DOCUMENT, game_id)
        if not found:
            return await self._in_a_thread(lambda uow: uow.games.document(game_id))
        if row is None:
            return None
        version, document, key, host_hash, player_hashes = row
        return StoredDocument(version, document, key, _credentials(host_hash, player_hashes))

    async def version(self, game_id: str) -> StoredVersion | None:
        found, row = self._on_the_loop(_VERSION, game_id)
        if not found:
            return await self._in_a_thread(lambda uow: uow.games.version(game_id))
        if row is None:
            return None
        version, host_hash, player_hashes = row
        return StoredVersion(version, _credentials(host_hash, player_hashes))

    async def recovery(self, game_id: str) -> StoredVersion | None:
        found, row = self._on_the_loop(_RECOVERY, game_id)
        if not found:
            return await self._in_a_thread(lambda uow: uow.games.recovery(game_id))
        if row is None:
            return None
        version, host_hash, player_hashes, recovery_hash = row
        return StoredVersion(version, _credentials(host_hash, player_hashes, recovery_hash))

    async def state(self, game_id: str) -> StoredGame | None:
        found, row = self._on_the_loop(_STATE, game_id)
        if not found:
            return await self._in_a_thread(lambda uow: uow.games.state(game_id))
        if row is None:
            return None
        version, state, host_hash, player_hashes, recovery_hash, write_tat_ms, budgets = row
        return StoredGame(
            game_state(game_id, version, json_value(state)),
            Credentials(host_hash, json_value(player_hashes), recovery_hash),
            write_tat_ms,
            None if budgets is None else json_value(budgets),
        )

    async def key_stored(self, key_hash: str) -> bool:
        found, row = self._on_the_loop(_KEY_STORED, key_hash)
        if not found:
            return await self._in_a_thread(lambda uow: uow.keys.get(key_hash) is not None)
        return row is not None

    async def close(self) -> None:
        self._drop_connection()

    def discard(self) -> None:
        """Close this thread's connection (another thread's goes with its thread)."""
        self._drop_connection()

    def _on_the_loop(self, statement: str, game_id: str) -> tuple[bool, Any]:
        """(True, the row or None) when read here; (False, None) when it must not be."""
        try:
            connection = self._connection()
            return True, connection.execute(statement, (game_id,)).fetchone()
        except sqlite3.Error:
            # Busy, or anything else: the threadpool's unit of work reads it and says
            # what is wrong; this connection is made again next time.
            self._drop_connection()
            return False, None

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self._path, isolation_level=None)
            connection.execute("PRAGMA busy_timeout = 0")
            connection.execute("PRAGMA query_only = 1")
            connection.execute(f"PRAGMA cache_size = -{SQLITE_CACHE_KIB}")
            self._local.connection = connection
        return connection

    def _drop_connection(self) -> None:
        connection = getattr(self._local, "connection", None)
        self._local.connection = None
        if connection is not None:
            with contextlib.suppress(sqlite3.Error):  # it is dropped either way
                connection.close()

    async def _in_a_thread(self, read: Callable[[UnitOfWork], _Row]) -> _Row:
        """``read`` in the threadpool's unit of work, with its bounds and its errors."""
        return await to_thread.run_sync(self._read, read)

    def _read(self, read: Callable[[UnitOfWork], _Row]) -> _Row:
        with self._database.unit_of_work(write=False) as uow:
            return read(uow)


def _credentials(
    host_hash: str, player_hashes: str, recovery_hash: str | None = None
) -> Credentials:
    # The players' hashes are a JSON column, which sqlite3 hands over as its text.
    return Credentials(host_hash, json_value(player_hashes), recovery_hash)
