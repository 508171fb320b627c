"""A game's ``updated_hour``, the retention sweep's index, on both databases: it is always
the hour of the game's last change, a change within the hour its row holds leaves it (and
so its index) alone on SQLite, and the sweep finds idle games by it, the rows a release
before it wrote (hour 0) among them."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

import pytest
from sqlalchemy import Connection, select, update

from app.domain.game import GameEvent, GameState
from app.persistence.db import Database
from app.persistence.repositories import GameRepository
from app.persistence.statements import IDLE_GAMES_LOCKED
from app.persistence.tables import GAMES, hour_of
from tests.persistence.conftest import AT, GameFactory, store
from tests.statements import count_statements

HOUR = timedelta(hours=1)
START = AT.replace(minute=10, second=0, microsecond=0)
# Each change's time after the game's creation at AT (03:04:05.678901): in the hour of the
# creation, in the hour of the one before, the next hour, 23:59 later, back an hour
# (another replica's clock), on the last microsecond of an hour and on the first of the next.
TIMES = [
    START,
    START + timedelta(minutes=40),
    START + HOUR,
    START + HOUR + timedelta(hours=23, minutes=59),
    START + timedelta(hours=23, minutes=59),
    START.replace(minute=59, second=59, microsecond=999999) + 30 * HOUR,
    START.replace(minute=0, second=0, microsecond=0) + 31 * HOUR,
]


def _change(
    connection: Connection, game: GameState, at: datetime, *, read_first: bool = True
) -> GameState:
    """Store a change of ``game`` at ``at``, after reading its row locked as a change does
    (``read_first``), or without that read."""
    repository = GameRepository(connection)
    if read_first:
        assert repository.state(game.id, for_update=True) is not None
    changed = replace(game, version=game.version + 1)
    event = GameEvent("turn_order_set", {"turn_order": list(changed.turn_order)})
    repository.store_change(
        changed, "{}", "k", event, at, read_version=game.version, write_tat_ms=0
    )
    return changed


def _stored(database: Database, game_id: str) -> tuple[datetime, int]:
    with database.transaction(write=False) as connection:
        row = connection.execute(
            select(GAMES.c.updated_at, GAMES.c.updated_hour).where(GAMES.c.id == game_id)
        ).one()
    return row.updated_at, row.updated_hour


def test_a_games_hour_is_the_hour_of_its_last_change_whenever_it_changes(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game = make_game()
    store(migrated_database, game)
    assert _stored(migrated_database, game.id) == (AT, hour_of(AT))
    for n, at in enumerate(TIMES):
        with migrated_database.transaction(write=True) as connection:
            game = _change(connection, game, at, read_first=n % 3 != 2)
        assert _stored(migrated_database, game.id) == (at, hour_of(at)), at


def test_hour_of_counts_whole_hours_since_the_epoch() -> None:
    assert hour_of(START.replace(minute=0)) == hour_of(START.replace(minute=59, second=59))
    assert hour_of(START + HOUR) == hour_of(START) + 1
    assert hour_of(START) * 3600 <= START.timestamp() < (hour_of(START) + 1) * 3600


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_on_sqlite_a_change_sets_the_hour_only_when_it_moves(
    migrated_database: Database, make_game: GameFactory
) -> None:
    # SQLite rewrites an index whenever its column is set, even to the value it holds.
    game = make_game()
    store(migrated_database, game)
    sets_the_hour: list[bool] = []
    for at, read_first in (
        (START, True),  # in the hour of the creation (AT's)
        (START + timedelta(minutes=30), True),
        (START + HOUR, True),  # the next hour
        (START + HOUR, True),
        (START + HOUR, False),  # the hour its row holds is not known: set
    ):
        with (
            count_statements(migrated_database.engine) as sent,
            migrated_database.transaction(write=True) as connection,
        ):
            game = _change(connection, game, at, read_first=read_first)
        (update_games,) = [s for s in sent if s.startswith("UPDATE games")]
        sets_the_hour.append("updated_hour" in update_games)
    assert sets_the_hour == [False, False, True, False, True]


def test_the_sweep_finds_a_game_idle_past_the_retention_by_its_hour(
    migrated_database: Database, make_game: GameFactory
) -> None:
    idle, busy, older_release = make_game(), make_game(), make_game()
    for game in (idle, busy, older_release):
        store(migrated_database, game)
    with migrated_database.transaction(write=True) as connection:
        _change(connection, busy, START + 2 * HOUR)
        # A row a release without the column wrote: hour 0, whatever its last change.
        connection.execute(
            update(GAMES).where(GAMES.c.id == older_release.id).values(updated_hour=0)
        )
    with migrated_database.transaction(write=False) as connection:
        found = GameRepository(connection).idle_since

        assert found(AT, 10) == []  # nothing changed before AT itself
        assert sorted(found(AT + timedelta(microseconds=1), 10)) == sorted(
            [idle.id, older_release.id]
        )
        assert sorted(found(START + 3 * HOUR, 10)) == sorted([idle.id, busy.id, older_release.id])
        assert len(found(START + 3 * HOUR, 2)) == 2


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_on_sqlite_the_sweep_reads_its_batch_by_the_hours_index_not_every_game(
    migrated_database: Database, make_game: GameFactory
) -> None:
    # Ordered by id, SQLite walked the primary key and read every game to fill a batch.
    for _ in range(3):
        store(migrated_database, make_game())
    with migrated_database.transaction(write=False) as connection:
        compiled = IDLE_GAMES_LOCKED.compile(connection)
        # The plan does not depend on the values (no statistics): any of the right number.
        values = [0] * len(compiled.positiontup or ())
        plan = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}", tuple(values)).all()
    steps = [str(step[-1]) for step in plan]
    assert steps == ["SEARCH games USING INDEX ix_games_updated_hour (updated_hour<?)"], steps
