"""The queries of games and their logs. Repositories use ``self.connection`` and never commit.

They read and write plain rows with SQLAlchemy Core statements (no ORM objects, no identity
map): a stored game is one row, so each read is one statement and each change one UPDATE
plus the INSERT of its event. A change's statements go to the driver as SQL compiled
once from the same declarations (``driver_statements.py``). The idempotency
keys' and the creation limits' queries are in ``idempotency_keys.py`` and
``creation_limits.py``; the values they return are the storage port's
(``app/services/stored.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, CursorResult, delete, select, update

from app.domain.game import GameEvent, GameState
from app.persistence.changes import ChangeFeed, Notification, sql_feed
from app.persistence.creation_limits import CreationLimitRepository as CreationLimitRepository
from app.persistence.driver_statements import change_statements
from app.persistence.game_state import game_state, state_data
from app.persistence.idempotency_keys import IdempotencyRepository as IdempotencyRepository
from app.persistence.statements import (
    CREDENTIALS_CHANGE,
    GAME_DOCUMENT,
    GAME_RECOVERY,
    IDLE_GAMES,
    IDLE_GAMES_LOCKED,
    KEYS_GONE,
    NOTIFY_EACH,
)
from app.persistence.tables import EVENTS, GAMES, IDEMPOTENCY_KEYS, hour_of
from app.services.storage import ChangeFeed as PortChangeFeed
from app.services.storage import LostRace
from app.services.stored import Credentials as Credentials
from app.services.stored import LoggedEvent as LoggedEvent
from app.services.stored import StoredDocument as StoredDocument
from app.services.stored import StoredGame as StoredGame
from app.services.stored import StoredVersion as StoredVersion


def _event_values(
    game_id: str, seq: int, event: GameEvent, at: datetime, data: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The values ``EVENT_APPEND`` (and the change's statement on PostgreSQL) bind;
    ``data``: the event's data when the caller has it already."""
    return {
        "event_game": game_id,
        "event_seq": seq,
        "event_type": event.type,
        "event_data": dict(event.data if data is None else data),
        "event_at": at,
    }


def _credentials(row: Any) -> Credentials:
    return Credentials(
        row.host_token_hash,
        row.player_token_hashes,
        getattr(row, "recovery_code_hash", None),  # not every read selects it
    )


class StoredChange:
    """What ``store_change`` binds for one change (and with a change feed, what announces
    it): built once, whether the change is stored at once (``GameRepository``) or after
    its request's code has run (``pg_loop_changes.py``)."""

    __slots__ = ("_feed", "_logged", "announces", "game_id", "values")

    def __init__(
        self,
        game_id: str,
        values: dict[str, Any],
        feed: ChangeFeed | None,
        logged: LoggedEvent | None,
    ) -> None:
        self.game_id = game_id
        self.values = values
        self._feed = feed
        self._logged = logged
        #: Whether the statement sends a ``pg_notify`` (``channel`` and ``payload`` bound).
        self.announces = "channel" in values

    @classmethod
    def of(
        cls,
        game: GameState,
        document: str,
        document_key: str,
        event: GameEvent,
        at: datetime,
        *,
        read_version: int,
        write_tat_ms: int,
        player_budgets: Mapping[str, list[int]] | None,
        changes: PortChangeFeed | None,
    ) -> StoredChange:
        feed = sql_feed(changes)
        # Once: a typed event writes its data out on each read of ``data``.
        data = event.data
        values: dict[str, Any] = {
            "game_id": game.id,
            "read_version": read_version,
            "new_version": game.version,
            "new_state": state_data(game),
            "new_document": document,
            "new_document_key": document_key,
            "new_updated_at": at,
            "new_updated_hour": hour_of(at),
            "new_write_tat_ms": write_tat_ms,
            "new_player_budgets": dict(player_budgets or {}),
            **_event_values(game.id, game.version, event, at, data),
        }
        notify = feed.notification(game.id, game.version) if feed is not None else None
        if notify is not None:
            values |= {"channel": notify.channel, "payload": notify.payload}
        logged = LoggedEvent(game.version, event.type, at, dict(data)) if feed is not None else None
        return cls(game.id, values, feed, logged)

    def announcement(self) -> Callable[[], None] | None:
        """What tells this process's listeners, to run once the change has committed."""
        if self._feed is None or self._logged is None:
            return None
        return self._feed.record(self.game_id, self._logged)


