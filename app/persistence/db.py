"""Engine, unit of work and database error classification.

Writers to one game are serialized without lost updates:

- PostgreSQL: a change is stored only if its game is still at the version it read
  (``GameRepository.store_change``). Most changes read without a lock, each statement
  committing on its own, and run again when another writer stored first; a change's
  last attempt, and a change inside a larger transaction, loads its game with
  ``SELECT ... FOR UPDATE``, which holds the row until commit
  (``app/services/transactions.py``).
- SQLite has no row locks, so a ``write=True`` transaction starts with
  ``BEGIN IMMEDIATE``: it takes the database's single write lock before its first read,
  and other writers wait (``busy_timeout``) instead of reading a snapshot they can no
  longer write from. Read transactions start with a plain (deferred) ``BEGIN``; with WAL
  they never block a writer. pysqlite's own transaction handling is switched off so that
  these ``BEGIN`` statements are the only ones.

Every wait on the database is bounded (``DatabaseTimeouts``, from the ``DB_*_TIMEOUT``
settings) so that a stuck database costs a request a 503, never a thread for ever:

- waiting for a pooled connection: ``pool_timeout``;
- connecting: libpq ``connect_timeout`` (PostgreSQL);
- waiting for another writer's lock: ``lock_timeout`` (PostgreSQL) or ``busy_timeout``
  (SQLite); readers never wait for a writer (MVCC / WAL);
- one statement: ``statement_timeout`` (PostgreSQL, enforced by the server);
- holding a connection at all: the client-side ``Watchdog`` (PostgreSQL), which also
  covers a server that is frozen and so enforces nothing, plus TCP keepalives and
  ``tcp_user_timeout`` for a peer that vanished from the network;
- a server that answers nothing at all: once one call ran out of the watchdog's bound or
  of ``connect_timeout``, every call fails at once until a probe gets an answer
  (``stall.py``), so requests queued behind it cost no bound of their own.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import ConnectionPoolEntry, PoolProxiedConnection

# The error classification lives in errors.py; importers of db.py keep finding it here.
from app.persistence.errors import DatabaseBusy as DatabaseBusy
from app.persistence.errors import is_connect_timeout
from app.persistence.errors import is_lock_not_available as is_lock_not_available
from app.persistence.errors import is_unavailable_error as is_unavailable_error
from app.persistence.errors import unavailable_detail as unavailable_detail
from app.persistence.stall import StallBreaker
from app.persistence.watchdog import Watchdog

if TYPE_CHECKING:
    from app.persistence.async_reads import AsyncGameRows

# Execution option carried by the engine that write transactions use on SQLite.
_SQLITE_BEGIN = "vr_sqlite_begin"
# Pool record flag: connected since its last checkout (see ``_install_watchdog``).
_FRESH = "vr_fresh"
# Pool record info: when the connection was last given back (``time.monotonic()``).
_CHECKED_IN_AT = "vr_checked_in_at"
#: SQLite page cache per connection, KiB (see ``_on_sqlite_connect``).
SQLITE_CACHE_KIB = 256
#: A pooled PostgreSQL connection idle this long is pinged before use (``_install_watchdog``).
PING_AFTER_IDLE_S = 1.0


@dataclass(frozen=True, slots=True)
class DatabaseTimeouts:
    """The bounds on every wait on the database (see the module docstring).

    The defaults are the settings' defaults (``app/settings.py``, README).
    """

    pool_ms: int = 3000  # waiting for a pooled connection
    connect_s: int = 2  # PostgreSQL connect_timeout (libpq's minimum is 2)
    lock_ms: int = 2000  # PostgreSQL lock_timeout, SQLite busy_timeout
    statement_ms: int = 3000  # PostgreSQL statement_timeout
    hold_ms: int = 5000  # PostgreSQL: the watchdog's bound on one checkout


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


def libpq_conninfo(url: str) -> str:
    """The database URL as libpq takes it, for connections made without SQLAlchemy."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _on_sqlite_connect(
    dbapi_connection: sqlite3.Connection, _record: ConnectionPoolEntry, *, busy_timeout_ms: int
) -> None:
    # Autocommit at the driver level: the "begin" listener below emits BEGIN itself.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        # 256 KiB of page cache per pooled connection instead of SQLite's 2 MiB: the file's
        # pages stay in the OS page cache anyway, and five connections' caches were the
        # worker's largest growth under load (measured: 97.7 -> 91.1 MiB, same req/s).
        cursor.execute(f"PRAGMA cache_size = -{SQLITE_CACHE_KIB}")
    finally:
        cursor.close()


