"""A change's statements sent as the driver's SQL on SQLite (driver_statements.py) store
and read exactly what the same Core statements do: each column's stored text, and each
value read back."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from app.persistence.db import Database
from app.persistence.driver_statements import DriverStatement, sqlite_change_statements
from app.persistence.repositories import GameRepository
from app.persistence.statements import EVENT_APPEND, GAME_CHANGE, GAME_STATE
from tests.persistence.conftest import GameFactory, credentials

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

ROME = timezone(timedelta(hours=1))
CASES = [
    # (the state, the player budgets, when): JSON with text that is not ASCII, a budget
    # column left NULL, a time in another zone and one on a whole second.
    (
        {"format": 2, "note": "Papa Sisto IV — «scomunica»", "n": [1, 2.5, None]},
        None,
        datetime(2026, 12, 5, 13, 0, 0, 1, tzinfo=UTC),
    ),
    (
        {"format": 2, "players": [{"id": "p1", "faith": 7}]},
        {"p1": [3, 1700000000000]},
        datetime(2026, 1, 2, 3, 4, 5, tzinfo=ROME),
    ),
]


@pytest.fixture
def database(migrated_database: Database) -> Database:
    """The shared migrated database (disposed after the test), by a shorter name."""
    return migrated_database


def _values(game_id: str, seq: int, state: Any, budgets: Any, at: datetime) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "read_version": seq - 1,
        "new_version": seq,
        "new_state": state,
        "new_document": '{"id": "ü"}',
        "new_document_key": "k" * 64,
        "new_updated_at": at,
        "new_write_tat_ms": 12345,
        "new_player_budgets": budgets,
        "event_game": game_id,
        "event_seq": seq,
        "event_type": "faith_set",
        "event_data": {"changes": [{"player_id": "p1", "to": 7}], "why": "ñ"},
        "event_at": at,
    }


def _stored(path: str, game_id: str) -> tuple[tuple[Any, ...], list[tuple[Any, ...]]]:
    """The game's row and its events as SQLite holds them (the raw text of each column)."""
    raw = sqlite3.connect(path)
    try:
        game = raw.execute(
            "SELECT version, state, document, document_key, updated_at, write_tat_ms,"
            " player_budgets FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
        events = raw.execute(
            "SELECT seq, type, data, at FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
        ).fetchall()
    finally:
        raw.close()
    return game, events


@pytest.mark.parametrize(("state", "budgets", "at"), CASES)
def test_a_change_stores_what_core_stores_and_reads_back_what_core_reads(
    database: Database,
    database_url: str,
    make_game: GameFactory,
    state: Any,
    budgets: Any,
    at: datetime,
) -> None:
    by_core, by_driver = make_game(), make_game()
    with database.transaction(write=True) as connection:
        repository = GameRepository(connection)
        for game in (by_core, by_driver):
            repository.insert(game, credentials(game), "{}", "k" * 64, at)
    seq = by_core.version + 1
    with database.transaction(write=True) as connection:
        statements = sqlite_change_statements(connection)
        assert statements is not None
        core = _values(by_core.id, seq, state, budgets, at)
        assert connection.execute(GAME_CHANGE, core).rowcount == 1  # type: ignore[attr-defined]
        connection.execute(EVENT_APPEND, core)
        driver = _values(by_driver.id, seq, state, budgets, at)
        assert statements.change.execute(connection, driver).rowcount == 1
        statements.append.execute(connection, driver)

    path = str(make_url(database_url).database)
    assert _stored(path, by_driver.id) == _stored(path, by_core.id)

    with database.transaction(write=False) as connection:
        statements = sqlite_change_statements(connection)
        assert statements is not None
        for game in (by_core, by_driver):
            read = statements.state.one_or_none(connection, {"game_id": game.id})
            expected = connection.execute(GAME_STATE, {"game_id": game.id}).one()
            assert tuple(read) == tuple(expected)
            assert read.state == state and read.player_budgets == budgets
        assert statements.state.one_or_none(connection, {"game_id": "0" * 32}) is None


def test_a_change_of_a_game_at_another_version_stores_nothing(
    database: Database, make_game: GameFactory
) -> None:
    game = make_game()
    at = datetime(2026, 12, 5, tzinfo=UTC)
    with database.transaction(write=True) as connection:
        GameRepository(connection).insert(game, credentials(game), "{}", "k" * 64, at)
    with database.transaction(write=True) as connection:
        statements = sqlite_change_statements(connection)
        assert statements is not None
        stale = _values(game.id, game.version + 2, {"format": 2}, None, at)  # read v+1
        assert statements.change.execute(connection, stale).rowcount == 0
        version = connection.execute(
            text("SELECT version FROM games WHERE id = :id"), {"id": game.id}
        ).scalar_one()
    assert version == game.version


def test_statements_are_compiled_once_per_engine_and_only_for_sqlite(
    database: Database,
) -> None:
    with database.transaction(write=False) as one, database.transaction(write=False) as two:
        assert sqlite_change_statements(one) is sqlite_change_statements(two)
    other = create_engine("postgresql+psycopg://postgres@127.0.0.1:1/none")
    try:
        with pytest.raises(ValueError, match="binds parameters by name"):
            DriverStatement(GAME_CHANGE, other.dialect)
    finally:
        other.dispose()
