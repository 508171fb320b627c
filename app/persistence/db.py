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

import time
from collections.abc import Iterator
from contextlib import AbstractContextManager as ContextManager
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.pool import ConnectionPoolEntry, PoolProxiedConnection

# Connecting lives in connections.py; importers of db.py keep finding it here.
from app.persistence.connections import (
    SQLITE_BEGIN,
    begin_on_sqlite,
    on_sqlite_connect,
    postgres_connect_args,
    sqlite_file,
)
from app.persistence.connections import DatabaseTimeouts as DatabaseTimeouts
from app.persistence.connections import libpq_conninfo as libpq_conninfo
from app.persistence.connections import normalize_url as normalize_url

# The error classification lives in errors.py; importers of db.py keep finding it here.
from app.persistence.driver_statements import change_statements, key_statements
from app.persistence.errors import DatabaseBusy as DatabaseBusy
from app.persistence.errors import is_connect_timeout
from app.persistence.errors import is_lock_not_available as is_lock_not_available
from app.persistence.errors import is_unavailable_error as is_unavailable_error
from app.persistence.errors import unavailable_detail as unavailable_detail
from app.persistence.json_columns import json_text, json_value
from app.persistence.pg_loop_changes import PostgresLoopChanges, StagedUnitOfWork
from app.persistence.sqlite_loop_writes import SqliteLoopWrites
from app.persistence.sqlite_reads import SqliteLoopReads
from app.persistence.sqlite_writer import KeptWriteConnection
from app.persistence.stall import StallBreaker
from app.persistence.unit_of_work import SqlUnitOfWork, translated
from app.persistence.watchdog import Watchdog
from app.services.storage import WorkOnTheLoop, WouldWait

if TYPE_CHECKING:
    from app.persistence.async_reads import AsyncGameRows

# Pool record flag: connected since its last checkout (see ``_install_watchdog``).
_FRESH = "vr_fresh"
# Pool record info: when the connection was last given back (``time.monotonic()``).
_CHECKED_IN_AT = "vr_checked_in_at"
#: A pooled PostgreSQL connection idle this long is pinged before use (``_install_watchdog``).
PING_AFTER_IDLE_S = 1.0