def _on_sqlite_begin(conn: Connection) -> None:
    mode = conn.get_execution_options().get(_SQLITE_BEGIN)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if mode == "immediate" else "BEGIN")


def postgres_connect_args(url: str, timeouts: DatabaseTimeouts) -> dict[str, Any]:
    """libpq parameters: the connect bound, the server-side bounds, TCP liveness."""
    server_bounds = (
        f"-c statement_timeout={timeouts.statement_ms} -c lock_timeout={timeouts.lock_ms}"
        # A transaction left open by a client that vanished frees its locks.
        f" -c idle_in_transaction_session_timeout={2 * timeouts.hold_ms}"
    )
    given = make_url(url).query.get("options")
    if isinstance(given, str) and given:
        server_bounds = f"{given} {server_bounds}"
    return {
        "connect_timeout": max(2, timeouts.connect_s),
        "options": server_bounds,
        # A peer gone from the network (no RST): unacknowledged data fails after
        # tcp_user_timeout, an idle connection after the keepalive probes.
        "keepalives": 1,
        "keepalives_idle": 10,
        "keepalives_interval": 5,
        "keepalives_count": 3,
        "tcp_user_timeout": timeouts.hold_ms,
    }


class Database:
    """One engine plus the unit of work (``transaction``) used by every use case."""

    def __init__(
        self,
        url: str,
        *,
        pool_size: int = 10,
        echo: bool = False,
        timeouts: DatabaseTimeouts | None = None,
    ) -> None:
        self.url = normalize_url(url)
        self.timeouts = timeouts = timeouts or DatabaseTimeouts()
        backend = make_url(self.url).get_backend_name()
        options: dict[str, Any] = {"echo": echo, "pool_size": pool_size}
        if backend != "sqlite" or make_url(self.url).database not in (None, "", ":memory:"):
            # (an in-memory SQLite database has one connection per thread, no queue)
            options["pool_timeout"] = timeouts.pool_ms / 1000
        self.watchdog: Watchdog | None = None
        # PostgreSQL: calls fail at once while the server answers nothing (stall.py).
        self.stall: StallBreaker | None = None
        if backend == "sqlite":
            options["connect_args"] = {"check_same_thread": False}
        else:
            options["connect_args"] = postgres_connect_args(self.url, timeouts)
        self.engine: Engine = create_engine(self.url, **options)
        self.dialect_name: str = self.engine.dialect.name
        write_engine = self.engine
        if self.dialect_name == "postgresql":
            stall = self.stall = StallBreaker(self._probe)
            self.watchdog = Watchdog(
                timeouts.hold_ms / 1000,
                on_fire=lambda: stall.trip("a connection held past DB_HOLD_TIMEOUT_MS"),
            )
            _install_watchdog(self.engine, self.watchdog)
        if self.dialect_name == "sqlite":
            on_connect = partial(_on_sqlite_connect, busy_timeout_ms=timeouts.lock_ms)
            event.listen(self.engine, "connect", on_connect)
            event.listen(self.engine, "begin", _on_sqlite_begin)
            write_engine = self.engine.execution_options(**{_SQLITE_BEGIN: "immediate"})
        self._read_sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._write_sessions = sessionmaker(write_engine, expire_on_commit=False)
        self._autocommit_sessions: sessionmaker[Session] | None = None
        if self.dialect_name == "postgresql":
            autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT")
            self._autocommit_sessions = sessionmaker(autocommit, expire_on_commit=False)

    @contextmanager
    def transaction(
        self, *, write: bool, statement_by_statement: bool = False
    ) -> Iterator[Session]:
        """One transaction: commit on normal exit, roll back on an exception, always close.

        Repositories never commit; this is the only place that does.

        ``statement_by_statement`` (PostgreSQL; elsewhere ignored): each statement commits
        on its own, with no ``BEGIN`` and ``COMMIT`` round trips around them. Only for work
        whose writes are one statement that checks what it read, such as a change stored
        only if its game is still at the version it read (``GameTransactions.changing``).
        """
        if self.stall is not None:
            self.stall.check()
        if statement_by_statement and self._autocommit_sessions is not None:
            factory = self._autocommit_sessions
        else:
            factory = self._write_sessions if write else self._read_sessions
        with factory() as session:
            try:
                yield session
                session.commit()
            except BaseException as exc:
                self._note_failure(exc)
                session.rollback()
                raise

    def async_game_rows(self, size: int) -> AsyncGameRows | None:
        """Reads of a game on the event loop, on ``size`` connections of their own and
        within this database's timeouts: PostgreSQL only (None elsewhere)."""
        if self.dialect_name != "postgresql":
            return None
        # Here, not at the top: it loads psycopg, which a process on SQLite never needs.
        from app.persistence.async_reads import AsyncGameRows

        return AsyncGameRows(self.url, size=size, timeouts=self.timeouts, stall=self.stall)

    def ping(self) -> None:
        """Raise unless the database answers ``SELECT 1`` (at once while it is stalled)."""
        if self.stall is not None:
            self.stall.check()
        try:
            self._probe()
        except Exception as exc:
            self._note_failure(exc)
            raise

    def _probe(self) -> None:
        with self.engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    def _note_failure(self, exc: BaseException) -> None:
        # A new connection that got no answer at all is a stalled server, as is a
        # connection the watchdog cut (which trips the breaker itself).
        if self.stall is not None and is_connect_timeout(exc):
            self.stall.trip("no answer to a new connection within DB_CONNECT_TIMEOUT_S")

    def dispose(self) -> None:
        if self.stall is not None:
            self.stall.close()
        self.engine.dispose()
        if self.watchdog is not None:
            self.watchdog.close()


