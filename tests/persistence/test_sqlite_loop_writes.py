"""SQLite's units of work on the event loop (app/persistence/sqlite_loop_writes.py): within
``running()`` a unit of work takes the loop's connection and never waits there. A lock held
elsewhere is refused at once, as ``WouldWait`` while the request has stored nothing and as
a 503 once it has; ``run`` tries a request again on the loop after short pauses, then
refuses it; a use case's refusal keeps the connection, a database error drops it, and no
pooled connection is left with the loop's settings; the WAL stays bounded."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from app.main import create_app
from app.persistence import sqlite_loop_writes
from app.persistence.db import Database, DatabaseTimeouts
from app.services.storage import StorageUnavailable, WouldWait
from app.settings import Settings
from tests.support.loop_turns import LoopTurns

# Long enough that a wait for it could not pass for a refusal at once.
LOCK_MS = 3000


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    database = Database(
        f"sqlite:///{tmp_path / 'loop.db'}", timeouts=DatabaseTimeouts(lock_ms=LOCK_MS)
    )
    with database.transaction(write=True) as connection:
        connection.execute(text("CREATE TABLE scratch (n INTEGER, blob BLOB)"))
    try:
        yield database
    finally:
        database.dispose()


def _path(database: Database) -> Path:
    return Path(str(make_url(database.url).database))


def _insert(database: Database, n: int, blob: bytes = b"") -> None:
    with database.unit_of_work(write=True) as uow:
        uow.connection.execute(text("INSERT INTO scratch VALUES (:n, :b)"), {"n": n, "b": blob})


def _count(database: Database) -> int:
    with database.transaction(write=False) as connection:
        return connection.execute(text("SELECT count(*) FROM scratch")).scalar_one()


def _driver(database: Database) -> int:
    with database.transaction(write=False) as connection:
        return id(connection.connection.driver_connection)  # type: ignore[union-attr]


class _HeldLock:
    """The database's write lock, held by another connection (another process's writer)."""

    def __init__(self, path: Path) -> None:
        self.holder = sqlite3.connect(
            path, isolation_level=None, timeout=0, check_same_thread=False
        )

    def __enter__(self) -> None:
        self.holder.execute("BEGIN IMMEDIATE")

    def __exit__(self, *exc: object) -> None:
        self.holder.rollback()
        self.holder.close()


def test_a_file_database_has_units_on_the_loop_and_one_in_memory_has_none(tmp_path: Path) -> None:
    assert Database(f"sqlite:///{tmp_path / 'x.db'}").on_the_loop is not None
    assert Database("sqlite://").on_the_loop is None
    assert Database("sqlite:///:memory:").on_the_loop is None


def test_units_within_running_share_the_loops_connection_and_not_a_threads(
    database: Database,
) -> None:
    assert database.on_the_loop is not None
    with database.on_the_loop.running():
        inside = {_driver(database) for _ in range(3)}
        _insert(database, 1)
        with database.transaction(write=True) as connection:
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar_one() == 0
    assert len(inside) == 1
    with database.transaction(write=True) as connection:  # a thread's, as before
        assert id(connection.connection.driver_connection) not in inside
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar_one() == LOCK_MS
    assert _count(database) == 1


@pytest.mark.parametrize(("setting", "pragma"), [("normal", 1), ("full", 2)])
def test_sqlite_synchronous_holds_on_the_loops_connection_and_a_threads(
    tmp_path: Path, setting: str, pragma: int
) -> None:
    # SQLITE_SYNCHRONOUS: "full" syncs the log at every commit, on whichever connection
    # the change commits (docs/scaling.md, "What a crash can lose").
    database = Database(f"sqlite:///{tmp_path / 'sync.db'}", sqlite_synchronous=setting)
    try:
        assert database.on_the_loop is not None
        with database.on_the_loop.running(), database.transaction(write=True) as connection:
            assert connection.exec_driver_sql("PRAGMA synchronous").scalar_one() == pragma
        with database.transaction(write=True) as connection:
            assert connection.exec_driver_sql("PRAGMA synchronous").scalar_one() == pragma
    finally:
        database.dispose()


def test_the_apps_database_takes_sqlite_synchronous_from_the_settings(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'app.db'}", sqlite_synchronous="full")
    app = create_app(settings)
    try:
        with app.state.db.transaction(write=True) as connection:
            assert connection.exec_driver_sql("PRAGMA synchronous").scalar_one() == 2
    finally:
        app.state.db.dispose()
    with pytest.raises(ValidationError, match="sqlite_synchronous"):
        Settings(sqlite_synchronous="off")  # type: ignore[arg-type]


def test_a_lock_held_elsewhere_is_would_wait_at_once_and_nothing_is_stored(
    database: Database,
) -> None:
    assert database.on_the_loop is not None
    with _HeldLock(_path(database)), database.on_the_loop.running():
        started = time.monotonic()
        with pytest.raises(WouldWait):
            _insert(database, 1)
        assert time.monotonic() - started < LOCK_MS / 1000 / 10
    assert _count(database) == 0
    with database.on_the_loop.running():  # the lock is free: the loop's connection works
        _insert(database, 2)
    assert _count(database) == 1


def test_run_tries_again_on_the_loop_after_a_pause_while_the_lock_is_held_briefly(
    database: Database,
) -> None:
    assert database.on_the_loop is not None
    on_the_loop = database.on_the_loop
    lock = _HeldLock(_path(database))
    tries: list[threading.Thread] = []
    pauses = sqlite_loop_writes.LOCK_PAUSES._value.get()

    def work() -> str:
        tries.append(threading.current_thread())
        _insert(database, len(tries))
        return "stored"

    async def main() -> tuple[str, int]:
        loop = asyncio.get_running_loop()
        lock.__enter__()
        # Another writer's change: released while this one pauses.
        loop.call_later(0.002, lock.__exit__)
        async with LoopTurns() as turns:
            stored = await on_the_loop.run(work, None)
        return stored, turns.count

    stored, ticks = asyncio.run(main())
    assert stored == "stored"
    assert len(tries) >= 2 and set(tries) == {threading.current_thread()}
    assert ticks > 0  # the loop ran other tasks during the pauses
    assert sqlite_loop_writes.LOCK_PAUSES._value.get() == pauses + len(tries) - 1
    assert _count(database) == 1  # the refused tries stored nothing


def test_run_refuses_a_lock_still_held_after_its_pauses_and_stores_nothing(
    database: Database,
) -> None:
    assert database.on_the_loop is not None
    on_the_loop = database.on_the_loop
    tries: list[int] = []

    def work() -> None:
        tries.append(1)
        _insert(database, 1)

    with _HeldLock(_path(database)):
        started = time.monotonic()
        with pytest.raises(WouldWait):
            asyncio.run(on_the_loop.run(work, None))
        waited = time.monotonic() - started
    assert len(tries) == len(sqlite_loop_writes.LOCK_PAUSES_S) + 1
    assert sum(sqlite_loop_writes.LOCK_PAUSES_S) <= waited < LOCK_MS / 1000 / 10
    assert _count(database) == 0


def test_after_a_commit_a_lock_held_elsewhere_is_a_503_at_once_not_would_wait(
    database: Database,
) -> None:
    assert database.on_the_loop is not None
    with database.on_the_loop.running():
        _insert(database, 1)  # the request has stored something: it cannot run again
        with _HeldLock(_path(database)):
            started = time.monotonic()
            with pytest.raises(StorageUnavailable) as refused:
                _insert(database, 2)
            assert time.monotonic() - started < LOCK_MS / 1000 / 10
    assert not isinstance(refused.value, WouldWait)
    assert _count(database) == 1


def test_outside_running_a_unit_waits_for_the_lock_as_before(database: Database) -> None:
    lock = _HeldLock(_path(database))
    lock.__enter__()
    threading.Timer(0.3, lock.__exit__).start()
    started = time.monotonic()
    _insert(database, 1)
    assert time.monotonic() - started >= 0.25
    assert _count(database) == 1


def test_a_use_cases_refusal_rolls_back_and_keeps_the_connection(database: Database) -> None:
    assert database.on_the_loop is not None
    with database.on_the_loop.running():
        before = _driver(database)
        with pytest.raises(LookupError), database.unit_of_work(write=True) as uow:
            uow.connection.execute(text("INSERT INTO scratch VALUES (1, NULL)"))
            raise LookupError("a rule said no")
        assert _driver(database) == before
        _insert(database, 2)
    assert _count(database) == 1


def test_a_database_error_drops_the_connection_and_the_pool_keeps_its_own_settings(
    database: Database,
) -> None:
    assert database.on_the_loop is not None
    with database.on_the_loop.running():
        before = _driver(database)
        with pytest.raises(OperationalError), database.unit_of_work(write=True) as uow:
            uow.connection.execute(text("INSERT INTO no_such_table VALUES (1)"))
        assert _driver(database) != before
        _insert(database, 1)
    # Every pooled connection still waits for a lock as the settings say.
    held = [database.engine.connect() for _ in range(3)]
    try:
        for connection in held:
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar_one() == LOCK_MS
    finally:
        for connection in held:
            connection.close()


def test_the_loops_connection_taken_by_another_thread_is_would_wait(database: Database) -> None:
    assert database.on_the_loop is not None
    inside, leave = threading.Event(), threading.Event()

    def other_loop() -> None:
        assert database.on_the_loop is not None
        with database.on_the_loop.running(), database.transaction(write=False):
            inside.set()
            leave.wait(5)

    thread = threading.Thread(target=other_loop)
    thread.start()
    try:
        assert inside.wait(5)
        with database.on_the_loop.running(), pytest.raises(WouldWait):
            _insert(database, 1)
    finally:
        leave.set()
        thread.join()


def test_the_wal_stays_bounded_under_the_loops_commits(database: Database) -> None:
    """Changes on the loop without a pause (as at 64 connections) still let the WAL start
    over: 400 commits of 100 KiB write 40 MiB of WAL, which stays within a few MiB of
    SQLite's automatic checkpoint (1,000 pages: 4 MiB)."""
    assert database.on_the_loop is not None
    blob = bytes(100 * 1024)
    with database.on_the_loop.running():
        for n in range(400):
            _insert(database, n, blob)
    wal = _path(database).with_name(_path(database).name + "-wal")
    assert wal.stat().st_size < 8 * 2**20
    assert _count(database) == 400
