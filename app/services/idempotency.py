"""Idempotency-Key handling for the two POSTs that create things (API.md).

A first request records the key as in flight in its own short transaction, so that a
concurrent retry sees it (409) instead of waiting. The work and the stored answer then
commit together: an answer is replayable exactly when its change is durable. A request
that fails (any error) releases the key, so the client may retry it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TypeVar

from sqlalchemy.orm import Session

from app.persistence.db import Database
from app.persistence.models import IdempotencyKey, utcnow
from app.persistence.repositories import IdempotencyRepository
from app.services.errors import IdempotencyInFlight, IdempotencyKeyReused
from app.services.tokens import idempotency_key_hash, seal, unseal

# A crashed first attempt holds its key this long before a retry may take it over.
IN_FLIGHT_LEASE = timedelta(seconds=30)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    status_code: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    replayed: bool = False


def request_fingerprint(*parts: str | bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\x00")
    return digest.hexdigest()


class Idempotency:
    def __init__(self, db: Database, ttl: timedelta) -> None:
        self.db = db
        self.ttl = ttl

    def run(
        self,
        scope: str,
        key: str | None,
        fingerprint: str,
        work: Callable[[Session], T],
        render: Callable[[T], StoredAnswer],
    ) -> StoredAnswer:
        """Do ``work`` in one write transaction and return ``render(result)``; with a key,
        replay the first answer for a retry with the same request instead."""
        if key is None:
            with self.db.transaction(write=True) as session:
                return render(work(session))

        key_hash = idempotency_key_hash(scope, key)
        replay = self._claim(key_hash, fingerprint, scope, key)
        if replay is not None:
            return replay
        try:
            with self.db.transaction(write=True) as session:
                answer = render(work(session))
                row = IdempotencyRepository(session).get(key_hash, for_update=True)
                if row is not None:
                    row.state = "completed"
                    row.status_code = answer.status_code
                    row.headers = dict(answer.headers)
                    row.body = seal(scope, key, answer.body)
                return answer
        except BaseException:
            self._release(key_hash)
            raise

    def _claim(self, key_hash: str, fingerprint: str, scope: str, key: str) -> StoredAnswer | None:
        now = utcnow()
        with self.db.transaction(write=True) as session:
            repo = IdempotencyRepository(session)
            repo.purge_expired(now)
            fresh = IdempotencyKey(
                key_hash=key_hash,
                request_hash=fingerprint,
                state="in_flight",
                locked_until=now + IN_FLIGHT_LEASE,
                created_at=now,
                expires_at=now + self.ttl,
            )
            if repo.try_insert(fresh):
                return None
            row = repo.get(key_hash, for_update=True)
            if row is None:  # expired and purged between the two statements
                repo.try_insert(fresh)
                return None
            if row.request_hash != fingerprint:
                raise IdempotencyKeyReused(
                    "This Idempotency-Key was used with a different request; use a new key."
                )
            if row.state == "completed" and row.body is not None and row.status_code is not None:
                return StoredAnswer(
                    status_code=row.status_code,
                    body=unseal(scope, key, row.body),
                    headers=dict(row.headers or {}),
                    replayed=True,
                )
            if row.locked_until > now:
                raise IdempotencyInFlight(
                    "The first request with this Idempotency-Key is still being processed; "
                    "retry shortly."
                )
            row.locked_until = now + IN_FLIGHT_LEASE  # its first holder died: take over
            return None

    def _release(self, key_hash: str) -> None:
        try:
            with self.db.transaction(write=True) as session:
                IdempotencyRepository(session).delete(key_hash)
        except Exception:  # the lease expires on its own; never hide the first error
            pass
