"""The queries of the game-creation limits (``app/services/client_limits.py``)."""

from __future__ import annotations

from sqlalchemy import Connection, CursorResult, case, delete, select

from app.persistence.statements import dialect_insert
from app.persistence.tables import CREATION_LIMITS


class CreationLimitRepository:
    """The game-creation limit's theoretical arrival time (TAT) per client address."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def admit(self, address: str, now_ms: int, interval_ms: int, tolerance_ms: int) -> bool:
        """Move the address's TAT one interval on if a request at ``now_ms`` fits in its
        tolerance; whether it did. One statement: an upsert whose row lock (PostgreSQL)
        serializes the address's creations until the transaction ends."""
        start = case((CREATION_LIMITS.c.tat_ms > now_ms, CREATION_LIMITS.c.tat_ms), else_=now_ms)
        statement = (
            dialect_insert(self.connection)(CREATION_LIMITS)
            .values(address=address, tat_ms=now_ms + interval_ms)
            .on_conflict_do_update(
                index_elements=[CREATION_LIMITS.c.address],
                set_={"tat_ms": start + interval_ms},
                where=start - now_ms <= tolerance_ms,
            )
            .returning(CREATION_LIMITS.c.tat_ms)
        )
        return self.connection.execute(statement).first() is not None

    def tat(self, address: str) -> int | None:
        return self.connection.scalar(
            select(CREATION_LIMITS.c.tat_ms).where(CREATION_LIMITS.c.address == address)
        )

    def purge_expired(self, now_ms: int, limit: int) -> int:
        """Delete at most ``limit`` rows whose TAT has passed (a missing row means the
        same); return how many."""
        batch = (
            select(CREATION_LIMITS.c.address).where(CREATION_LIMITS.c.tat_ms < now_ms).limit(limit)
        )
        result = self.connection.execute(
            delete(CREATION_LIMITS).where(CREATION_LIMITS.c.address.in_(batch.scalar_subquery()))
        )
        assert isinstance(result, CursorResult)
        return result.rowcount
