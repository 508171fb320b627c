"""Repositories on both databases: a game is one row read in one statement, its events are
an append-only log, idempotency keys are claimed once."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy.exc import IntegrityError

from app.domain.game import GameEvent
from app.persistence.db import Database
from app.persistence.idempotency_keys import IdempotencyKeys
from app.persistence.repositories import (
    EventRepository,
    GameRepository,
    IdempotencyRepository,
)
from app.services.stored import Outcome, utcnow
from tests.persistence.conftest import AT, GameFactory, credentials, store, store_as_changed
from tests.statements import count_statements


def test_a_game_round_trips_with_everything_it_holds(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game = make_game(players=4)
    assert game.reports[0].outcomes and any(p.excommunications for p in game.players)
    store(migrated_database, game)
    with migrated_database.transaction(write=False) as connection:
        stored = GameRepository(connection).state(game.id)
    assert stored is not None
    assert stored.state == game
    assert stored.credentials == credentials(game)


def test_a_stored_change_stores_the_new_state_document_and_event(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game = make_game()
    store(migrated_database, game)
    changed = replace(game, version=game.version + 1, turn_order=tuple(reversed(game.turn_order)))
    with migrated_database.transaction(write=True) as connection:
        locked = GameRepository(connection).state(game.id, for_update=True)
        assert locked is not None and locked.state == game
        event = GameEvent("turn_order_set", {"turn_order": list(changed.turn_order)})
        GameRepository(connection).store_change(
            changed,
            '{"v": 2}',
            "key-2",
            event,
            AT + timedelta(seconds=1),
            read_version=game.version,
            write_tat_ms=7,
        )
    with migrated_database.transaction(write=False) as connection:
        repository = GameRepository(connection)
        stored, document, version = (
            repository.state(game.id),
            repository.document(game.id),
            repository.version(game.id),
        )
        logged = EventRepository(connection).list_after(game.id, game.version, 10)
    assert [(e.seq, e.type) for e in logged] == [(changed.version, "turn_order_set")]
    assert stored is not None and stored.state == changed and stored.write_tat_ms == 7
    assert document is not None
    assert (document.version, document.document, document.key) == (
        changed.version,
        '{"v": 2}',
        "key-2",
    )
    assert version is not None and version.version == changed.version


def test_a_change_is_stored_only_if_the_game_is_still_at_the_version_it_read(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game = make_game()
    store(migrated_database, game)
    first = replace(game, version=game.version + 1, turn_order=tuple(reversed(game.turn_order)))
    late = replace(game, version=game.version + 1)  # computed from the same version, later
    with migrated_database.transaction(write=True) as connection:
        assert store_as_changed(GameRepository(connection), first, '{"first": 1}')
    with migrated_database.transaction(write=True) as connection:
        assert not store_as_changed(GameRepository(connection), late, '{"late": 1}')
    with migrated_database.transaction(write=False) as connection:
        stored = GameRepository(connection).document(game.id)
        logged = EventRepository(connection).list_after(game.id, game.version, 10)
    assert stored is not None
    assert (stored.version, stored.document) == (first.version, '{"first": 1}')
    assert [e.seq for e in logged] == [first.version]  # one event: the late change logged none


def test_a_document_is_refreshed_only_for_the_version_it_was_rendered_from(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game = make_game()
    store(migrated_database, game)
    with migrated_database.transaction(write=True) as connection:
        GameRepository(connection).refresh_document(game.id, game.version - 1, "stale", "k")
    with migrated_database.transaction(write=False) as connection:
        assert GameRepository(connection).document(game.id).document == "{}"  # type: ignore[union-attr]
    with migrated_database.transaction(write=True) as connection:
        GameRepository(connection).refresh_document(game.id, game.version, "fresh", "k")
    with migrated_database.transaction(write=False) as connection:
        assert GameRepository(connection).document(game.id).document == "fresh"  # type: ignore[union-attr]


def test_an_unknown_game_reads_as_none(migrated_database: Database) -> None:
    with migrated_database.transaction(write=False) as connection:
        repository = GameRepository(connection)
        assert repository.state("0" * 32) is None
        assert repository.document("0" * 32) is None
        assert repository.version("0" * 32) is None


@pytest.mark.parametrize("players", [2, 5])
def test_every_read_is_one_statement_whatever_the_players(
    migrated_database: Database, make_game: GameFactory, players: int
) -> None:
    game = make_game(players=players)
    store(migrated_database, game)
    for read in ("state", "document", "version"):
        with (
            migrated_database.transaction(write=False) as connection,
            count_statements(migrated_database.engine) as statements,
        ):
            assert getattr(GameRepository(connection), read)(game.id) is not None
        # SQLite's BEGIN is a statement of its own (the driver's autocommit is off).
        selects = [s for s in statements if s != "BEGIN"]
        assert len(selects) == 1 and selects[0].startswith("SELECT"), (read, statements)


def test_idle_games_go_with_their_events_and_their_keys_answers(
    migrated_database: Database, make_game: GameFactory
) -> None:
    """Of a deleted game's idempotency keys only the hash stays, marked gone (404, no game,
    no answer), until it expires: a retry with it must answer 404, not act again."""
    old, recent = make_game(), make_game()
    store(migrated_database, old)
    with migrated_database.transaction(write=True) as connection:
        GameRepository(connection).insert(
            recent, credentials(recent), "{}", "k", AT + timedelta(days=2)
        )
        for game in (old, recent):
            EventRepository(connection).append(game.id, 1, GameEvent("game_created", {}), AT)
            IdempotencyRepository(connection).try_insert(_key(f"{game.id}-key", game_id=game.id))
    with migrated_database.transaction(write=True) as connection:
        repository = GameRepository(connection)
        idle = repository.idle_since(AT + timedelta(days=1), limit=10)
        assert idle == [old.id]
        assert repository.delete(idle) == 1
    with migrated_database.transaction(write=False) as connection:
        assert GameRepository(connection).state(old.id) is None
        assert GameRepository(connection).state(recent.id) is not None
        assert EventRepository(connection).list_after(old.id, 0, 10) == []
        assert len(EventRepository(connection).list_after(recent.id, 0, 10)) == 1
        keys = IdempotencyRepository(connection)
        gone = keys.get(f"{old.id}-key")
        assert gone is not None
        assert (gone.game_id, gone.state, gone.status_code) == (None, "completed", 404)
        assert (gone.headers, gone.body) == (None, None)
        kept = keys.get(f"{recent.id}-key")
        assert kept is not None and kept.game_id == recent.id


def test_events_are_listed_after_a_sequence_number_in_order(
    migrated_database: Database, make_game: GameFactory
) -> None:
    game = make_game()
    store(migrated_database, game)
    with migrated_database.transaction(write=True) as connection:
        events = EventRepository(connection)
        for seq in (3, 1, 2, 5, 4):
            events.append(game.id, seq, GameEvent("faith_set", {"n": seq}), AT)
    with migrated_database.transaction(write=False) as connection:
        listed = EventRepository(connection).list_after(game.id, 1, limit=3)
    assert [(e.seq, e.data) for e in listed] == [(2, {"n": 2}), (3, {"n": 3}), (4, {"n": 4})]
    assert listed[0].at == AT


def test_an_event_number_is_used_once_per_game(
    migrated_database: Database, make_game: GameFactory
) -> None:
    first, second = make_game(), make_game()
    store(migrated_database, first)
    store(migrated_database, second)
    with migrated_database.transaction(write=True) as connection:
        EventRepository(connection).append(first.id, 1, GameEvent("faith_set", {}), AT)
        EventRepository(connection).append(second.id, 1, GameEvent("faith_set", {}), AT)
    # On SQLite an event goes to the driver itself, whose error is its own (driver_statements.py).
    refused = (IntegrityError, sqlite3.IntegrityError)
    with pytest.raises(refused), migrated_database.transaction(write=True) as connection:
        EventRepository(connection).append(first.id, 1, GameEvent("faith_set", {}), AT)


def _key(key_hash: str, *, game_id: str | None = None, **more: Any) -> dict[str, Any]:
    """The values of an in-flight key's row (``more`` replaces some)."""
    now = utcnow()
    return {
        "key_hash": key_hash,
        "game_id": game_id,
        "request_hash": "r" * 64,
        "state": "in_flight",
        "locked_until": now + timedelta(seconds=30),
        "created_at": now,
        "expires_at": now + timedelta(hours=24),
        **more,
    }


