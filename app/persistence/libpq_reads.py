"""A one-row read through libpq's own calls: what a read on the event loop sends on
PostgreSQL (``async_reads.py``), without psycopg's cursor.

psycopg's async cursor costs a one-row ``SELECT`` more of the service's process than the
rest of a ``GET`` of a game does: it builds a query object and a transformer, runs its
generators, and registers and removes a reader on the socket for every wait
(bench/RESULTS.md, twentieth round). A read here goes through psycopg's documented
low-level interface (``psycopg.pq``, the libpq wrapper) on the same connection:

- the statement is prepared once per connection (libpq's ``PQprepare``), then sent by
  name with its one value, as psycopg's cursor does after a statement's fifth run;
- the connection's socket stays registered with the event loop while the connection is
  used this way, rather than once per wait (a wait is still one future);
- each column is loaded by the connection's own loaders (``connection.adapters``: the
  JSON reader the service sets included), so a row holds what the cursor's would.

What stays psycopg's: making the connection (its options and bounds), and every statement
with more than one value (a change's, ``pg_loop_changes.py``) through its cursor
(:meth:`Session.execute`). A statement the server refuses raises psycopg's exception for
its SQLSTATE, and a connection that fails raises ``psycopg.OperationalError``, as through
the cursor, so ``errors.py`` reads them the same way.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import psycopg
from psycopg import AsyncConnection, AsyncCursor, pq
from psycopg.abc import Loader

# Prepared statements' names: unique in the process, apart from psycopg's own ("_pg3_").
_NAMES = itertools.count()
_TUPLES_OK = pq.ExecStatus.TUPLES_OK
_COMMAND_OK = pq.ExecStatus.COMMAND_OK
_TEXT = pq.Format.TEXT
_UNKNOWN_OID = 0  # a column of a type without a loader of its own is read as text


class LibpqRead:
    """A ``SELECT`` of one text value, named ``parameter`` in ``sql`` (psycopg's
    ``%(name)s`` style, as ``driver_sql`` compiles it), sent as libpq's ``$1``."""

    def __init__(self, sql: str, parameter: str) -> None:
        placeholder = f"%({parameter})s"
        rest = sql.replace(placeholder, "")
        if sql.count(placeholder) != 1 or "%" in rest:
            raise ValueError(f"a LibpqRead binds {placeholder} once and nothing else: {sql}")
        self.sql = sql
        self.command = sql.replace(placeholder, "$1").encode()
        self.name = f"vr_read_{next(_NAMES)}".encode()


class Session:
    """One connection of the reads on the event loop: psycopg's cursor for a change's
    statements, libpq's own calls for a :class:`LibpqRead`."""

    def __init__(self, connection: AsyncConnection[Any]) -> None:
        self.connection = connection
        # Reused by every statement on it: a new cursor copies the connection's adapters.
        self.cursor: AsyncCursor[Any] = connection.cursor()
        self._pgconn = connection.pgconn
        self._loop = asyncio.get_running_loop()
        self._socket = self._pgconn.socket
        self._watched = False  # the socket registered with the loop, calling _wake
        self._waiter: asyncio.Future[None] | None = None
        self._prepared: set[bytes] = set()
        self._loaders: dict[int, Loader] = {}

    async def execute(self, statement: str, parameters: Any) -> tuple[Any, ...] | None:
        """The first row of ``statement`` run by psycopg's cursor."""
        # psycopg registers the socket itself, for each of its waits.
        self._unwatch()
        await self.cursor.execute(statement, parameters)
        return await self.cursor.fetchone()

    async def read(self, statement: LibpqRead, value: str) -> tuple[Any, ...] | None:
        """The first row of ``statement`` for ``value``, each column loaded as psycopg
        loads it. A cancelled read leaves the connection mid-statement: close it."""
        pgconn = self._pgconn
        if statement.name not in self._prepared:
            pgconn.send_prepare(statement.name, statement.command)
            _checked(await self._last_result(), _COMMAND_OK)
            self._prepared.add(statement.name)
        pgconn.send_query_prepared(statement.name, [value.encode()])
        result = _checked(await self._last_result(), _TUPLES_OK)
        if result.ntuples == 0:
            return None
        return tuple(self._value(result, column) for column in range(result.nfields))

    def close(self) -> None:
        """Close the connection now, without its event loop's help (it may be gone)."""
        try:
            self._unwatch()
        finally:
            self._pgconn.finish()

    def _value(self, result: pq.abc.PGresult, column: int) -> Any:
        value = result.get_value(0, column)
        if value is None:
            return None
        oid = result.ftype(column)
        loader = self._loaders.get(oid)
        if loader is None:
            loader = self._loaders[oid] = self._loader(oid)
        return loader.load(value)

    def _loader(self, oid: int) -> Loader:
        adapters = self.connection.adapters
        kind = adapters.get_loader(oid, _TEXT) or adapters.get_loader(_UNKNOWN_OID, _TEXT)
        if kind is None:
            raise psycopg.InterfaceError(f"no loader for the type of oid {oid}")
        return kind(oid, self.connection)

    async def _last_result(self) -> pq.abc.PGresult:
        """The last result of what was sent (a statement's one result, or its error)."""
        pgconn = self._pgconn
        while pgconn.flush():  # the rest does not fit the socket's buffer yet
            await self._writable()
        result = None
        while True:
            if pgconn.is_busy():
                await self._readable()
                pgconn.consume_input()
                continue
            following = pgconn.get_result()
            if following is None:
                break
            result = following
        if result is None:
            raise psycopg.OperationalError("the server sent no result")
        return result

    async def _readable(self) -> None:
        if not self._watched:
            self._loop.add_reader(self._socket, self._wake)
            self._watched = True
        waiter = self._waiter = self._loop.create_future()
        try:
            await waiter
        finally:
            self._waiter = None

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is None:
            # Readable while no read waits: the server closed the connection (or sent a
            # notice). Watching it would call this at every turn of the loop; the next
            # read registers the socket again, and finds out which it was.
            self._unwatch()
        elif not waiter.done():
            waiter.set_result(None)

    def _unwatch(self) -> None:
        if self._watched:
            self._watched = False
            self._loop.remove_reader(self._socket)

    async def _writable(self) -> None:
        waiter = self._loop.create_future()
        self._loop.add_writer(self._socket, _done, waiter)
        try:
            await waiter
        finally:
            self._loop.remove_writer(self._socket)


def _done(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def _checked(result: pq.abc.PGresult, expected: pq.ExecStatus) -> pq.abc.PGresult:
    """``result`` if it has the status ``expected``, else the error psycopg would raise
    for it: the class of its SQLSTATE (an ``OperationalError`` for a statement timeout,
    say), with the server's message."""
    if result.status == expected:
        return result
    message = result.get_error_message().strip()
    state = result.error_field(pq.DiagnosticField.SQLSTATE)
    kind: type[psycopg.Error] = psycopg.OperationalError
    if state is not None:
        try:
            kind = psycopg.errors.lookup(state.decode())
        except KeyError:
            kind = psycopg.DatabaseError
    raise kind(message or f"the statement ended with {pq.ExecStatus(result.status).name}")
