"""SQLite's units of work on the event loop: a change without a hand-off to a request
thread and back, where it never waits.

On SQLite a change takes the database's one write lock, and the process admits one change
at a time (``app/api/platform/admission.py``), so a thread adds nothing but its hand-offs
and the GIL passed back and forth, which cost a change more than its statements do
(bench/RESULTS.md). The admission runs such a change on the loop instead, inside
:meth:`SqliteLoopWrites.running`, and every unit of work it opens there takes this
module's connection, which never waits:

- ``busy_timeout = 0``: a lock held by another process, or by a thread of this one (the
  retention sweep), is refused at once. Before the request has committed anything, that
  refusal stored nothing, so the request is run again on the loop after a pause that
  leaves the loop to other requests (``LOCK_PAUSES_S``): another worker of the same file
  holds the lock for one change at a time, and a request thread waiting on it instead
  would wait for the GIL behind this busy loop as well (bench/RESULTS.md). Still refused
  after the last pause, it is the port's ``WouldWait``: the admission runs the request
  again on a request thread, where it waits for the lock within the usual bound.
  After a write has committed (a request with several units of work that write), it is
  what a lock held too long is on a thread: a 503 with ``Retry-After``. A read before the
  write (a keyed change checks the token before its replay) stored nothing.
- SQLite's own automatic checkpoint stays on: it runs in the commit that finds the WAL
  past 1,000 pages, PASSIVE (it waits for no lock), and the next change starts the WAL
  over. Its writes and their sync take the loop's time every few hundred changes; a
  checkpoint on a thread of its own instead never caught up with the loop's commits (the
  WAL only restarts once every frame is copied), and the WAL grew without bound
  (bench/RESULTS.md).

The connection is one, kept, used by one thread at a time; a second event loop's request
(a test's second client) finds it taken and runs on a thread. An error of the database
drops it (a new one is made next time); a use case's own refusal only rolls back.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from prometheus_client import Counter
from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError

from app.persistence.connections import begin_on_sqlite, sqlite_driver
from app.persistence.errors import is_sqlite_busy
from app.services.storage import WouldWait

R = TypeVar("R")

#: The pauses between a request's tries on the loop while the lock is held elsewhere: each
#: a few of another worker's changes long, a few tens of milliseconds in all.
LOCK_PAUSES_S = (0.0005, 0.001, 0.002, 0.004, 0.008, 0.016)

LOCK_PAUSES = Counter(
    "sqlite_lock_pauses_total",
    "Pauses of a change on the event loop that found SQLite's write lock held elsewhere "
    "(another worker, the retention sweep) and was tried again on the loop after it.",
)


class LoopRun:
    """One request's units of work on the loop: whether a write has committed yet, and whether
    the request still runs (a task or a callback made meanwhile copies the context, and so
    this run, but runs later: its units of work are a thread's, as anywhere else)."""

    __slots__ = ("committed", "running", "thread")

    def __init__(self) -> None:
        self.committed = False
        self.running = True
        self.thread = threading.get_ident()


_RUN: ContextVar[LoopRun | None] = ContextVar("sqlite_loop_run", default=None)


class SqliteLoopWrites:
    """The loop's connection to a SQLite file, for the units of work of a request run
    within :meth:`running` (see the module's docstring)."""

    def __init__(self, write_engine: Engine) -> None:
        self._engine = write_engine
        self._free = threading.Lock()
        self._connection: Connection | None = None

    async def run(self, work: Callable[[], R], game_id: str | None) -> R:
        """What ``work`` answers, run on the loop (the storage port's ``WorkOnTheLoop``),
        again after each of ``LOCK_PAUSES_S`` while it finds the lock held before storing
        anything; then ``WouldWait``."""
        for pause in LOCK_PAUSES_S:
            try:
                with self.running():
                    return work()
            except WouldWait:
                LOCK_PAUSES.inc()
            await asyncio.sleep(pause)
        with self.running():
            return work()

    @contextmanager
    def running(self) -> Iterator[None]:
        """Within this block, a unit of work of this context is one of the loop's."""
        run = LoopRun()
        token = _RUN.set(run)
        try:
            yield
        finally:
            run.running = False
            _RUN.reset(token)

    @staticmethod
    def current() -> LoopRun | None:
        """The request on the loop whose unit of work is being opened, if any."""
        run = _RUN.get()
        if run is None or not run.running or run.thread != threading.get_ident():
            return None
        return run

    @contextmanager
    def transaction(self, run: LoopRun, *, write: bool) -> Iterator[Connection]:
        """One transaction on the loop's connection (``Database.transaction``'s, there)."""
        if not self._free.acquire(blocking=False):
            raise WouldWait("the loop's connection is in use by another thread")
        try:
            connection = self._connection or self._connect()
            try:
                connection.begin()
                begin_on_sqlite(connection, write=write)
                yield connection
                connection.commit()
            except BaseException as exc:
                self._end_after(connection, exc)
                if not run.committed and is_sqlite_busy(exc):
                    raise WouldWait("the database's lock is taken") from exc
                raise
            # A read stored nothing: the request may still be run again on a thread.
            run.committed = run.committed or write
        finally:
            self._free.release()

    def close(self) -> None:
        """Close the connection (the database is disposed)."""
        with self._free:
            if self._connection is not None:
                self._connection.invalidate()
                self._connection = None

    def _connect(self) -> Connection:
        connection = self._engine.connect()
        sqlite_driver(connection).execute("PRAGMA busy_timeout = 0")
        self._connection = connection
        return connection

    def _end_after(self, connection: Connection, exc: BaseException) -> None:
        """Roll back after ``exc``; drop the connection when the database failed."""
        try:
            connection.rollback()
        except Exception:
            exc = sqlite3.Error("rollback failed")
        if isinstance(exc, sqlite3.Error | DBAPIError):
            # Never back to the pool: its settings are the loop's, not a thread's.
            connection.invalidate()
            self._connection = None