def test_try_insert_refuses_a_duplicate_and_the_transaction_goes_on(
    migrated_database: Database,
) -> None:
    with migrated_database.transaction(write=True) as connection:
        keys = IdempotencyRepository(connection)
        assert keys.try_insert(_key("a" * 64)) is True
        assert keys.try_insert(_key("a" * 64)) is False
        assert keys.try_insert(_key("b" * 64)) is True
    with migrated_database.transaction(write=False) as connection:
        keys = IdempotencyRepository(connection)
        assert keys.get("a" * 64) is not None and keys.get("b" * 64) is not None


def test_an_inserted_key_can_be_completed_in_the_same_transaction(
    migrated_database: Database,
) -> None:
    with migrated_database.transaction(write=True) as connection:
        assert IdempotencyRepository(connection).try_insert(_key("c" * 64))
        IdempotencyKeys(connection).complete(
            "c" * 64, game_id=None, outcome=Outcome.REPORT_RESOLVED, version=2, body=b"sealed"
        )
    with migrated_database.transaction(write=False) as connection:
        stored = IdempotencyRepository(connection).get("c" * 64)
    assert stored is not None
    assert (stored.state, stored.status_code, stored.body) == ("completed", 201, b"sealed")


def test_keys_are_released_and_purged_when_expired(migrated_database: Database) -> None:
    expired = _key("d" * 64, expires_at=utcnow() - timedelta(seconds=1))
    with migrated_database.transaction(write=True) as connection:
        keys = IdempotencyRepository(connection)
        keys.try_insert(expired)
        keys.try_insert(_key("e" * 64))
        keys.try_insert(_key("f" * 64))
    with migrated_database.transaction(write=True) as connection:
        keys = IdempotencyRepository(connection)
        keys.release("f" * 64)
        assert keys.purge_expired(utcnow(), limit=10) == 1
    with migrated_database.transaction(write=False) as connection:
        keys = IdempotencyRepository(connection)
        assert [keys.get(h * 64) is not None for h in "def"] == [False, True, False]


