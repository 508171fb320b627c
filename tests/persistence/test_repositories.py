"""Repositories against real databases: round trips, loading cost, idempotency keys."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError, InvalidRequestError

from app.persistence.db import Database, count_statements
from app.persistence.models import (
    Event,
    Excommunication,
    Game,
    IdempotencyKey,
    Player,
    Report,
    ReportDecision,
)
from app.persistence.repositories import EventRepository, GameRepository, IdempotencyRepository

GameFactory = Callable[..., Game]

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)


def test_a_game_round_trips_with_everything_it_holds(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game = make_game(players=3, reports=2)
    with migrated_database.transaction(write=True) as session:
        GameRepository(session).add(game)

    with migrated_database.transaction(write=False) as session:
        loaded = GameRepository(session).get(game.id)

    assert loaded is not None
    assert loaded is not game
    assert loaded.version == 1
    assert loaded.seed == 2**40 + 7
    assert loaded.expansions == ["base"]
    assert loaded.tile_ids == {"1": "I-4", "2": "II-6", "3": "III-1"}
    assert loaded.players_enter_faith is False
    assert loaded.created_at == datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert loaded.created_at.tzinfo is not None
    assert loaded.created_at.utcoffset() == timedelta(0)
    assert [p.id for p in loaded.players] == ["p0", "p1", "p2"]
    assert [p.faith for p in loaded.players] == [0, 1, 2]
    assert [p.turn_position for p in loaded.players] == [1, 2, 0]
    assert loaded.players[0].leaders == ["sisto_iv"]
    assert [(e.period, e.tile_id) for e in loaded.players[2].excommunications] == [(1, "I-4")]
    assert [r.period for r in loaded.reports] == [1, 2]
    assert loaded.reports[0].outcomes == [{"player_id": "p0", "outcome": "supported"}]
    assert loaded.reports[0].resolved_at == datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert loaded.reports[1].outcomes is None
    assert loaded.reports[1].resolved_at is None
    assert [(d.player_id, d.choice) for d in loaded.reports[1].decisions] == [
        ("p0", "refuse"),
        ("p1", "support"),
        ("p2", "refuse"),
    ]


def test_changes_to_loaded_objects_are_saved_by_the_unit_of_work(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game = make_game(players=2, reports=1)
    with migrated_database.transaction(write=True) as session:
        GameRepository(session).add(game)

    with migrated_database.transaction(write=True) as session:
        loaded = GameRepository(session).get(game.id, for_update=True)
        assert loaded is not None
        loaded.version += 1
        loaded.players[1].faith = 9
        loaded.players[1].leaders.append("santa_rita")  # in-place change of a JSON list
        loaded.players[1].excommunications.append(Excommunication(period=2, tile_id="II-6"))
        loaded.reports[0].status = "resolved"
        loaded.reports[0].decisions[0].choice = "support"
        loaded.reports.append(Report(period=2, status="open"))

    with migrated_database.transaction(write=False) as session:
        again = GameRepository(session).get(game.id)
    assert again is not None
    assert again.version == 2
    assert again.updated_at > game.updated_at
    assert again.players[1].faith == 9
    assert again.players[1].leaders == ["santa_rita"]
    assert [e.period for e in again.players[1].excommunications] == [1, 2]
    assert [r.status for r in again.reports] == ["resolved", "open"]
    assert again.reports[0].decisions[0].choice == "support"


def test_get_and_exists_for_an_unknown_game(migrated_database: Database) -> None:
    with migrated_database.transaction(write=False) as session:
        assert GameRepository(session).get("0" * 32) is None
        assert GameRepository(session).get("0" * 32, for_update=True) is None
        assert GameRepository(session).exists("0" * 32) is False


def test_exists_for_a_stored_game(migrated_database: Database, make_game: GameFactory) -> None:
    game = make_game()
    with migrated_database.transaction(write=True) as session:
        GameRepository(session).add(game)
    with migrated_database.transaction(write=False) as session:
        assert GameRepository(session).exists(game.id) is True


def _selects_to_get(database: Database, game_id: str, *, for_update: bool) -> list[str]:
    with (
        database.transaction(write=for_update) as session,
        count_statements(database.engine) as statements,
    ):
        game = GameRepository(session).get(game_id, for_update=for_update)
        assert game is not None
        # Everything is loaded: touching it issues no query (and lazy="raise" would raise).
        for player in game.players:
            assert all(e.tile_id for e in player.excommunications)
        for report in game.reports:
            assert all(d.choice for d in report.decisions)
    return [s for s in statements if s.lstrip().upper().startswith("SELECT")]


@pytest.mark.parametrize("for_update", [False, True], ids=["read", "for_update"])
def test_get_costs_the_same_statements_for_2_and_5_players(
    migrated_database: Database, make_game: GameFactory, for_update: bool
) -> None:
    small, large = make_game(players=2, reports=1), make_game(players=5, reports=3)
    with migrated_database.transaction(write=True) as session:
        GameRepository(session).add(small)
        GameRepository(session).add(large)

    small_selects = _selects_to_get(migrated_database, small.id, for_update=for_update)
    large_selects = _selects_to_get(migrated_database, large.id, for_update=for_update)

    assert len(small_selects) == len(large_selects) == 5
    if for_update and migrated_database.dialect_name == "postgresql":
        assert "FOR UPDATE" in small_selects[0]


def test_relationships_not_loaded_explicitly_raise(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game = make_game(players=2)
    with migrated_database.transaction(write=True) as session:
        GameRepository(session).add(game)
    with migrated_database.transaction(write=False) as session:
        player = session.scalars(select(Player).where(Player.game_id == game.id)).first()
        assert player is not None
        with pytest.raises(InvalidRequestError):
            _ = player.excommunications


def test_check_constraints_reject_negative_faith(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game = make_game(players=2)
    game.players[0].faith = -1
    with pytest.raises(IntegrityError), migrated_database.transaction(write=True) as session:
        GameRepository(session).add(game)
    with migrated_database.transaction(write=False) as session:
        assert GameRepository(session).exists(game.id) is False


def test_deleting_a_game_row_cascades_in_the_database(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game = make_game(players=3, reports=2)
    with migrated_database.transaction(write=True) as session:
        GameRepository(session).add(game)
        EventRepository(session).append(game.id, 1, "game_created", {}, NOW)
    with migrated_database.transaction(write=True) as session:
        # A Core DELETE: only the database's ON DELETE CASCADE removes the children.
        session.execute(delete(Game).where(Game.id == game.id))
    with migrated_database.transaction(write=False) as session:
        for model in (Player, Excommunication, Report, ReportDecision, Event):
            assert session.scalar(select(func.count()).select_from(model)) == 0


def test_events_are_listed_after_a_sequence_number_in_order(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game, other = make_game(players=2), make_game(players=2)
    with migrated_database.transaction(write=True) as session:
        GameRepository(session).add(game)
        GameRepository(session).add(other)
    with migrated_database.transaction(write=True) as session:
        events = EventRepository(session)
        for seq in (3, 1, 2, 4):
            events.append(game.id, seq, "faith_set", {"seq": seq, "faith": {"p0": 2}}, NOW)
        events.append(other.id, 1, "game_created", {}, NOW)

    with migrated_database.transaction(write=False) as session:
        events = EventRepository(session)
        listed = events.list_after(game.id, 1, limit=2)
        everything = events.list_after(game.id, 0, limit=100)
        none_left = events.list_after(game.id, 4, limit=100)

    assert [e.seq for e in listed] == [2, 3]
    assert [e.seq for e in everything] == [1, 2, 3, 4]
    assert everything[0].data == {"seq": 1, "faith": {"p0": 2}}
    assert everything[0].type == "faith_set"
    assert everything[0].at == NOW
    assert none_left == []


def test_an_event_number_is_used_once_per_game(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game = make_game(players=2)
    with migrated_database.transaction(write=True) as session:
        GameRepository(session).add(game)
        EventRepository(session).append(game.id, 1, "game_created", {}, NOW)
    with pytest.raises(IntegrityError), migrated_database.transaction(write=True) as session:
        EventRepository(session).append(game.id, 1, "faith_set", {}, NOW)


def _key(key_hash: str = "k" * 64, request_hash: str = "r" * 64) -> IdempotencyKey:
    return IdempotencyKey(
        key_hash=key_hash,
        request_hash=request_hash,
        state="in_flight",
        locked_until=NOW + timedelta(seconds=30),
        expires_at=NOW + timedelta(hours=24),
    )


def test_try_insert_refuses_a_duplicate_and_the_transaction_goes_on(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game = make_game(players=2)
    with migrated_database.transaction(write=True) as session:
        keys = IdempotencyRepository(session)
        assert keys.try_insert(_key(request_hash="a" * 64)) is True
        assert keys.try_insert(_key(request_hash="b" * 64)) is False
        # Still usable: later statements run and commit.
        GameRepository(session).add(game)
        session.flush()

    with migrated_database.transaction(write=True) as session:
        assert IdempotencyRepository(session).try_insert(_key(request_hash="c" * 64)) is False

    with migrated_database.transaction(write=False) as session:
        stored = IdempotencyRepository(session).get("k" * 64)
        assert GameRepository(session).exists(game.id)
    assert stored is not None
    assert stored.request_hash == "a" * 64
    assert stored.state == "in_flight"
    assert stored.created_at.tzinfo is not None
    assert stored.headers is None
    assert stored.body is None


def test_an_inserted_key_can_be_completed_in_the_same_transaction(
    migrated_database: Database,
) -> None:
    row = _key()
    with migrated_database.transaction(write=True) as session:
        assert IdempotencyRepository(session).try_insert(row) is True
        row.state = "completed"
        row.status_code = 201
        row.headers = {"location": "/v1/games/x"}
        row.body = b"\x00encrypted\xff"

    with migrated_database.transaction(write=True) as session:
        stored = IdempotencyRepository(session).get(row.key_hash, for_update=True)
        assert stored is not None
        assert (stored.state, stored.status_code) == ("completed", 201)
        assert stored.headers == {"location": "/v1/games/x"}
        assert stored.body == b"\x00encrypted\xff"


def test_keys_are_deleted_and_purged_when_expired(migrated_database: Database) -> None:
    with migrated_database.transaction(write=True) as session:
        keys = IdempotencyRepository(session)
        for index, hours in enumerate((-2, -1, 1, 24)):
            row = _key(key_hash=f"{index}" * 64)
            row.expires_at = NOW + timedelta(hours=hours)
            assert keys.try_insert(row)
        assert keys.try_insert(_key(key_hash="x" * 64))

    with migrated_database.transaction(write=True) as session:
        keys = IdempotencyRepository(session)
        keys.delete("x" * 64)
        assert keys.purge_expired(NOW) == 2

    with migrated_database.transaction(write=False) as session:
        keys = IdempotencyRepository(session)
        assert [k for k in ("0", "1", "2", "3", "x") if keys.get(k * 64)] == ["2", "3"]