def _install_watchdog(engine: Engine, watchdog: Watchdog) -> None:
    """Arm ``watchdog`` for every checkout of ``engine``'s pool, and ping there.

    The ping replaces ``pool_pre_ping`` (which SQLAlchemy runs before any checkout
    listener, so before the watchdog could be armed): after a database restart a stale
    pooled connection is replaced on checkout instead of failing one request. Only a
    connection that sat in the pool for ``PING_AFTER_IDLE_S`` or more is pinged: a ping is
    a round trip, a quarter of what the cheapest transaction costs, and a connection in
    steady use has just proved it works (one that breaks in that second costs its request
    a 503, after which the pool replaces it). A ping that fails on a connection the
    watchdog cut short fails the request (503), since the server is stuck and a new
    connection would only wait ``connect_timeout`` more.
    """

    def on_connect(_dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        record.info[_FRESH] = True

    def on_checkout(
        dbapi_connection: Any, record: ConnectionPoolEntry, _proxy: PoolProxiedConnection
    ) -> None:
        key = id(record)
        fresh = record.info.pop(_FRESH, False)
        idle_since = record.info.pop(_CHECKED_IN_AT, None)
        watchdog.arm(key, dbapi_connection.fileno())
        if fresh or (idle_since is not None and time.monotonic() - idle_since < PING_AFTER_IDLE_S):
            return
        try:
            # The dialect's own ping (pool_pre_ping's): SELECT 1 outside any transaction.
            engine.dialect.do_ping(dbapi_connection)
        except Exception as exc:
            if watchdog.fired_on(key):
                raise
            raise DisconnectionError(f"stale pooled connection: {exc}") from exc

    def on_checkin(_dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        record.info[_CHECKED_IN_AT] = time.monotonic()
        watchdog.disarm(id(record))

    def on_release(_dbapi_connection: Any, record: ConnectionPoolEntry, *_: Any) -> None:
        watchdog.disarm(id(record))

    event.listen(engine.pool, "connect", on_connect)
    event.listen(engine.pool, "checkout", on_checkout)
    event.listen(engine.pool, "checkin", on_checkin)
    for name in ("invalidate", "soft_invalidate", "close", "detach"):
        event.listen(engine.pool, name, on_release)
