"""How the service connects: the driver for a database URL, the bounds (``DatabaseTimeouts``)
as each database takes them, and SQLite's per-connection settings (``db.py`` uses them).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Connection, make_url
from sqlalchemy.pool import ConnectionPoolEntry

# Execution option carried by the engine that write transactions use on SQLite.
SQLITE_BEGIN = "vr_sqlite_begin"
#: SQLite's ``synchronous`` for each value of ``SQLITE_SYNCHRONOUS``.
_SYNCHRONOUS = {"normal": "NORMAL", "full": "FULL"}
#: SQLite page cache per connection, KiB (see ``on_sqlite_connect``).
SQLITE_CACHE_KIB = 256


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
    database = sqlite_file(url)
    if database is not None:
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    return url


def sqlite_file(url: str) -> str | None:
    """The path of ``url``'s database when it is a SQLite file of its own name; None for
    any other database, an in-memory one or a ``file:`` URI (where another connection may
    not reach the same database)."""
    parsed = make_url(url)
    path = parsed.database
    if parsed.get_backend_name() != "sqlite" or not path or path == ":memory:":
        return None
    return None if path.startswith("file:") else path


def libpq_conninfo(url: str) -> str:
    """The database URL as libpq takes it, for connections made without SQLAlchemy."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def on_sqlite_connect(
    dbapi_connection: sqlite3.Connection,
    _record: ConnectionPoolEntry,
    *,
    busy_timeout_ms: int,
    synchronous: str = "normal",
) -> None:
    # Autocommit at the driver level: a transaction sends its BEGIN itself (begin_on_sqlite).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        # WAL: "normal" syncs the log at checkpoints, "full" at every commit (settings.py).
        cursor.execute(f"PRAGMA synchronous = {_SYNCHRONOUS[synchronous]}")
        cursor.execute("PRAGMA foreign_keys = ON")
        # 256 KiB of page cache per pooled connection instead of SQLite's 2 MiB: the file's
        # pages stay in the OS page cache anyway, and five connections' caches were the
        # worker's largest growth under load (measured: 97.7 -> 91.1 MiB, same req/s).
        cursor.execute(f"PRAGMA cache_size = -{SQLITE_CACHE_KIB}")
    finally:
        cursor.close()


def sqlite_begin_statement(conn: Connection) -> str:
    """How a transaction on ``conn`` begins: a write takes the write lock at once."""
    return _begin(conn.get_execution_options().get(SQLITE_BEGIN) == "immediate")


def _begin(write: bool) -> str:
    return "BEGIN IMMEDIATE" if write else "BEGIN"


def sqlite_driver(conn: Connection) -> sqlite3.Connection:
    """The sqlite3 connection under ``conn``."""
    driver = conn.connection.driver_connection
    assert isinstance(driver, sqlite3.Connection)
    return driver


def begin_on_sqlite(conn: Connection, *, write: bool | None = None) -> None:
    """Begin ``conn``'s transaction, taking the write lock at once when ``write`` (by
    default, as ``conn``'s engine says: ``sqlite_begin_statement``)."""
    # Called by Database.transaction, not by a "begin" listener: a listener of the engine's
    # connection events makes SQLAlchemy dispatch its events around every statement.
    # Sent to the driver itself: through exec_driver_sql, a constant statement went through
    # all of SQLAlchemy's execution (events, a cursor, a result) on every transaction. Its
    # error is the driver's own; app/persistence/errors.py reads those as it reads wrapped ones.
    statement = sqlite_begin_statement(conn) if write is None else _begin(write)
    sqlite_driver(conn).execute(statement)


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
