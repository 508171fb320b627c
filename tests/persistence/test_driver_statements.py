"""A change's statements, and an Idempotency-Key's, sent as the driver's SQL
(driver_statements.py) store and read exactly what the same Core statements do, on both
databases: each column's stored text, and each value read back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import Connection, insert, select, text, update

from app.persistence.db import Database
from app.persistence.driver_statements import ChangeStatements, change_statements
from app.persistence.repositories import GameRepository, IdempotencyRepository
from app.persistence.statements import (
    EVENT_APPEND,
    GAME_CHANGE_HOURLY,
    GAME_STATE,
    GAME_STATE_LOCKED,
    GAME_VERSION,
    STORE_CHANGE,
)
from app.persistence.tables import IDEMPOTENCY_KEYS, hour_of
from tests.persistence.conftest import GameFactory, credentials

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
        "new_updated_hour": hour_of(at),
        "new_write_tat_ms": 12345,
        "new_player_budgets": budgets,
        "event_game": game_id,
        "event_seq": seq,
        "event_type": "faith_set",
        "event_data": {"changes": [{"player_id": "p1", "to": 7}], "why": "ñ"},
        "event_at": at,
    }


def _stored(connection: Connection, game_id: str) -> tuple[Any, list[Any]]:
    """The game's row and its events as the database holds them (each column's text)."""
    game = connection.execute(
        text(
            "SELECT version, CAST(state AS TEXT), document, document_key,"
            " CAST(updated_at AS TEXT), updated_hour, write_tat_ms, CAST(player_budgets AS TEXT)"
            " FROM games WHERE id = :id"
        ),
        {"id": game_id},
    ).one()
    events = connection.execute(
        text(
            "SELECT seq, type, CAST(data AS TEXT), CAST(at AS TEXT) FROM events"
            " WHERE game_id = :id ORDER BY seq"
        ),
        {"id": game_id},
    ).all()
    return tuple(game), [tuple(event) for event in events]


def _store_by_core(connection: Connection, values: dict[str, Any]) -> bool:
    if connection.dialect.name == "postgresql":
        return connection.execute(STORE_CHANGE[False], values).first() is not None
    if connection.execute(GAME_CHANGE_HOURLY, values).rowcount != 1:  # type: ignore[attr-defined]
        return False
    connection.execute(EVENT_APPEND, values)
    return True


def _store_by_driver(
    statements: ChangeStatements, connection: Connection, values: dict[str, Any]
) -> bool:
    announce = {"channel": "vr_driver_statements_test", "payload": "1"}
    return statements.store(connection, values | announce, announce=True)


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
        statements = change_statements(connection.dialect)
        assert _store_by_core(connection, _values(by_core.id, seq, state, budgets, at))
        assert _store_by_driver(
            statements, connection, _values(by_driver.id, seq, state, budgets, at)
        )

    with database.transaction(write=False) as connection:
        assert _stored(connection, by_driver.id) == _stored(connection, by_core.id)
        for game in (by_core, by_driver):
            for core, select in (
                (GAME_STATE, statements.state),
                (GAME_STATE_LOCKED, statements.state_locked),
            ):
                expected = connection.execute(core, {"game_id": game.id}).one()
                read = select.one_or_none(connection, {"game_id": game.id})
                assert tuple(read) == tuple(expected)
                assert read.state == state and read.player_budgets == budgets
            version = connection.execute(GAME_VERSION, {"game_id": game.id}).one()
            assert tuple(statements.version.one_or_none(connection, {"game_id": game.id})) == (
                tuple(version)
            )
        assert statements.state.one_or_none(connection, {"game_id": "0" * 32}) is None
        assert statements.version.one_or_none(connection, {"game_id": "0" * 32}) is None


def test_a_change_of_a_game_at_another_version_stores_nothing(
    database: Database, make_game: GameFactory
) -> None:
    game = make_game()
    at = datetime(2026, 12, 5, tzinfo=UTC)
    with database.transaction(write=True) as connection:
        GameRepository(connection).insert(game, credentials(game), "{}", "k" * 64, at)
    with database.transaction(write=True) as connection:
        stale = _values(game.id, game.version + 2, {"format": 2}, None, at)  # read v+1
        assert not _store_by_driver(change_statements(connection.dialect), connection, stale)
        version = connection.execute(
            text("SELECT version FROM games WHERE id = :id"), {"id": game.id}
        ).scalar_one()
    assert version == game.version


def test_statements_are_compiled_once_per_engine(database: Database, database_url: str) -> None:
    with database.transaction(write=False) as one, database.transaction(write=False) as two:
        assert change_statements(one.dialect) is change_statements(two.dialect)
    other = Database(database_url)
    try:
        with other.transaction(write=False) as three:
            assert change_statements(three.dialect) is not change_statements(one.dialect)
    finally:
        other.dispose()


def _key_columns(connection: Connection, key_hash: str) -> tuple[Any, ...]:
    """An Idempotency-Key's row as the database holds it (each column's text)."""
    row = connection.execute(
        text(
            "SELECT key_hash, game_id, request_hash, state, CAST(locked_until AS TEXT),"
            " status_code, CAST(headers AS TEXT), body, CAST(created_at AS TEXT),"
            " CAST(expires_at AS TEXT) FROM idempotency_keys WHERE key_hash = :key"
        ),
        {"key": key_hash},
    ).one()
    return tuple(row)[1:]


@pytest.mark.parametrize("at", [CASES[0][2], CASES[1][2]])
def test_a_keys_claim_lease_and_answer_store_what_core_stores(
    database: Database, at: datetime
) -> None:
    by_core, by_driver = "c" * 64, "d" * 64
    claim = {
        "request_hash": "r" * 64,
        "state": "in_flight",
        "locked_until": at + timedelta(seconds=30),
        "created_at": at,
        "expires_at": at + timedelta(hours=24),
    }
    answer = {
        "state": "completed",
        "game_id": None,
        "body": b"\x00sealed\xff",
        "status_code": 201,
        "headers": {"Location": "/v1/games/ü", "ETag": '"3"'},
    }
    lease = at + timedelta(minutes=1)
    keys = IDEMPOTENCY_KEYS
    with database.transaction(write=True) as connection:
        connection.execute(insert(keys).values(key_hash=by_core, **claim))
        connection.execute(
            update(keys).where(keys.c.key_hash == by_core).values(locked_until=lease)
        )
        connection.execute(update(keys).where(keys.c.key_hash == by_core).values(**answer))
        repository = IdempotencyRepository(connection)
        assert repository.try_insert({"key_hash": by_driver, **claim})
        assert not repository.try_insert({"key_hash": by_driver, **claim})  # claimed already
        repository.extend_lease(by_driver, lease)
        repository.complete(by_driver, answer)
    with database.transaction(write=False) as connection:
        assert _key_columns(connection, by_driver) == _key_columns(connection, by_core)
        expected = connection.execute(select(keys).where(keys.c.key_hash == by_core)).one()
        read = IdempotencyRepository(connection).get(by_driver)
        assert tuple(read)[1:] == tuple(expected)[1:]
        assert read.locked_until == lease and read.headers == answer["headers"]
