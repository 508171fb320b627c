"""The queries of idempotency keys (``app/services/idempotency.py`` says what they mean).

Those a keyed request runs are declared once in ``statements.py`` and sent as the driver's
SQL (``driver_statements.py``): built per call, they cost a keyed change more than its
change did (bench/RESULTS.md). The retention sweep's batched purge is built per call."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, CursorResult, delete, select
from sqlalchemy.exc import DBAPIError

from app.persistence.driver_statements import key_statements
from app.persistence.errors import is_lock_not_available
from app.persistence.key_answers import answer_columns, answer_from
from app.persistence.statements import KEY_CLAIM_COLUMNS
from app.persistence.tables import IDEMPOTENCY_KEYS
from app.services.storage import KeyLocked, KeyTaken
from app.services.stored import KeyRecord, Outcome

CLAIMED = frozenset(KEY_CLAIM_COLUMNS)


class IdempotencyRepository:
    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self._statements = key_statements(connection.dialect)

    def get(self, key_hash: str, *, for_update: bool = False, nowait: bool = False) -> Any:
        """The key's row (its columns by name) or None; ``for_update`` locks it
        (PostgreSQL), and with ``nowait`` a row locked by another transaction raises at
        once (see ``is_lock_not_available``)."""
        statements = self._statements
        if for_update:
            statement = statements.row_locked_nowait if nowait else statements.row_locked
        else:
            statement = statements.row
        return statement.one_or_none(self.connection, {"key_hash": key_hash})

    def try_insert(self, values: dict[str, Any]) -> bool:
        """Insert a key's row of ``values`` (``KEY_CLAIM_COLUMNS``; ``game_id`` may be left
        out) unless its ``key_hash`` exists; False when it does."""
        if not values.keys() <= CLAIMED:
            raise ValueError(f"a key's claim stores {KEY_CLAIM_COLUMNS}, not {sorted(values)}")
        claim = {f"new_{column}": values.get(column) for column in KEY_CLAIM_COLUMNS}
        return self._statements.claim.first_row(self.connection, claim) is not None

    def extend_lease(self, key_hash: str, locked_until: datetime) -> None:
        self._statements.lease.execute(
            self.connection, {"key_hash": key_hash, "new_locked_until": locked_until}
        )

    def complete(self, key_hash: str, values: dict[str, Any]) -> None:
        """The key's answer (``state``, ``game_id``, ``body``, ``status_code``,
        ``headers``)."""
        completed = {f"new_{column}": value for column, value in values.items()}
        self._statements.complete.execute(self.connection, {"key_hash": key_hash, **completed})

    def release(self, key_hash: str) -> None:
        """Free the key of an attempt that failed, so that a retry may act: only while it
        is still in flight. An attempt whose connection was cut may have committed after
        all (its COMMIT reached the server before the cut): its stored answer stays, for
        the retry to replay instead of acting twice."""
        self._statements.release.execute(self.connection, {"key_hash": key_hash})

    def drop_if_expired(self, key_hash: str, now: datetime) -> None:
        """Delete the key's row if it expired before ``now``, so that it may be claimed
        again: one row at most, whatever other keys have expired (retention's)."""
        self._statements.expired.execute(self.connection, {"key_hash": key_hash, "now": now})

    def purge_expired(self, now: datetime, limit: int) -> int:
        """Delete at most ``limit`` of the keys whose ``expires_at`` is before ``now``;
        return how many."""
        expired = IDEMPOTENCY_KEYS.c.expires_at < now
        batch = select(IDEMPOTENCY_KEYS.c.key_hash).where(expired).limit(limit)
        result = self.connection.execute(
            delete(IDEMPOTENCY_KEYS).where(IDEMPOTENCY_KEYS.c.key_hash.in_(batch.scalar_subquery()))
        )
        assert isinstance(result, CursorResult)
        return result.rowcount


class IdempotencyKeys:
    """The storage port's ``IdempotencyKeys`` on the queries above: plain records in and
    out, and the port's errors for a key that exists or is locked by another attempt."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.rows = IdempotencyRepository(connection)

    def get(
        self, key_hash: str, *, for_update: bool = False, nowait: bool = False
    ) -> KeyRecord | None:
        try:
            row = self.rows.get(key_hash, for_update=for_update, nowait=nowait)
        except DBAPIError as exc:
            if nowait and is_lock_not_available(exc):
                raise KeyLocked(key_hash) from None
            raise
        return None if row is None else _record(row)

    def insert(self, record: KeyRecord) -> None:
        row = {
            "key_hash": record.key_hash,
            "request_hash": record.request_hash,
            "state": record.state,
            "locked_until": record.locked_until,
            "created_at": record.created_at,
            "expires_at": record.expires_at,
        }
        if not self.rows.try_insert(row):
            raise KeyTaken(record.key_hash)

    def extend_lease(self, key_hash: str, locked_until: datetime) -> None:
        self.rows.extend_lease(key_hash, locked_until)

    def complete(
        self,
        key_hash: str,
        *,
        game_id: str | None,
        outcome: Outcome,
        version: int,
        body: bytes,
    ) -> None:
        answer = {"state": "completed", "game_id": game_id, "body": body}
        self.rows.complete(key_hash, answer | answer_columns(outcome, game_id, version))

    def release(self, key_hash: str) -> None:
        self.rows.release(key_hash)

    def drop_if_expired(self, key_hash: str, now: datetime) -> None:
        self.rows.drop_if_expired(key_hash, now)

    def purge_expired(self, now: datetime, limit: int) -> int:
        return self.rows.purge_expired(now, limit)


def _record(row: Any) -> KeyRecord:
    outcome, version = answer_from(row.status_code, row.headers)
    return KeyRecord(
        key_hash=row.key_hash,
        request_hash=row.request_hash,
        state=row.state,
        locked_until=row.locked_until,
        created_at=row.created_at,
        expires_at=row.expires_at,
        game_id=row.game_id,
        outcome=outcome,
        version=version,
        body=row.body,
    )
