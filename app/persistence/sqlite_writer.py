"""SQLite's writes on a thread, on one connection kept out of the pool (most changes run
on the event loop instead, on a connection of their own: ``sqlite_loop_writes.py``).

A SQLite database has one write lock, and the process's admission lets one change at a
time take it (``app/api/platform/admission.py``: one write slot on SQLite). Those writes
run one after another on one connection that this keeps checked out, rather than taking
one from the pool and giving it back around every write: the pool's checkout and checkin
cost more than SQLite's own ``BEGIN IMMEDIATE`` and ``COMMIT`` (bench/RESULTS.md). A write
that finds the kept connection busy (another writer of this process outside the write
slots: the retention sweep, a migration of a stored document) takes one from the pool as
before, so nothing waits here that would not have waited on the lock anyway.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine


class KeptWriteConnection:
    """One connection of ``engine`` kept for writes, used by one thread at a time."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._free = threading.Lock()
        self._connection: Connection | None = None

    @contextmanager
    def connection(self) -> Iterator[Connection]:
        """The kept connection when no other thread has it, else one from the pool."""
        if not self._free.acquire(blocking=False):
            with self._engine.connect() as connection:
                yield connection
            return
        try:
            kept = self._connection
            if kept is None or kept.closed or kept.invalidated:
                kept = self._connection = self._engine.connect()
            try:
                yield kept
            except BaseException:
                # Whatever failed (a refused change, a full disk), the connection goes
                # back to the pool, which resets it, and the next write takes another.
                self._connection = None
                kept.close()
                raise
        finally:
            self._free.release()

    def close(self) -> None:
        """Give the kept connection back to the pool (before the pool is disposed)."""
        with self._free:
            if self._connection is not None:
                self._connection.close()
                self._connection = None