class Database:
    """One engine, its transactions, and the storage port's units of work on them
    (``unit_of_work``, which the use cases open)."""

    def __init__(
        self,
        url: str,
        *,
        pool_size: int = 10,
        echo: bool = False,
        timeouts: DatabaseTimeouts | None = None,
        sqlite_synchronous: str = "normal",
    ) -> None:
        self.url = normalize_url(url)
        self.timeouts = timeouts = timeouts or DatabaseTimeouts()
        backend = make_url(self.url).get_backend_name()
        options: dict[str, Any] = {"echo": echo, "pool_size": pool_size}
        if backend != "sqlite" or make_url(self.url).database not in (None, "", ":memory:"):
            # (an in-memory SQLite database has one connection per thread, no queue)
            options["pool_timeout"] = timeouts.pool_ms / 1000
        self.watchdog: Watchdog | None = None
        self._loop_reads: list[AsyncGameRows | SqliteLoopReads] = []
        # PostgreSQL: calls fail at once while the server answers nothing (stall.py).
        self.stall: StallBreaker | None = None
        if backend == "sqlite":
            options["connect_args"] = {"check_same_thread": False}
        else:
            options["connect_args"] = postgres_connect_args(self.url, timeouts)
        options["json_serializer"] = json_text
        options["json_deserializer"] = json_value
        self.engine: Engine = create_engine(self.url, **options)
        self.dialect_name: str = self.engine.dialect.name
        # Compiled now, not on the first change or the first keyed request.
        change_statements(self.engine.dialect)
        key_statements(self.engine.dialect)
        write_engine = self.engine
        if self.dialect_name == "postgresql":
            stall = self.stall = StallBreaker(self._probe)
            self.watchdog = Watchdog(
                timeouts.hold_ms / 1000,
                on_fire=lambda: stall.trip("a connection held past DB_HOLD_TIMEOUT_MS"),
            )
            _install_watchdog(self.engine, self.watchdog)
        if self.dialect_name == "sqlite":
            on_connect = partial(
                on_sqlite_connect,
                busy_timeout_ms=timeouts.lock_ms,
                synchronous=sqlite_synchronous,
            )
            event.listen(self.engine, "connect", on_connect)
            write_engine = self.engine.execution_options(**{SQLITE_BEGIN: "immediate"})
        self._write_engine = write_engine
        self._kept_writer = (
            KeptWriteConnection(write_engine) if self.dialect_name == "sqlite" else None
        )
        #: A SQLite file's units of work on the event loop.
        self._loop_writes = SqliteLoopWrites(write_engine) if sqlite_file(self.url) else None
        #: PostgreSQL's changes on the event loop, on the connections of its reads there
        #: (``async_game_rows``).
        self._loop_changes: PostgresLoopChanges | None = None
        self._autocommit_engine: Engine | None = None
        if self.dialect_name == "postgresql":
            self._autocommit_engine = self.engine.execution_options(isolation_level="AUTOCOMMIT")

    @contextmanager
    def transaction(
        self, *, write: bool, statement_by_statement: bool = False
    ) -> Iterator[Connection]:
        """One transaction on a pooled connection: commit on normal exit, roll back on an
        exception, always give the connection back.

        Repositories never commit; this is the only place that does. They run Core
        statements on the connection itself: an ORM ``Session`` around it cost more than
        the statements on SQLite, and nothing here uses its identity map
        (bench/RESULTS.md).

        Within a request that runs on the event loop (``on_the_loop.running()``, a SQLite
        file), on the loop's own connection instead, which never waits
        (``sqlite_loop_writes.py``).

        ``statement_by_statement`` (PostgreSQL; elsewhere ignored): each statement commits
        on its own, with no ``BEGIN`` and ``COMMIT`` round trips around them. Only for work
        whose writes are one statement that checks what it read, such as a change stored
        only if its game is still at the version it read (``GameTransactions.changing``).
        """
        if self._loop_writes is not None and (run := self._loop_writes.current()) is not None:
            with self._loop_writes.transaction(run, write=write) as connection:
                yield connection
            return
        if self._loop_changes is not None and self._loop_changes.current() is not None:
            # A pooled connection would block the loop: the request goes to a thread.
            raise WouldWait("a transaction on a pooled connection")
        if self.stall is not None:
            self.stall.check()
        with self._connection(write, statement_by_statement) as connection:
            try:
                if self.dialect_name == "sqlite":  # the driver is in autocommit mode
                    connection.begin()
                    begin_on_sqlite(connection)
                yield connection
                connection.commit()
            except BaseException as exc:
                self._note_failure(exc)
                connection.rollback()
                raise

    def _connection(self, write: bool, statement_by_statement: bool) -> ContextManager[Connection]:
        if write and self._kept_writer is not None:
            return self._kept_writer.connection()
        if statement_by_statement and self._autocommit_engine is not None:
            return self._autocommit_engine.connect()
        return (self._write_engine if write else self.engine).connect()

    @property
    def on_the_loop(self) -> WorkOnTheLoop | None:
        """The storage port's work on the event loop: a SQLite file's units of work, or
        PostgreSQL's changes once its reads are on the loop (None elsewhere)."""
        return self._loop_writes or self._loop_changes

    @property
    def concurrent_writers(self) -> bool:
        """The storage port's question (``app/services/storage.py``): PostgreSQL's writers
        lock rows; SQLite's share one write lock."""
        return self.dialect_name == "postgresql"

    @contextmanager
    def unit_of_work(
        self, *, write: bool, statement_by_statement: bool = False
    ) -> Iterator[SqlUnitOfWork | StagedUnitOfWork]:
        """The storage port's unit of work: ``transaction`` with the repositories the use
        cases need, and the database's outages raised as the port's ``StorageUnavailable``;
        once it has committed, what was to follow the commit (``SqlUnitOfWork.committed``).
        Within a change run on the event loop on PostgreSQL, that change's
        (``pg_loop_changes.py``)."""
        if self._loop_changes is not None and (staged := self._loop_changes.current()) is not None:
            yield self._loop_changes.unit_of_work(
                staged, write=write, statement_by_statement=statement_by_statement
            )
            return
        with translated():
            with self.transaction(
                write=write, statement_by_statement=statement_by_statement
            ) as connection:
                work = SqlUnitOfWork(connection)
                yield work
            work.committed()

    def async_game_rows(self, size: int) -> AsyncGameRows | SqliteLoopReads | None:
        """Reads of a game on the event loop, within this database's timeouts: on
        PostgreSQL on ``size`` connections of their own, on a SQLite file on one
        connection that never waits (None for an in-memory SQLite database)."""
        rows: AsyncGameRows | SqliteLoopReads
        if self.dialect_name == "sqlite":
            path = sqlite_file(self.url)
            if path is None:
                return None
            rows = SqliteLoopReads(path, self)
        elif self.dialect_name == "postgresql":
            # Here, not at the top: it loads psycopg, which a process on SQLite never needs.
            from app.persistence.async_reads import AsyncGameRows

            rows = AsyncGameRows(self.url, size=size, timeouts=self.timeouts, stall=self.stall)
            self._loop_changes = PostgresLoopChanges(rows, change_statements(self.engine.dialect))
        else:
            return None
        self._loop_reads.append(rows)
        return rows

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
        """Close every connection this database opened, its reads on the loop's too (an
        app's shutdown closes those first, on their loop; one never started, as in a test
        on an ASGI transport, leaves them to this)."""
        if self.stall is not None:
            self.stall.close()
        for rows in self._loop_reads:
            rows.discard()
        if self._kept_writer is not None:
            self._kept_writer.close()
        if self._loop_writes is not None:
            self._loop_writes.close()
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
