"""SQLite's writes on one kept connection (app/persistence/sqlite_writer.py): one write
after another on the same connection without a checkout from the pool; a second writer at
the same time takes one from the pool; a failed write gives its connection back, rolled
back, and the next write works; the database's disposal closes the kept one."""

from __future__ import annotations

import sqlite3
import threading

import pytest
from sqlalchemy import event, text
from sqlalchemy.engine import make_url

from app.persistence.db import Database

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@pytest.fixture
def database(migrated_database: Database) -> Database:
    """The shared migrated database (disposed after the test), by a shorter name."""
    return migrated_database


def _checkouts(database: Database) -> list[int]:
    """The ids of the DB-API connections the pool hands out, from now on."""
    seen: list[int] = []
    event.listen(database.engine.pool, "checkout", lambda dbapi, *_: seen.append(id(dbapi)))
    return seen


def _driver(connection: object) -> int:
    return id(connection.connection.driver_connection)  # type: ignore[attr-defined]


def _count(database: Database) -> int:
    with database.transaction(write=False) as connection:
        return connection.execute(text("SELECT count(*) FROM scratch")).scalar_one()


@pytest.fixture
def scratch(database: Database) -> None:
    with database.transaction(write=True) as connection:
        connection.execute(text("CREATE TABLE scratch (n INTEGER)"))


def test_writes_one_after_another_share_one_connection_without_the_pool(
    database: Database, scratch: None
) -> None:
    checkouts = _checkouts(database)
    drivers = set()
    for n in range(5):
        with database.transaction(write=True) as connection:
            drivers.add(_driver(connection))
            connection.execute(text("INSERT INTO scratch VALUES (:n)"), {"n": n})
    assert len(drivers) == 1
    assert checkouts == []  # the kept connection was checked out before
    assert _count(database) == 5


def test_a_second_writer_at_the_same_time_takes_a_connection_from_the_pool(
    database: Database, scratch: None
) -> None:
    holding = threading.Event()
    release = threading.Event()
    outer_driver: list[int] = []

    def hold() -> None:
        # The kept connection, held without a transaction: the other writer must not wait
        # for it (it waits on SQLite's lock only when there is one to wait for).
        with database._kept_writer.connection() as connection:  # type: ignore[union-attr]
            outer_driver.append(_driver(connection))
            holding.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert holding.wait(10)
        checkouts = _checkouts(database)
        with database.transaction(write=True) as connection:
            inner = _driver(connection)
            connection.execute(text("INSERT INTO scratch VALUES (1)"))
    finally:
        release.set()
        holder.join(10)
    assert inner != outer_driver[0]
    assert checkouts == [inner]
    assert _count(database) == 1


def test_a_failed_write_is_rolled_back_and_the_next_write_takes_another_connection(
    database: Database, scratch: None
) -> None:
    with database.transaction(write=True) as connection:
        first = _driver(connection)
    with pytest.raises(RuntimeError), database.transaction(write=True) as connection:
        assert _driver(connection) == first
        connection.execute(text("INSERT INTO scratch VALUES (1)"))
        raise RuntimeError("a refused change")
    assert _count(database) == 0
    checkouts = _checkouts(database)
    with database.transaction(write=True) as connection:
        connection.execute(text("INSERT INTO scratch VALUES (2)"))
    assert len(checkouts) == 1  # a connection from the pool, kept from then on
    with database.transaction(write=True) as connection:
        connection.execute(text("INSERT INTO scratch VALUES (3)"))
    assert len(checkouts) == 1
    assert _count(database) == 2


def test_disposing_the_database_closes_the_kept_connection(
    database: Database, database_url: str, scratch: None
) -> None:
    with database.transaction(write=True) as connection:
        connection.execute(text("INSERT INTO scratch VALUES (1)"))
    database.dispose()
    # No connection of the database is left open: another may lock the file alone.
    other = sqlite3.connect(str(make_url(database_url).database), isolation_level=None)
    try:
        other.execute("PRAGMA locking_mode = EXCLUSIVE")
        other.execute("BEGIN EXCLUSIVE")
        other.execute("UPDATE scratch SET n = n")
        other.execute("COMMIT")
    finally:
        other.close()
