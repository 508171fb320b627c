"""The bench database as the ceilings open it: the service's schema (its migrations made
it), none of the service's code.

- SQLite: one ``sqlite3`` connection per process, used on the event loop, with the
  PRAGMAs the service sets on each of its connections (``_on_sqlite_connect`` in
  ``app/persistence/db.py``; the values copied here so that a change there cannot move a
  ceiling). Each statement is its own transaction (autocommit): a read is one indexed
  lookup, a write one ``UPDATE`` committed in WAL with ``synchronous = NORMAL``.
- PostgreSQL: psycopg's async connections in autocommit, as many as the service's
  default pool (``DB_POOL_SIZE``), handed out by a queue.

Every statement finds its row by the primary key, ``games.id``.
"""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime
from typing import Any, Protocol

SQLITE_PRAGMAS = (
    "PRAGMA busy_timeout = 2000",
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
    "PRAGMA foreign_keys = ON",
    "PRAGMA cache_size = -256",
)
POSTGRES_CONNECTIONS = 5


class GameRows(Protocol):
    async def open(self) -> None: ...
    async def close(self) -> None: ...
    async def document(self, game_id: str) -> tuple[int, str] | None: ...
    async def version(self, game_id: str) -> int | None: ...
    async def touch(self, game_id: str) -> None: ...


class SqliteRows:
    def __init__(self, path: str) -> None:
        self._path = path
        self._db: sqlite3.Connection | None = None

    async def open(self) -> None:
        db = sqlite3.connect(self._path, isolation_level=None)
        for pragma in SQLITE_PRAGMAS:
            db.execute(pragma)
        self._db = db

    async def close(self) -> None:
        if self._db is not None:
            self._db.close()

    async def document(self, game_id: str) -> tuple[int, str] | None:
        assert self._db is not None
        sql = "SELECT version, document FROM games WHERE id = ?"
        row = self._db.execute(sql, (game_id,)).fetchone()
        return None if row is None else (row[0], row[1])

    async def version(self, game_id: str) -> int | None:
        assert self._db is not None
        row = self._db.execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else int(row[0])

    async def touch(self, game_id: str) -> None:
        assert self._db is not None
        # The text SQLAlchemy stores a datetime as on SQLite, so the service reads it back.
        now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
        self._db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))


class PostgresRows:
    def __init__(self, conninfo: str) -> None:
        self._conninfo = conninfo
        self._idle: asyncio.Queue[Any] = asyncio.Queue()
        self._all: list[Any] = []

    async def open(self) -> None:
        import psycopg

        for _ in range(POSTGRES_CONNECTIONS):
            connection = await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True)
            self._all.append(connection)
            self._idle.put_nowait(connection)

    async def close(self) -> None:
        for connection in self._all:
            await connection.close()

    async def _checkout(self) -> Any:
        """An idle connection; one the server closed (a restart, a terminated backend) is
        opened again, so that one outage does not fail every later request on it."""
        connection = await self._idle.get()
        if connection.closed:
            import psycopg

            try:
                connection = await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True)
            except BaseException:
                self._idle.put_nowait(connection)
                raise
            self._all.append(connection)
        return connection

    async def _one(self, sql: str, game_id: str) -> Any:
        connection = await self._checkout()
        try:
            cursor = await connection.execute(sql, (game_id,))
            return await cursor.fetchone()
        finally:
            self._idle.put_nowait(connection)

    async def document(self, game_id: str) -> tuple[int, str] | None:
        row = await self._one("SELECT version, document FROM games WHERE id = %s", game_id)
        return None if row is None else (row[0], row[1])

    async def version(self, game_id: str) -> int | None:
        row = await self._one("SELECT version FROM games WHERE id = %s", game_id)
        return None if row is None else int(row[0])

    async def touch(self, game_id: str) -> None:
        connection = await self._checkout()
        try:
            await connection.execute(
                "UPDATE games SET updated_at = now() WHERE id = %s", (game_id,)
            )
        finally:
            self._idle.put_nowait(connection)


def game_rows(url: str) -> GameRows:
    """``url`` as the service takes it in ``DATABASE_URL``: ``sqlite:///PATH`` or
    ``postgresql://...`` (``+psycopg`` allowed)."""
    if url.startswith("sqlite:///"):
        return SqliteRows(url.removeprefix("sqlite:///"))
    for prefix in ("postgresql+psycopg://", "postgres://"):
        if url.startswith(prefix):
            url = "postgresql://" + url.removeprefix(prefix)
    return PostgresRows(url)


def game_id(path: str) -> str:
    """The game id of a stored route's path: ``/v1/games/{id}...``."""
    parts = path.split("/", 4)
    return parts[3] if len(parts) > 3 else ""
