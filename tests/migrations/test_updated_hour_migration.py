"""Migration 0006: every game stored before it gets the hour of its last change, the
retention's index moves from ``updated_at`` to it, and a downgrade puts it back."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.pool import NullPool

from app.persistence.db import normalize_url
from app.persistence.migrate import downgrade, upgrade
from app.persistence.tables import hour_of

BEFORE = "0005_undo_recovery_rounds"
# Last changes: within an hour, on the last microsecond of one (SQLite's strftime('%s')
# would round that one up to the next hour) and on the first of the next.
LAST_CHANGES = {
    "a" * 32: datetime(2026, 3, 1, 12, 30, 15, 250000, tzinfo=UTC),
    "b" * 32: datetime(2026, 3, 1, 12, 59, 59, 999999, tzinfo=UTC),
    "c" * 32: datetime(2026, 3, 1, 13, 0, 0, tzinfo=UTC),
}


@pytest.fixture
def url(empty_url: str) -> str:
    """Each database, at the revision before 0006."""
    upgrade(empty_url, BEFORE)
    return empty_url


def _indexes(url: str) -> set[str]:
    engine = create_engine(normalize_url(url), poolclass=NullPool)
    try:
        with engine.connect() as conn:
            return {str(index["name"]) for index in inspect(conn).get_indexes("games")}
    finally:
        engine.dispose()


def _hours(url: str) -> dict[str, int]:
    engine = create_engine(normalize_url(url), poolclass=NullPool)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT id, updated_hour FROM games ORDER BY id"))
            return {row.id: row.updated_hour for row in rows}
    finally:
        engine.dispose()


def _store_games_of_the_release_before(url: str) -> None:
    engine = create_engine(normalize_url(url), poolclass=NullPool)
    try:
        with engine.begin() as conn:
            for game_id, at in LAST_CHANGES.items():
                conn.execute(
                    text(
                        "INSERT INTO games (id, version, state, host_token_hash, created_at,"
                        " updated_at, player_token_hashes) VALUES (:id, 1, '{}', :hash,"
                        " :at, :at, '{}')"
                    ),
                    # The text SQLAlchemy's DateTime writes on SQLite (naive UTC).
                    {
                        "id": game_id,
                        "hash": "h" * 64,
                        "at": at if "postgres" in url else at.replace(tzinfo=None).isoformat(" "),
                    },
                )
    finally:
        engine.dispose()


def test_games_stored_before_0006_get_the_hour_of_their_last_change(url: str) -> None:
    _store_games_of_the_release_before(url)
    assert "ix_games_updated_at" in _indexes(url)

    upgrade(url)
    assert _hours(url) == {game_id: hour_of(at) for game_id, at in LAST_CHANGES.items()}
    assert hour_of(LAST_CHANGES["b" * 32]) + 1 == hour_of(LAST_CHANGES["c" * 32])
    indexes = _indexes(url)
    assert "ix_games_updated_hour" in indexes and "ix_games_updated_at" not in indexes

    downgrade(url, BEFORE)
    indexes = _indexes(url)
    assert "ix_games_updated_at" in indexes and "ix_games_updated_hour" not in indexes
