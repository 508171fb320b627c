"""A statement sent through libpq's own calls: what the event loop's connections send on
PostgreSQL (``async_reads.py``: a game's reads, and a change's one statement from
``pg_loop_changes.py``), without psycopg's cursor.

psycopg's async cursor costs a one-row statement more of the service's process than the
rest of a ``GET`` of a game does: it builds a query object and a transformer, runs its
generators, and registers and removes a reader on the socket for every wait
(bench/RESULTS.md, twentieth round). A statement here goes through psycopg's documented
low-level interface (``psycopg.pq``, the libpq wrapper) on a connection psycopg made:

- it is prepared once per connection (libpq's ``PQprepare``), then sent by name with its
  values, as psycopg's cursor does after a statement's fifth run;
- each value is dumped, and each column loaded, by the connection's own adapters
  (``connection.adapters``: the JSON writer and reader the service sets included), in
  text, so that the server reads and a row holds what the cursor would send and give;
  each value is sent untyped and typed by the statement (SQLAlchemy writes a cast for
  each, ``driver_sql``);
- the connection's socket stays registered with the event loop while the connection
  lives, rather than once per wait (a wait is still one future).

A statement the server refuses raises psycopg's exception for its SQLSTATE, and a
connection that fails raises ``psycopg.OperationalError``, as through the cursor, so
``errors.py`` reads them the same way.
"""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import Mapping
from typing import Any

import psycopg
from psycopg import AsyncConnection, pq
from psycopg.abc import Buffer, Dumper, Loader
from psycopg.adapt import PyFormat

# Prepared statements' names: unique in the process, apart from psycopg's own ("_pg3_").
_NAMES = itertools.count()
_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
_TUPLES_OK = pq.ExecStatus.TUPLES_OK
_COMMAND_OK = pq.ExecStatus.COMMAND_OK
_TEXT = pq.Format.TEXT
# Values are sent as text and untyped: each statement casts its own (driver_sql).
_AS_TEXT = PyFormat.TEXT
_UNKNOWN_OID = 0  # a column of a type without a loader of its own is read as text


class LibpqStatement:
    """A statement written with psycopg's ``%(name)s`` placeholders (as ``driver_sql``
    and ``DriverStatement`` compile it), sent as libpq's ``$1``, ``$2``...; a name used
    twice is one value."""

    def __init__(self, sql: str) -> None:
        names: list[str] = []

        def numbered(placeholder: re.Match[str]) -> str:
            name = placeholder.group(1)
            if name not in names:
                names.append(name)
            return f"${names.index(name) + 1}"

        command = _PLACEHOLDER.sub(numbered, sql)
        if "%" in command:  # psycopg's %s, or a literal % it would read as %%
            raise ValueError(f"a LibpqStatement takes %(name)s placeholders only: {sql}")
        self.sql = sql
        self.names = tuple(names)
        self.command = command.encode()
        self.name = f"vr_{next(_NAMES)}".encode()


class Session:
    """One connection of the event loop's statements, sent by libpq's calls."""

    def __init__(self, connection: AsyncConnection[Any]) -> None:
        self.connection = connection
        self._pgconn = connection.pgconn
        self._loop = asyncio.get_running_loop()
        self._socket = self._pgconn.socket
        self._watched = False  # the socket registered with the loop, calling _wake
        self._waiter: asyncio.Future[None] | None = None
        self._prepared: set[bytes] = set()
        self._dumpers: dict[type, Dumper] = {}
        self._upgraded: dict[Any, Dumper] = {}  # by the key a dumper gives a value
        self._loaders: dict[int, Loader] = {}

    async def first_row(
        self, statement: LibpqStatement, values: Mapping[str, Any]
    ) -> tuple[Any, ...] | None:
        """The first row ``statement`` answers for ``values`` (by name), each column loaded
        as psycopg loads it. A cancelled call leaves the connection mid-statement: close
        it."""
        pgconn = self._pgconn
        if statement.name not in self._prepared:
            pgconn.send_prepare(statement.name, statement.command)
            _checked(await self._last_result(), _COMMAND_OK)
            self._prepared.add(statement.name)
        dumped = [self._dumped(values[name]) for name in statement.names]
        pgconn.send_query_prepared(statement.name, dumped)
        result = _checked(await self._last_result(), _TUPLES_OK)
        if result.ntuples == 0:
            return None
        return tuple(self._loaded(result, column) for column in range(result.nfields))

    def close(self) -> None:
        """Close the connection now, without its event loop's help (it may be gone)."""
        try:
            self._unwatch()
        finally:
            self._pgconn.finish()

    def _dumped(self, value: Any) -> Buffer | None:
        if value is None:
            return None
        dumper = self._dumpers.get(type(value))
        if dumper is None:
            kind = self.connection.adapters.get_dumper(type(value), _AS_TEXT)
            dumper = self._dumpers[type(value)] = kind(type(value), self.connection)
        # A dumper may hand a value to another by the value (an int, to one of its sizes),
        # as psycopg's cursor asks it.
        key = dumper.get_key(value, _AS_TEXT)
        if key is not type(value):
            upgraded = self._upgraded.get(key)
            if upgraded is None:
                upgraded = self._upgraded[key] = dumper.upgrade(value, _AS_TEXT)
            dumper = upgraded
        return dumper.dump(value)

    def _loaded(self, result: pq.abc.PGresult, column: int) -> Any:
        value = result.get_value(0, column)
        if value is None:
            return None
        oid = result.ftype(column)
        loader = self._loaders.get(oid)
        if loader is None:
            adapters = self.connection.adapters
            kind = adapters.get_loader(oid, _TEXT) or adapters.get_loader(_UNKNOWN_OID, _TEXT)
            if kind is None:
                raise psycopg.InterfaceError(f"no loader for the type of oid {oid}")
            loader = self._loaders[oid] = kind(oid, self.connection)
        return loader.load(value)

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
        if waiter is not None:
            if not waiter.done():
                waiter.set_result(None)
            return
        # Readable while nothing waits. Mostly the loop polled the socket before the
        # statement it woke read what had come: nothing is left, and the socket stays
        # watched for the next statement. Else the server sent a notice (read now), or
        # closed the connection: watched, that would call this at every turn of the loop,
        # so it is no longer, and the next statement finds the connection gone.
        try:
            self._pgconn.consume_input()
        except psycopg.Error:
            self._unwatch()
            return
        if self._pgconn.status == pq.ConnStatus.BAD:
            self._unwatch()

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
