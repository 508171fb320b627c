"""Every query of the service. Repositories use ``self.session`` and never commit.

They read and write plain rows with SQLAlchemy Core statements (no ORM objects, no identity
map): a stored game is one row, so each read is one statement and each change one UPDATE
plus the INSERT of its event.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    CursorResult,
    String,
    Table,
    bindparam,
    case,
    delete,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.orm import Session

from app.domain.game import GameEvent, GameState
from app.persistence.game_state import game_state, state_data
from app.persistence.models import CreationLimit, Event, Game, IdempotencyKey

GAMES = cast(Table, Game.__table__)
EVENTS = cast(Table, Event.__table__)
KEYS = cast(Table, IdempotencyKey.__table__)
LIMITS = cast(Table, CreationLimit.__table__)

# The statements of every read and change of a game are built once, their values bound
# per call: SQLAlchemy coerces each clause of a new statement object and computes its
# cache key again, which cost a change more than its two round trips on loopback
# (bench/RESULTS.md).
_GAME_STATE = select(
    GAMES.c.version,
    GAMES.c.state,
    GAMES.c.host_token_hash,
    GAMES.c.player_token_hashes,
    GAMES.c.recovery_code_hash,
    GAMES.c.write_tat_ms,
    GAMES.c.player_budgets,
).where(GAMES.c.id == bindparam("game_id"))
_GAME_STATE_LOCKED = _GAME_STATE.with_for_update()
_GAME_DOCUMENT = select(
    GAMES.c.version,
    GAMES.c.document,
    GAMES.c.document_key,
    GAMES.c.host_token_hash,
    GAMES.c.player_token_hashes,
).where(GAMES.c.id == bindparam("game_id"))
_GAME_VERSION = select(GAMES.c.version, GAMES.c.host_token_hash, GAMES.c.player_token_hashes).where(
    GAMES.c.id == bindparam("game_id")
)
# A change: the row rewritten only if the game is still at the version the change read.
_GAME_CHANGE = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("game_id"), GAMES.c.version == bindparam("read_version"))
    .values(
        {
            column: bindparam(f"new_{column}", type_=GAMES.c[column].type)
            for column in (
                "version",
                "state",
                "document",
                "document_key",
                "updated_at",
                "write_tat_ms",
                "player_budgets",
            )
        }
    )
)
_EVENT_COLUMNS = ("seq", "type", "data", "at")
_EVENT_VALUES = [bindparam(f"event_{c}", type_=EVENTS.c[c].type) for c in _EVENT_COLUMNS]
_EVENT_APPEND = insert(EVENTS).values(
    dict(zip(("game_id", *_EVENT_COLUMNS), (bindparam("event_game"), *_EVENT_VALUES), strict=True))
)
# PostgreSQL: the change in one statement (see store_change); its one row says it stored.
_CHANGED = _GAME_CHANGE.returning(GAMES.c.id).cte("changed_game")
_LOGGED = insert(EVENTS).from_select(
    ["game_id", *_EVENT_COLUMNS], select(_CHANGED.c.id, *_EVENT_VALUES)
)
_NOTIFY = func.pg_notify(bindparam("channel", type_=String), bindparam("payload", type_=String))
# PostgreSQL: one notification per payload, in one statement.
_NOTIFY_EACH = text(
    "SELECT pg_notify(:channel, payload) FROM unnest(CAST(:payloads AS text[])) AS payload"
)
_CREDENTIALS_CHANGE = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("game_id"))
    .values(
        host_token_hash=bindparam("new_host_token_hash"),
        player_token_hashes=bindparam(
            "new_player_token_hashes", type_=GAMES.c.player_token_hashes.type
        ),
        recovery_code_hash=bindparam("new_recovery_code_hash"),
    )
)
# A deleted game's keys: what is left says only "gone" (see IdempotencyKey).
_KEYS_GONE = {
    "game_id": None,
    "state": "completed",
    "status_code": 404,
    "headers": None,
    "body": None,
}
_STORE_CHANGE = {
    announce: select(column).select_from(_CHANGED).add_cte(_LOGGED.cte("logged_event"))
    for announce, column in ((True, _NOTIFY), (False, _CHANGED.c.id))
}


def _dialect_insert(session: Session) -> Any:
    """``INSERT`` with ``ON CONFLICT`` for the session's database. Imported here: a
    process loads its own database's dialect only (PostgreSQL's is about 2 MiB)."""
    if session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert


@dataclass(frozen=True, slots=True)
class Credentials:
    """Who may touch a game: the hashes of its host token and of each player's token (a
    seat whose token was revoked has none), and of the code that regains the host seat
    (read only by the changes, which may need it)."""

    host_token_hash: str
    player_token_hashes: Mapping[str, str]
    recovery_code_hash: str | None = None


@dataclass(frozen=True, slots=True)
class StoredGame:
    state: GameState
    credentials: Credentials
    # The host's write limit's theoretical arrival time (ms since the epoch), and each
    # player seat's [TAT, changes made]; app/services/limits.py.
    write_tat_ms: int = 0
    player_budgets: Mapping[str, list[int]] | None = None


@dataclass(frozen=True, slots=True)
class StoredDocument:
    """The read model of a game: its rendered document, made by the renderer ``key``."""

    version: int
    document: str | None
    key: str | None
    credentials: Credentials


@dataclass(frozen=True, slots=True)
class StoredVersion:
    version: int
    credentials: Credentials


@dataclass(frozen=True, slots=True)
class LoggedEvent:
    seq: int
    type: str
    at: datetime
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Notification:
    """A ``pg_notify(channel, payload)`` to send when a change commits (PostgreSQL)."""

    channel: str
    payload: str


def _event_values(game_id: str, seq: int, event: GameEvent, at: datetime) -> dict[str, Any]:
    """The values ``_EVENT_APPEND`` (and the change's statement on PostgreSQL) bind."""
    return {
        "event_game": game_id,
        "event_seq": seq,
        "event_type": event.type,
        "event_data": dict(event.data),
        "event_at": at,
    }


def _credentials(row: Any) -> Credentials:
    return Credentials(
        row.host_token_hash,
        row.player_token_hashes,
        row._mapping.get("recovery_code_hash"),
    )


class GameRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def insert(
        self,
        game: GameState,
        credentials: Credentials,
        document: str,
        document_key: str,
        at: datetime,
    ) -> None:
        self.session.execute(
            insert(GAMES).values(
                id=game.id,
                version=game.version,
                state=state_data(game),
                document=document,
                document_key=document_key,
                host_token_hash=credentials.host_token_hash,
                player_token_hashes=dict(credentials.player_token_hashes),
                recovery_code_hash=credentials.recovery_code_hash,
                created_at=at,
                updated_at=at,
            )
        )

    def state(self, game_id: str, *, for_update: bool = False) -> StoredGame | None:
        """The game's state; ``for_update`` locks its row until the transaction ends
        (PostgreSQL; on SQLite a write transaction already holds the database's lock)."""
        statement = _GAME_STATE_LOCKED if for_update else _GAME_STATE
        row = self.session.execute(statement, {"game_id": game_id}).one_or_none()
        if row is None:
            return None
        return StoredGame(
            game_state(game_id, row.version, row.state),
            _credentials(row),
            row.write_tat_ms,
            row.player_budgets,
        )

    def document(self, game_id: str) -> StoredDocument | None:
        row = self.session.execute(_GAME_DOCUMENT, {"game_id": game_id}).one_or_none()
        if row is None:
            return None
        return StoredDocument(row.version, row.document, row.document_key, _credentials(row))

    def version(self, game_id: str) -> StoredVersion | None:
        row = self.session.execute(_GAME_VERSION, {"game_id": game_id}).one_or_none()
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
        notify: Notification | None = None,
    ) -> bool:
        """Store what a change left, if the game is still at ``read_version`` (the version
        the change was computed from): the game's state, its rendered document and the
        write limit's new theoretical arrival time, the event numbered by the new version,
        and (PostgreSQL) the ``pg_notify`` that announces it at commit. False, storing
        nothing, when another writer stored first.

        On PostgreSQL that is one statement (data-modifying CTEs run exactly once, whether
        the query reads them or not; the event and the notify read the updated row, so
        there are none without it): one round trip instead of three, which is most of what
        a change costs there (bench/RESULTS.md). SQLite has no round trips to save.
        """
        values: dict[str, Any] = {
            "game_id": game.id,
            "read_version": read_version,
            "new_version": game.version,
            "new_state": state_data(game),
            "new_document": document,
            "new_document_key": document_key,
            "new_updated_at": at,
            "new_write_tat_ms": write_tat_ms,
            "new_player_budgets": dict(player_budgets or {}),
            **_event_values(game.id, game.version, event, at),
        }
        if self.session.get_bind().dialect.name != "postgresql":
            result = self.session.execute(_GAME_CHANGE, values)
            assert isinstance(result, CursorResult)
            if result.rowcount != 1:
                return False
            self.session.execute(_EVENT_APPEND, values)
            return True
        if notify is not None:
            values |= {"channel": notify.channel, "payload": notify.payload}
        stored = self.session.execute(_STORE_CHANGE[notify is not None], values)
        return stored.first() is not None

    def replace_credentials(self, game_id: str, credentials: Credentials) -> None:
        """New token hashes (and recovery code hash) for the game, in a change's
        transaction: the tokens they replace are refused from its commit on."""
        self.session.execute(
            _CREDENTIALS_CHANGE,
            {
                "game_id": game_id,
                "new_host_token_hash": credentials.host_token_hash,
                "new_player_token_hashes": dict(credentials.player_token_hashes),
                "new_recovery_code_hash": credentials.recovery_code_hash,
            },
        )

    def refresh_document(self, game_id: str, version: int, document: str, key: str) -> None:
        """Store a document rendered again for an unchanged game (a no-op if it changed)."""
        self.session.execute(
            update(GAMES)
            .where(GAMES.c.id == game_id, GAMES.c.version == version)
            .values(document=document, document_key=key)
        )

    def idle_since(self, before: datetime, limit: int, *, lock: bool = False) -> list[str]:
        """Ids of games whose last change is older than ``before`` (at most ``limit``).

        ``lock`` locks them until the transaction ends, skipping games another transaction
        holds (PostgreSQL; a SQLite write transaction holds the whole database): a change
        that is under way is never deleted from under it."""
        statement = (
            select(GAMES.c.id).where(GAMES.c.updated_at < before).order_by(GAMES.c.id).limit(limit)
        )
        if lock:
            statement = statement.with_for_update(skip_locked=True)
        return list(self.session.scalars(statement))

    def delete(self, game_ids: list[str], notify: Sequence[Notification] = ()) -> int:
        """Delete games with their events (their write limit is a column of their row);
        of their idempotency keys only each key's hash stays, marked gone, until it
        expires, so that a retry with it answers 404 instead of acting again. With
        ``notify`` (PostgreSQL), the ``pg_notify``s that announce it at commit. How many
        games went."""
        if not game_ids:
            return 0
        self.session.execute(delete(EVENTS).where(EVENTS.c.game_id.in_(game_ids)))
        self.session.execute(update(KEYS).where(KEYS.c.game_id.in_(game_ids)).values(_KEYS_GONE))
        result = self.session.execute(delete(GAMES).where(GAMES.c.id.in_(game_ids)))
        assert isinstance(result, CursorResult)
        for channel in sorted({n.channel for n in notify}):
            payloads = [n.payload for n in notify if n.channel == channel]
            self.session.execute(_NOTIFY_EACH, {"channel": channel, "payloads": payloads})
        return result.rowcount


class EventRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def append(self, game_id: str, seq: int, event: GameEvent, at: datetime) -> None:
        self.session.execute(_EVENT_APPEND, _event_values(game_id, seq, event, at))

    def list_after(self, game_id: str, after: int, limit: int) -> list[LoggedEvent]:
        """Events of the game with ``seq > after``, oldest first, at most ``limit``."""
        rows = self.session.execute(
            select(EVENTS.c.seq, EVENTS.c.type, EVENTS.c.at, EVENTS.c.data)
            .where(EVENTS.c.game_id == game_id, EVENTS.c.seq > after)
            .order_by(EVENTS.c.seq)
            .limit(limit)
        )
        return [LoggedEvent(row.seq, row.type, row.at, row.data) for row in rows]

    def with_seqs(self, game_id: str, seqs: Sequence[int]) -> list[LoggedEvent]:
        """Events of the game numbered ``seqs`` (at most the game's whole log), oldest
        first."""
        rows = self.session.execute(
            select(EVENTS.c.seq, EVENTS.c.type, EVENTS.c.at, EVENTS.c.data)
            .where(EVENTS.c.game_id == game_id, EVENTS.c.seq.in_(sorted(set(seqs))))
            .order_by(EVENTS.c.seq)
        )
        return [LoggedEvent(row.seq, row.type, row.at, row.data) for row in rows]


class IdempotencyRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def get(
        self, key_hash: str, *, for_update: bool = False, nowait: bool = False
    ) -> IdempotencyKey | None:
        """The key's row; ``for_update`` locks it (PostgreSQL), and with ``nowait`` a row
        locked by another transaction raises at once (see ``is_lock_not_available``)."""
        statement = select(IdempotencyKey).where(IdempotencyKey.key_hash == key_hash)
        if for_update:
            statement = statement.with_for_update(nowait=nowait).execution_options(
                populate_existing=True
            )
        return self.session.scalars(statement).one_or_none()

    def try_insert(self, row: IdempotencyKey) -> bool:
        """Insert ``row`` unless its ``key_hash`` exists; False when it does.

        ``INSERT ... ON CONFLICT DO NOTHING`` leaves the transaction usable either way.
        When inserted, ``row`` joins the session: later changes to it are flushed as an
        UPDATE.
        """
        from sqlalchemy.orm import make_transient_to_detached

        values = {column.key: getattr(row, column.key) for column in KEYS.columns}
        statement = (
            _dialect_insert(self.session)(KEYS)
            .values(values)
            .on_conflict_do_nothing(index_elements=[KEYS.c.key_hash])
        )
        # Without preserve_rowcount, an INSERT's rowcount is not kept (psycopg gives -1).
        result = self.session.execute(statement.execution_options(preserve_rowcount=True))
        assert isinstance(result, CursorResult)
        if result.rowcount != 1:
            return False
        make_transient_to_detached(row)
        self.session.add(row)
        return True

    def release(self, key_hash: str) -> None:
        """Free the key of an attempt that failed, so that a retry may act: only while it
        is still in flight. An attempt whose connection was cut may have committed after
        all (its COMMIT reached the server before the cut): its stored answer stays, for
        the retry to replay instead of acting twice."""
        self.session.execute(
            delete(IdempotencyKey)
            .where(IdempotencyKey.key_hash == key_hash, IdempotencyKey.state == "in_flight")
            .execution_options(synchronize_session="fetch")
        )

    def purge_expired(self, now: datetime, limit: int | None = None) -> int:
        """Delete the keys whose ``expires_at`` is before ``now`` (at most ``limit``);
        return how many."""
        expired = KEYS.c.expires_at < now
        if limit is not None:
            batch = select(KEYS.c.key_hash).where(expired).limit(limit)
            expired = KEYS.c.key_hash.in_(batch.scalar_subquery())
        result = self.session.execute(
            delete(KEYS).where(expired).execution_options(synchronize_session=False)
        )
        assert isinstance(result, CursorResult)
        return result.rowcount


