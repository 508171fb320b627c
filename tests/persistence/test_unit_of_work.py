"""The Database unit of work: commit/rollback, writer serialization, errors, URLs."""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import replace
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import insert, select, text
from sqlalchemy.exc import IntegrityError, OperationalError

from app.persistence import db as db_module
from app.persistence.db import Database, is_unavailable_error, normalize_url
from app.persistence.repositories import GameRepository
from app.persistence.tables import EVENTS, GAMES
from tests.persistence.conftest import AT, GameFactory, credentials, store, store_as_changed
from tests.statements import count_statements

INCREMENTS_PER_THREAD = 50


def test_normalize_url_picks_psycopg_for_postgresql() -> None:
    assert normalize_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_url("postgres://u:p@h:5433/db") == "postgresql+psycopg://u:p@h:5433/db"
    assert normalize_url("postgresql+psycopg://u@h/db") == "postgresql+psycopg://u@h/db"


def test_normalize_url_keeps_sqlite_and_creates_the_folder(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/a/b/game.db"
    assert normalize_url(url) == url
    assert (tmp_path / "a" / "b").is_dir()
    assert normalize_url("sqlite://") == "sqlite://"


def test_a_transaction_commits_on_exit_and_rolls_back_on_error(
    migrated_database: Database, make_game: GameFactory
) -> None:
    kept, dropped = make_game(players=2), make_game(players=2)
    store(migrated_database, kept)
    with pytest.raises(RuntimeError), migrated_database.transaction(write=True) as connection:
        GameRepository(connection).insert(dropped, credentials(dropped), "{}", "k", AT)
        raise RuntimeError("use case failed")

    with migrated_database.transaction(write=False) as connection:
        assert GameRepository(connection).version(kept.id) is not None
        assert GameRepository(connection).version(dropped.id) is None


def _increment_concurrently(
    database: Database, game_id: str, threads: int = 2
) -> list[BaseException]:
    errors: list[BaseException] = []
    start = threading.Barrier(threads)

    def work() -> None:
        try:
            start.wait()
            for _ in range(INCREMENTS_PER_THREAD):
                with database.transaction(write=True) as connection:
                    repository = GameRepository(connection)
                    stored = repository.state(game_id, for_update=True)
                    assert stored is not None
                    bumped = replace(stored.state, version=stored.state.version + 1)
                    assert store_as_changed(repository, bumped)
        except BaseException as exc:  # reported to the test thread
            errors.append(exc)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    return errors


def test_concurrent_writers_to_one_game_lose_no_update(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game = make_game(players=2)
    store(migrated_database, game)

    errors = _increment_concurrently(migrated_database, game.id)

    assert errors == []
    with migrated_database.transaction(write=False) as connection:
        stored = GameRepository(connection).version(game.id)
    assert stored is not None
    assert stored.version == game.version + 2 * INCREMENTS_PER_THREAD


def test_sqlite_write_transactions_begin_immediate_and_reads_do_not(sqlite_url: str) -> None:
    database = Database(sqlite_url)
    try:
        with count_statements(database.engine) as statements:
            with database.transaction(write=True) as connection:
                connection.execute(text("SELECT 1"))
            with database.transaction(write=False) as connection:
                connection.execute(text("SELECT 1"))
        assert [s for s in statements if s.startswith("BEGIN")] == ["BEGIN IMMEDIATE", "BEGIN"]
        with database.engine.connect() as conn:
            pragmas = {
                name: conn.exec_driver_sql(f"PRAGMA {name}").scalar()
                for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")
            }
        assert pragmas == {
            "journal_mode": "wal",
            "synchronous": 1,
            "foreign_keys": 1,
            "busy_timeout": 2000,  # DB_LOCK_TIMEOUT_MS (DatabaseTimeouts().lock_ms)
        }
    finally:
        database.dispose()


def test_readers_are_not_blocked_by_a_writer(database_url: str, make_game: GameFactory) -> None:
    database = Database(database_url)
    game = make_game(players=2)
    try:
        store(database, game)
        with database.transaction(write=True) as writer:
            repository = GameRepository(writer)
            loaded = repository.state(game.id, for_update=True)
            assert loaded is not None
            changed = replace(loaded.state, version=99)
            assert store_as_changed(repository, changed, read_version=loaded.state.version)
            # The write lock is held: a reader still sees the last committed version.
            with database.transaction(write=False) as reader:
                seen = reader.scalar(select(GAMES.c.version).where(GAMES.c.id == game.id))
            assert seen == game.version
    finally:
        database.dispose()


def test_ping_answers_on_a_live_database(migrated_database: Database) -> None:
    migrated_database.ping()


def test_a_closed_port_is_an_unavailable_error() -> None:
    database = Database("postgresql://postgres@127.0.0.1:1/x")
    try:
        with pytest.raises(OperationalError) as caught:
            database.ping()
        assert is_unavailable_error(caught.value)
        with pytest.raises(OperationalError) as caught, database.transaction(write=False) as s:
            s.execute(text("SELECT 1"))
        assert is_unavailable_error(caught.value)
    finally:
        database.dispose()


def test_an_unopenable_sqlite_file_is_an_unavailable_error(tmp_path: Path) -> None:
    (tmp_path / "dir.db").mkdir()
    database = Database(f"sqlite:///{tmp_path}/dir.db")
    try:
        with pytest.raises(OperationalError) as caught:
            database.ping()
        assert is_unavailable_error(caught.value)
    finally:
        database.dispose()


def test_sqlite_locked_is_unavailable_but_answers_from_a_live_database_are_not() -> None:
    locked = OperationalError("UPDATE games", {}, sqlite3.OperationalError("database is locked"))
    assert is_unavailable_error(locked)
    no_table = OperationalError("SELECT", {}, sqlite3.OperationalError("no such table: x"))
    assert not is_unavailable_error(no_table)
    duplicate = IntegrityError("INSERT", {}, sqlite3.IntegrityError("UNIQUE constraint failed"))
    assert not is_unavailable_error(duplicate)
    deadlock = OperationalError("UPDATE", {}, psycopg.errors.DeadlockDetected("deadlock"))
    assert not is_unavailable_error(deadlock)
    shutdown = OperationalError("SELECT", {}, psycopg.errors.AdminShutdown("terminating"))
    assert is_unavailable_error(shutdown)
    assert not is_unavailable_error(ValueError("bad input"))


@pytest.mark.postgres
def test_postgres_recovers_after_its_connections_are_killed(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a server restart does to the pool: a connection that sat idle is pinged on
    checkout and replaced, so no request fails for it."""
    monkeypatch.setattr(db_module, "PING_AFTER_IDLE_S", 0.05)
    database = Database(postgres_url)
    try:
        with database.transaction(write=False) as connection:
            connection.execute(text("SELECT 1"))
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            killed = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()
        assert killed is not None and killed[0] >= 1
        time.sleep(0.1)
        with database.transaction(write=False) as connection:
            assert connection.execute(text("SELECT 1")).scalar() == 1
    finally:
        database.dispose()


@pytest.mark.postgres
def test_a_connection_in_steady_use_is_not_pinged(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ping is a round trip: only a connection idle for PING_AFTER_IDLE_S pays it."""
    monkeypatch.setattr(db_module, "PING_AFTER_IDLE_S", 0.3)
    database = Database(postgres_url, pool_size=1)
    pings: list[object] = []
    ping = database.engine.dialect.do_ping

    def counted_ping(connection: object) -> bool:
        pings.append(connection)
        return ping(connection)

    monkeypatch.setattr(database.engine.dialect, "do_ping", counted_ping)
    try:
        for _ in range(10):
            with database.transaction(write=False) as connection:
                connection.execute(text("SELECT 1"))
        assert pings == []
        time.sleep(0.4)
        with database.transaction(write=False) as connection:
            connection.execute(text("SELECT 1"))
        assert len(pings) == 1
    finally:
        database.dispose()


def test_count_statements_counts_an_executemany_once(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game = make_game(players=2)
    store(migrated_database, game)
    rows = [
        {"game_id": game.id, "seq": seq, "type": "t", "data": {}, "at": AT} for seq in range(1, 6)
    ]
    with (
        migrated_database.engine.begin() as conn,
        count_statements(migrated_database.engine) as statements,
    ):
        conn.execute(insert(EVENTS), rows)
    assert len([s for s in statements if s.startswith("INSERT")]) == 1
    with count_statements(migrated_database.engine) as statements:
        pass
    assert statements == []
