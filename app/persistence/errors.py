"""What the database's errors mean for a client: an outage (503, and what it is told),
or an answer from a working database."""

from __future__ import annotations

import sqlite3
import sys

from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from app.services.storage import StorageUnavailable

# PostgreSQL SQLSTATEs meaning "the server is not there for us right now": shutdown,
# crash, starting up, too many connections, out of resources, and our own bounds
# (55P03 lock_timeout, 57014 statement_timeout).
_PG_UNAVAILABLE_STATES = {"57P01", "57P02", "57P03", "53300", "53000", "55P03", "57014"}


class DatabaseBusy(StorageUnavailable):
    """One of the service's own bounds on the database ran out (no driver error): waiting
    for a connection, or holding one. Its message is what the client is told (503)."""


def is_unavailable_error(exc: BaseException) -> bool:
    """True when ``exc`` means the database is unreachable, down or locked up (-> 503).

    Rule errors, constraint violations and serialization failures are not: those are
    answers from a working database.
    """
    if isinstance(exc, PoolTimeoutError | DatabaseBusy):
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
    # Looked up, not imported: a process on SQLite never loads psycopg, and no psycopg
    # error exists before something has. An import here would load the driver on SQLite
    # at the first rule refused inside a unit of work (every error passes here), stalling
    # the process while it loads and keeping it in memory.
    psycopg = sys.modules.get("psycopg")
    if psycopg is None:
        return False
    if isinstance(orig, psycopg.InterfaceError):
        return True
    if isinstance(orig, psycopg.OperationalError):
        # Connection failures carry no SQLSTATE; a live server answering with an error
        # (deadlock, serialization failure) does; our own lock and statement timeouts are
        # outages all the same: the client should retry later.
        state = orig.sqlstate
        return state is None or state.startswith("08") or state in _PG_UNAVAILABLE_STATES
    return False


def unavailable_detail(exc: BaseException) -> str:
    """What a client is told about the outage ``exc`` (``is_unavailable_error``)."""
    if isinstance(exc, DatabaseBusy):
        return str(exc)
    orig = exc.orig if isinstance(exc, DBAPIError) else exc
    state = getattr(orig, "sqlstate", None)
    if state == "55P03" or is_sqlite_busy(exc):
        return (
            "Another change held what this one needs (the game, or the database's write "
            "lock) for longer than the service waits; retry shortly."
        )
    if state == "57014":
        return (
            "The database did not finish this call within the service's bound (it is busy, "
            "or another change holds what this one needs); retry shortly."
        )
    if isinstance(exc, PoolTimeoutError):
        return "Every database connection is busy; retry shortly."
    return "The database is unavailable; retry shortly."


def outage_detail(exc: BaseException) -> str | None:
    """What a client is told about ``exc`` when it is an outage; None when it is not."""
    return unavailable_detail(exc) if is_unavailable_error(exc) else None


def is_sqlite_busy(exc: BaseException) -> bool:
    """True when SQLite refused ``exc``'s statement for a lock another connection holds."""
    orig = exc.orig if isinstance(exc, DBAPIError) else exc
    return isinstance(orig, sqlite3.OperationalError) and "database is locked" in str(orig).lower()


def is_lock_not_available(exc: BaseException) -> bool:
    """True when a ``FOR UPDATE NOWAIT`` found the row locked by another transaction."""
    orig = exc.orig if isinstance(exc, DBAPIError) else exc
    return getattr(orig, "sqlstate", None) == "55P03"


def is_connect_timeout(exc: BaseException) -> bool:
    """True when ``exc`` is a new connection that got no answer within ``connect_timeout``
    (a server that accepts connections but does not answer them: frozen, or overloaded)."""
    orig = exc.orig if isinstance(exc, DBAPIError) else exc
    psycopg = sys.modules.get("psycopg")  # looked up, as in _is_unavailable_driver_error
    return psycopg is not None and isinstance(orig, psycopg.errors.ConnectionTimeout)
