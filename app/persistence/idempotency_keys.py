"""The queries of idempotency keys (``app/services/idempotency.py`` says what they mean)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import CursorResult, delete, select, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from app.persistence.errors import is_lock_not_available
from app.persistence.key_answers import answer_columns, answer_from
from app.persistence.models import IdempotencyKey
from app.persistence.statements import KEYS, dialect_insert
from app.services.storage import KeyLocked, KeyTaken
from app.services.stored import KeyRecord, Outcome


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
            dialect_insert(self.session)(KEYS)
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


class IdempotencyKeys:
    """The storage port's ``IdempotencyKeys`` on the queries above: plain records in and
    out, and the port's errors for a key that exists or is locked by another attempt."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.rows = IdempotencyRepository(session)

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
        row = IdempotencyKey(
            key_hash=record.key_hash,
            request_hash=record.request_hash,
            state=record.state,
            locked_until=record.locked_until,
            created_at=record.created_at,
            expires_at=record.expires_at,
        )
        if not self.rows.try_insert(row):
            raise KeyTaken(record.key_hash)

    def extend_lease(self, key_hash: str, locked_until: datetime) -> None:
        self.session.execute(
            update(KEYS).where(KEYS.c.key_hash == key_hash).values(locked_until=locked_until)
        )

    def complete(
        self,
        key_hash: str,
        *,
        game_id: str | None,
        outcome: Outcome,
        version: int,
        body: bytes,
    ) -> None:
        self.session.execute(
            update(KEYS)
            .where(KEYS.c.key_hash == key_hash)
            .values(
                state="completed",
                game_id=game_id,
                body=body,
                **answer_columns(outcome, game_id, version),
            )
        )

    def release(self, key_hash: str) -> None:
        self.rows.release(key_hash)

    def purge_expired(self, now: datetime, limit: int | None = None) -> int:
        return self.rows.purge_expired(now, limit)


def _record(row: IdempotencyKey) -> KeyRecord:
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