def test_a_claims_deletion_takes_its_own_expired_key_and_no_other(
    migrated_database: Database,
) -> None:
    """Before a claim, the key's own row goes if it expired (so that it may be claimed
    again); the other expired keys are retention's, in batches: one claim never deletes
    however many keys a party left to expire."""
    past = utcnow() - timedelta(seconds=1)
    with migrated_database.transaction(write=True) as connection:
        keys = IdempotencyRepository(connection)
        for h in "abc":
            keys.try_insert(_key(h * 64, expires_at=past))
        keys.try_insert(_key("d" * 64))
    with migrated_database.transaction(write=True) as connection:
        keys = IdempotencyRepository(connection)
        keys.drop_if_expired("a" * 64, utcnow())
        keys.drop_if_expired("d" * 64, utcnow())  # not expired: kept
    with migrated_database.transaction(write=False) as connection:
        keys = IdempotencyRepository(connection)
        assert [keys.get(h * 64) is not None for h in "abcd"] == [False, True, True, True]


def test_a_release_never_takes_back_a_stored_answer(migrated_database: Database) -> None:
    """A failed attempt releases its key for a retry; but an attempt that got no answer may
    have committed all the same (its COMMIT reached the server before its connection was
    cut): then the answer stays, for the retry to replay rather than act a second time."""
    answer = {"state": "completed", "game_id": None, "body": b"sealed", "status_code": 201}
    with migrated_database.transaction(write=True) as connection:
        keys = IdempotencyRepository(connection)
        keys.try_insert(_key("g" * 64))
        keys.complete("g" * 64, answer | {"headers": {"ETag": '"1"'}})
        keys.try_insert(_key("h" * 64))
    with migrated_database.transaction(write=True) as connection:
        keys = IdempotencyRepository(connection)
        keys.release("g" * 64)
        keys.release("h" * 64)
    with migrated_database.transaction(write=False) as connection:
        keys = IdempotencyRepository(connection)
        kept = keys.get("g" * 64)
        assert kept is not None and (kept.state, kept.status_code) == ("completed", 201)
        assert keys.get("h" * 64) is None