class GameRepository:
    def __init__(
        self, connection: Connection, *, after_commit: list[Callable[[], None]] | None = None
    ) -> None:
        self.connection = connection
        self._statements = change_statements(connection.dialect)
        # The hour each game's row held when this transaction read it locked, for the
        # change it stores after (GAME_CHANGE_HOURLY).
        self._hours: dict[str, int] = {}
        # Where a stored change leaves what tells this process's listeners, to run once
        # the transaction has committed (the unit of work's).
        self.after_commit = [] if after_commit is None else after_commit

    def insert(
        self,
        game: GameState,
        credentials: Credentials,
        document: str,
        document_key: str,
        at: datetime,
    ) -> None:
        self._statements.insert.execute(
            self.connection,
            {
                "new_id": game.id,
                "new_version": game.version,
                "new_state": state_data(game),
                "new_document": document,
                "new_document_key": document_key,
                "new_host_token_hash": credentials.host_token_hash,
                "new_player_token_hashes": dict(credentials.player_token_hashes),
                "new_recovery_code_hash": credentials.recovery_code_hash,
                "new_created_at": at,
                "new_updated_at": at,
                "new_updated_hour": hour_of(at),
            },
        )

    def state(self, game_id: str, *, for_update: bool = False) -> StoredGame | None:
        """The game's state; ``for_update`` locks its row until the transaction ends
        (PostgreSQL; on SQLite a write transaction already holds the database's lock)."""
        statement = self._statements.state_locked if for_update else self._statements.state
        row = statement.one_or_none(self.connection, {"game_id": game_id})
        if row is None:
            return None
        if for_update:
            self._hours[game_id] = row.updated_hour
        return StoredGame(
            game_state(game_id, row.version, row.state),
            _credentials(row),
            row.write_tat_ms,
            row.player_budgets,
        )

    def document(self, game_id: str) -> StoredDocument | None:
        row = self.connection.execute(GAME_DOCUMENT, {"game_id": game_id}).one_or_none()
        if row is None:
            return None
        return StoredDocument(row.version, row.document, row.document_key, _credentials(row))

    def version(self, game_id: str) -> StoredVersion | None:
        row = self._statements.version.one_or_none(self.connection, {"game_id": game_id})
        return None if row is None else StoredVersion(row.version, _credentials(row))

    def recovery(self, game_id: str) -> StoredVersion | None:
        row = self.connection.execute(GAME_RECOVERY, {"game_id": game_id}).one_or_none()
        return None if row is None else StoredVersion(row.version, _credentials(row))

    def store_change(
        self,
        game: GameState,
        document: str,
        document_key: str,
        event: GameEvent,
        at: datetime,
        *,
        read_version: int,
        write_tat_ms: int,
        player_budgets: Mapping[str, list[int]] | None = None,
        changes: PortChangeFeed | None = None,
    ) -> None:
        """Store what a change left, if the game is still at ``read_version`` (the version
        the change was computed from): the game's state, its rendered document and the
        write limit's new theoretical arrival time, the event numbered by the new version,
        and with ``changes`` the announcement of it at commit (on PostgreSQL a
        ``pg_notify``). ``LostRace``, storing nothing, when another writer stored first.

        On PostgreSQL that is one statement (data-modifying CTEs run exactly once, whether
        the query reads them or not; the event and the notify read the updated row, so
        there are none without it): one round trip instead of three, which is most of what
        a change costs there (bench/RESULTS.md). SQLite has no round trips to save.
        """
        stored = StoredChange.of(
            game,
            document,
            document_key,
            event,
            at,
            read_version=read_version,
            write_tat_ms=write_tat_ms,
            player_budgets=player_budgets,
            changes=changes,
        )
        hour = stored.values["new_updated_hour"]
        new_hour = self._hours.get(game.id) != hour
        if not self._statements.store(
            self.connection, stored.values, announce=stored.announces, new_hour=new_hour
        ):
            raise LostRace(game.id)
        self._hours[game.id] = hour
        announce = stored.announcement()
        if announce is not None:
            self.after_commit.append(announce)

    def replace_credentials(self, game_id: str, credentials: Credentials) -> None:
        """New token hashes (and recovery code hash) for the game, in a change's
        transaction: the tokens they replace are refused from its commit on."""
        self.connection.execute(
            CREDENTIALS_CHANGE,
            {
                "game_id": game_id,
                "new_host_token_hash": credentials.host_token_hash,
                "new_player_token_hashes": dict(credentials.player_token_hashes),
                "new_recovery_code_hash": credentials.recovery_code_hash,
            },
        )

    def store_budget(
        self, game_id: str, write_tat_ms: int, player_budgets: Mapping[str, list[int]]
    ) -> None:
        """What the game's seats have spent, in a change's transaction that stores nothing
        else (a keyed change that changes nothing: its row is locked)."""
        self.connection.execute(
            update(GAMES)
            .where(GAMES.c.id == game_id)
            .values(write_tat_ms=write_tat_ms, player_budgets=dict(player_budgets))
        )

    def refresh_document(self, game_id: str, version: int, document: str, key: str) -> None:
        """Store a document rendered again for an unchanged game (a no-op if it changed)."""
        self.connection.execute(
            update(GAMES)
            .where(GAMES.c.id == game_id, GAMES.c.version == version)
            .values(document=document, document_key=key)
        )

    def idle_since(self, before: datetime, limit: int, *, lock: bool = False) -> list[str]:
        """Ids of games whose last change is older than ``before`` (at most ``limit``).

        ``lock`` locks them until the transaction ends, skipping games another transaction
        holds (PostgreSQL; a SQLite write transaction holds the whole database): a change
        that is under way is never deleted from under it."""
        statement = IDLE_GAMES_LOCKED if lock else IDLE_GAMES
        values = {"before_hour": hour_of(before), "before": before, "batch": limit}
        return list(self.connection.scalars(statement, values))

    def delete(self, game_ids: list[str], notify: Sequence[Notification] = ()) -> int:
        """Delete games with their events (their write limit is a column of their row);
        of their idempotency keys only each key's hash stays, marked gone, until it
        expires, so that a retry with it answers 404 instead of acting again. With
        ``notify`` (PostgreSQL), the ``pg_notify``s that announce it at commit. How many
        games went."""
        if not game_ids:
            return 0
        self.connection.execute(delete(EVENTS).where(EVENTS.c.game_id.in_(game_ids)))
        self.connection.execute(
            update(IDEMPOTENCY_KEYS)
            .where(IDEMPOTENCY_KEYS.c.game_id.in_(game_ids))
            .values(KEYS_GONE)
        )
        result = self.connection.execute(delete(GAMES).where(GAMES.c.id.in_(game_ids)))
        assert isinstance(result, CursorResult)
        for channel in sorted({n.channel for n in notify}):
            payloads = [n.payload for n in notify if n.channel == channel]
            self.connection.execute(NOTIFY_EACH, {"channel": channel, "payloads": payloads})
        return result.rowcount