class CreationLimitRepository:
    """The game-creation limit's theoretical arrival time (TAT) per client address."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def admit(self, address: str, now_ms: int, interval_ms: int, tolerance_ms: int) -> bool:
        """Move the address's TAT one interval on if a request at ``now_ms`` fits in its
        tolerance; whether it did. One statement: an upsert whose row lock (PostgreSQL)
        serializes the address's creations until the transaction ends."""
        start = case((LIMITS.c.tat_ms > now_ms, LIMITS.c.tat_ms), else_=now_ms)
        statement = (
            _dialect_insert(self.session)(LIMITS)
            .values(address=address, tat_ms=now_ms + interval_ms)
            .on_conflict_do_update(
                index_elements=[LIMITS.c.address],
                set_={"tat_ms": start + interval_ms},
                where=start - now_ms <= tolerance_ms,
            )
            .returning(LIMITS.c.tat_ms)
        )
        return self.session.execute(statement).first() is not None

    def tat(self, address: str) -> int | None:
        return self.session.scalar(select(LIMITS.c.tat_ms).where(LIMITS.c.address == address))

    def purge_expired(self, now_ms: int, limit: int) -> int:
        """Delete at most ``limit`` rows whose TAT has passed (a missing row means the
        same); return how many."""
        batch = select(LIMITS.c.address).where(LIMITS.c.tat_ms < now_ms).limit(limit)
        result = self.session.execute(
            delete(LIMITS).where(LIMITS.c.address.in_(batch.scalar_subquery()))
        )
        assert isinstance(result, CursorResult)
        return result.rowcount
