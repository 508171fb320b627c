"""Engine, unit of work and database error classification.

Writers to one game are serialized without lost updates:

- PostgreSQL: a write use case loads its game with ``SELECT ... FOR UPDATE``
  (``GameRepository.get(..., for_update=True)``), which holds the row until commit.
- SQLite has no row locks, so a ``write=True`` transaction starts with
  ``BEGIN IMMEDIATE``: it takes the database's single write lock before its first read,
  and other writers wait (``busy_timeout``) instead of reading a snapshot they can no
  longer write from. Read transactions start with a plain (deferred) ``BEGIN``; with WAL
  they never block a writer. pysqlite's own transaction handling is switched off so that
  these ``BEGIN`` statements are the only ones.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import ConnectionPoolEntry

# Execution option carried by the engine that write transactions use on SQLite.
_SQLITE_BEGIN = "vr_sqlite_begin"

SQLITE_BUSY_TIMEOUT_MS = 30_000
POSTGRES_CONNECT_TIMEOUT_S = 3

# PostgreSQL SQLSTATEs meaning "the server is not there for us right now".
_PG_UNAVAILABLE_STATES = {"57P01", "57P02", "57P03", "53300", "53000"}


def normalize_url(url: str) -> str:
    """Pick the driver for a database URL: psycopg 3 for PostgreSQL, sqlite3 for SQLite.

    Creates the parent folder of a SQLite database file when it is missing.
    """
    if url.startswith("postgres://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgres://")
    elif url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    return url


def _on_sqlite_connect(dbapi_connection: sqlite3.Connection, _record: ConnectionPoolEntry) -> None:
    # Autocommit at the driver level: the "begin" listener below emits BEGIN itself.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
    finally:
        cursor.close()


def _on_sqlite_begin(conn: Connection) -> None:
    mode = conn.get_execution_options().get(_SQLITE_BEGIN)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if mode == "immediate" else "BEGIN")


class Database:
    """One engine plus the unit of work (``transaction``) used by every use case."""

    def __init__(self, url: str, *, pool_size: int = 10, echo: bool = False) -> None:
        self.url = normalize_url(url)
        backend = make_url(self.url).get_backend_name()
        options: dict[str, Any] = {"echo": echo, "pool_size": pool_size}
        if backend == "sqlite":
            options["connect_args"] = {"check_same_thread": False}
        else:
            # pre-ping: after a database restart, stale pooled connections are replaced
            # on checkout instead of failing one request each.
            options["pool_pre_ping"] = True
            options["connect_args"] = {"connect_timeout": POSTGRES_CONNECT_TIMEOUT_S}
        self.engine: Engine = create_engine(self.url, **options)
        self.dialect_name: str = self.engine.dialect.name
        write_engine = self.engine
        if self.dialect_name == "sqlite":
            event.listen(self.engine, "connect", _on_sqlite_connect)
            event.listen(self.engine, "begin", _on_sqlite_begin)
            write_engine = self.engine.execution_options(**{_SQLITE_BEGIN: "immediate"})
        self._read_sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._write_sessions = sessionmaker(write_engine, expire_on_commit=False)

    @contextmanager
    def transaction(self, *, write: bool) -> Iterator[Session]:
        """One transaction: commit on normal exit, roll back on an exception, always close.

        Repositories never commit; this is the only place that does.
        """
        factory = self._write_sessions if write else self._read_sessions
        with factory() as session:
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise

    def ping(self) -> None:
        """Raise unless the database answers ``SELECT 1``."""
        with self.engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    def dispose(self) -> None:
        self.engine.dispose()


def is_unavailable_error(exc: BaseException) -> bool:
    """True when ``exc`` means the database is unreachable, down or locked up (-> 503).

    Rule errors, constraint violations and serialization failures are not: those are
    answers from a working database.
    """
    if isinstance(exc, PoolTimeoutError):
        return True
    if isinstance(exc, DBAPIError):
        if exc.connection_invalidated:
            return True
        return _is_unavailable_driver_error(exc.orig)
    return _is_unavailable_driver_error(exc)


def _is_unavailable_driver_error(orig: BaseException | None) -> bool:
    if orig is None:
        return False
    if isinstance(orig, sqlite3.OperationalError):
        message = str(orig).lower()
        return "database is locked" in message or "unable to open database" in message
    try:
        import psycopg
    except ImportError:  # pragma: no cover - psycopg is a dependency
        return False
    if isinstance(orig, psycopg.InterfaceError):
        return True
    if isinstance(orig, psycopg.OperationalError):
        # Connection failures carry no SQLSTATE; a live server answering with an error
        # (deadlock, lock timeout, serialization failure) does.
        state = orig.sqlstate
        return state is None or state.startswith("08") or state in _PG_UNAVAILABLE_STATES
    return False


def is_lock_not_available(exc: BaseException) -> bool:
    """True when a ``FOR UPDATE NOWAIT`` found the row locked by another transaction."""
    orig = exc.orig if isinstance(exc, DBAPIError) else exc
    return getattr(orig, "sqlstate", None) == "55P03"