class EventRepository:
    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self._append = change_statements(connection.dialect).append

    def append(self, game_id: str, seq: int, event: GameEvent, at: datetime) -> None:
        self._append.execute(self.connection, _event_values(game_id, seq, event, at))

    def list_after(self, game_id: str, after: int, limit: int) -> list[LoggedEvent]:
        """Events of the game with ``seq > after``, oldest first, at most ``limit``."""
        rows = self.connection.execute(
            select(EVENTS.c.seq, EVENTS.c.type, EVENTS.c.at, EVENTS.c.data)
            .where(EVENTS.c.game_id == game_id, EVENTS.c.seq > after)
            .order_by(EVENTS.c.seq)
            .limit(limit)
        )
        return [LoggedEvent(row.seq, row.type, row.at, row.data) for row in rows]

    def with_seqs(self, game_id: str, seqs: Sequence[int]) -> list[LoggedEvent]:
        """Events of the game numbered ``seqs`` (at most the game's whole log), oldest
        first."""
        rows = self.connection.execute(
            select(EVENTS.c.seq, EVENTS.c.type, EVENTS.c.at, EVENTS.c.data)
            .where(EVENTS.c.game_id == game_id, EVENTS.c.seq.in_(sorted(set(seqs))))
            .order_by(EVENTS.c.seq)
        )
        return [LoggedEvent(row.seq, row.type, row.at, row.data) for row in rows]
