"""The bench database's rows read through libpq's own calls (``psycopg.pq``), none of the
service's code: what ``bare-read-libpq`` reads with on PostgreSQL.

Not a goal's ceiling. ``bare-read`` reads through psycopg's async cursor, frozen so that
ratios stay comparable across rounds; the service's reads on the event loop go through
libpq's calls since the twentieth round (bench/RESULTS.md), a cheaper driver path than the
ceiling's own. This reference reads the same rows the cheapest public way psycopg offers:
each statement prepared once per connection, sent by name with its value as text, the
connection's socket registered with the event loop once for its life (a wait is one
future). So a ratio to it says how near the rest of a read comes to a bare app on the
same driver path, and the gap between the two references is what the driver alone buys.
"""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
from psycopg import pq

_STATEMENTS = {
    b"document": b"SELECT version, document FROM games WHERE id = $1",
    b"version": b"SELECT version FROM games WHERE id = $1",
}
_TUPLES_OK = pq.ExecStatus.TUPLES_OK
CONNECTIONS = 5  # as many as bare-read's (the service's default pool)


class _Connection:
    """One connection, its statements prepared, its socket watched while it lives."""

    def __init__(self, connection: psycopg.Connection[Any]) -> None:
        self.connection = connection
        self.pgconn = connection.pgconn
        self.waiter: asyncio.Future[None] | None = None
        for name, sql in _STATEMENTS.items():
            prepared = self.pgconn.prepare(name, sql)
            if prepared.status != pq.ExecStatus.COMMAND_OK:
                raise RuntimeError(prepared.error_message.decode())
        self.pgconn.nonblocking = 1
        asyncio.get_running_loop().add_reader(self.pgconn.socket, self._readable)

    def _readable(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    async def one_row(self, name: bytes, game_id: str) -> list[bytes | None] | None:
        pgconn = self.pgconn
        pgconn.send_query_prepared(name, [game_id.encode()])
        while pgconn.flush():  # a one-value statement leaves at once, as a rule
            await asyncio.sleep(0)
        loop = asyncio.get_running_loop()
        while True:
            pgconn.consume_input()
            if not pgconn.is_busy():
                break
            self.waiter = loop.create_future()
            try:
                await self.waiter
            finally:
                self.waiter = None
        result, row = pgconn.get_result(), None
        while pgconn.get_result() is not None:  # the end of the statement's results
            pass
        if result is None or result.status != _TUPLES_OK:
            raise RuntimeError(pgconn.error_message.decode())
        if result.ntuples:
            row = [result.get_value(0, column) for column in range(result.nfields)]
        return row

    def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self.pgconn.socket)
        self.connection.close()


class LibpqRows:
    """``GameRows`` of ``database.py`` on PostgreSQL, through libpq's calls."""

    def __init__(self, conninfo: str) -> None:
        self._conninfo = conninfo
        self._idle: asyncio.Queue[_Connection] = asyncio.Queue()
        self._all: list[_Connection] = []

    async def open(self) -> None:
        for _ in range(CONNECTIONS):
            made = psycopg.Connection.connect(self._conninfo, autocommit=True)
            connection = _Connection(made)
            self._all.append(connection)
            self._idle.put_nowait(connection)

    async def close(self) -> None:
        for connection in self._all:
            connection.close()

    async def _one(self, name: bytes, game_id: str) -> list[bytes | None] | None:
        connection = await self._idle.get()
        try:
            return await connection.one_row(name, game_id)
        finally:
            self._idle.put_nowait(connection)

    async def document(self, game_id: str) -> tuple[int, str] | None:
        row = await self._one(b"document", game_id)
        if row is None:
            return None
        version, document = row
        assert version is not None and document is not None
        return int(version), document.decode()

    async def version(self, game_id: str) -> int | None:
        row = await self._one(b"version", game_id)
        return None if row is None or row[0] is None else int(row[0])

    async def touch(self, game_id: str) -> None:
        raise NotImplementedError("bare-read-libpq reads only")
