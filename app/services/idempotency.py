"""Idempotency-Key handling for every POST that changes something (docs/api.md, Idempotency).

A first request records its key as in flight in a short transaction of its own. The work
then runs in a second transaction that starts by locking that row, and stores the answer
in it before committing: an answer is replayable exactly when its change is durable.

Who is still in flight? On PostgreSQL the row lock says so exactly: a retry that finds
the row locked gets 409 ``idempotency-in-flight``; one that can take the lock knows the
first attempt died (a crash, a database outage) and takes over at once. A request that
fails releases its key so the client may retry it.

SQLite serializes every writer, so a retry never overlaps the work: there the claim, the
work and the answer are one transaction, and a key is never seen in flight (a retry waits
for the database's lock, then replays the answer); one that fails or dies stores nothing,
its key included. An in-flight row left by an earlier release, whose short lease has not
run out, still answers 409.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

from anyio import to_thread

from app.domain.errors import NotFound
from app.services.errors import IdempotencyInFlight, IdempotencyKeyReused
from app.services.storage import (
    AsyncGameReads,
    IdempotencyKeys,
    KeyLocked,
    KeyTaken,
    Storage,
    UnitOfWork,
)
from app.services.stored import KeyRecord, Outcome, utcnow
from app.services.tokens import idempotency_key_hash, seal, unseal

# SQLite only: how long a first attempt that died holds its key before a retry takes over.
IN_FLIGHT_LEASE = timedelta(seconds=30)


@dataclass(frozen=True, slots=True)
class Answer:
    """What a use case that takes an Idempotency-Key answers, and a retry gets again: what
    it did, the game it did it to and that game's version after it, and the answer's
    document as the presenter rendered it."""

    outcome: Outcome
    game_id: str
    version: int
    body: bytes
    replayed: bool = False


def request_fingerprint(*parts: str | bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\x00")
    return digest.hexdigest()


def _replay(row: KeyRecord, scope: str, key: str) -> Answer | None:
    """The answer stored for the key; None while it has none; 404 when the game it acted
    on was deleted since (``UnitOfWork.delete_games`` left it so)."""
    if row.state == "completed" and row.outcome is Outcome.GAME_DELETED:
        raise NotFound("The game this Idempotency-Key acted on has been deleted since.")
    if row.state != "completed" or row.body is None or row.outcome is None:
        return None
    if row.game_id is None or row.version is None:
        return None
    return Answer(row.outcome, row.game_id, row.version, unseal(scope, key, row.body), True)


@dataclass(slots=True)
class Attempt:
    """One attempt at an idempotent operation.

    ``replay`` is the stored answer of an earlier identical request: return it and do
    nothing. Otherwise do the work in ``uow`` (the write unit of work the answer is stored
    in) and set ``answer`` (which names the game the key then belongs to).
    """

    uow: UnitOfWork | None = None
    replay: Answer | None = None
    answer: Answer | None = None


class Idempotency:
    def __init__(
        self, storage: Storage, ttl: timedelta, rows: AsyncGameReads | None = None
    ) -> None:
        self.storage = storage
        self.ttl = ttl
        #: The reads on the event loop, where the database allows them.
        self.rows = rows

    @contextmanager
    def attempt(self, scope: str, key: str | None, fingerprint: str) -> Iterator[Attempt]:
        """Claim ``key`` for this request (409 while another attempt holds it, 422 if it was
        used with another request) and open the write transaction the work runs in; without
        a key, just the transaction. The answer set on the attempt is stored, sealed, in the
        same transaction as the work: an answer is replayable exactly when its change is
        durable."""
        if key is None:
            with self.storage.unit_of_work(write=True) as uow:
                yield Attempt(uow)
            return

        key_hash = idempotency_key_hash(scope, key)
        if not self.storage.concurrent_writers:
            with self._claimed_with_the_work(key_hash, fingerprint, scope, key) as attempt:
                yield attempt
            return
        replay = self._claim(key_hash, fingerprint, scope, key)
        if replay is not None:
            yield Attempt(replay=replay)
            return
        try:
            with self.storage.unit_of_work(write=True) as uow:
                # Held until commit: this lock is what "in flight" means on PostgreSQL.
                row = uow.keys.get(key_hash, for_update=True)
                done = None if row is None else _replay(row, scope, key)
                if done is not None:
                    yield Attempt(replay=done)  # a retry took over from us and finished first
                    return
                uow.stores_an_answer = row is not None
                attempt = Attempt(uow)
                yield attempt
                if row is not None and attempt.answer is not None:
                    self._complete(uow, key_hash, scope, key, attempt.answer)
        except BaseException:
            self._release(key_hash)
            raise

    def answer(
        self,
        scope: str,
        key: str | None,
        fingerprint: str,
        work: Callable[[UnitOfWork], Answer],
        *,
        check_access: Callable[[], None] | None = None,
    ) -> Answer:
        """An idempotent operation's answer: with a key, the one stored for an earlier
        identical request, once ``check_access`` passed (a replay skips no access check);
        else what ``work`` answers in the unit of work the answer is stored in."""
        if key is not None and check_access is not None:
            check_access()
        with self.attempt(scope, key, fingerprint) as attempt:
            if attempt.replay is not None:
                return attempt.replay
            assert attempt.uow is not None
            attempt.answer = work(attempt.uow)
        return attempt.answer

    async def stored(self, scope: str, key: str) -> bool:
        """Whether ``key`` is stored for ``scope`` (an answer, or a claim in flight): on the
        event loop where the database allows it (``rows``), else on a request thread."""
        key_hash = idempotency_key_hash(scope, key)
        if self.rows is not None:
            return await self.rows.key_stored(key_hash)
        return await to_thread.run_sync(self._stored, key_hash)

    def _stored(self, key_hash: str) -> bool:
        with self.storage.unit_of_work(write=False) as uow:
            return uow.keys.get(key_hash) is not None

    @contextmanager
    def _claimed_with_the_work(
        self, key_hash: str, fingerprint: str, scope: str, key: str
    ) -> Iterator[Attempt]:
        """Where writers take turns on one lock (SQLite): the claim, the work and its answer
        in one write transaction. No other attempt can find this one in flight, and one
        that fails or dies stores nothing, its key included, so that its retry starts
        afresh; the request has one unit of work, which the event loop may run (a lock
        taken elsewhere before it sends it to a thread, app/api/platform/admission.py)."""
        with self.storage.unit_of_work(write=True) as uow:
            replay = self._claim_in(uow, key_hash, fingerprint, scope, key)
            if replay is not None:
                yield Attempt(replay=replay)
                return
            uow.stores_an_answer = True
            attempt = Attempt(uow)
            yield attempt
            if attempt.answer is not None:
                self._complete(uow, key_hash, scope, key, attempt.answer)

    @staticmethod
    def _complete(uow: UnitOfWork, key_hash: str, scope: str, key: str, answer: Answer) -> None:
        uow.keys.complete(
            key_hash,
            game_id=answer.game_id,
            outcome=answer.outcome,
            version=answer.version,
            body=seal(scope, key, answer.body),
        )

    def _claim(self, key_hash: str, fingerprint: str, scope: str, key: str) -> Answer | None:
        with self.storage.unit_of_work(write=True) as uow:
            return self._claim_in(uow, key_hash, fingerprint, scope, key)

    def _claim_in(
        self, uow: UnitOfWork, key_hash: str, fingerprint: str, scope: str, key: str
    ) -> Answer | None:
        """Claim the key in ``uow``: None when this request is to do the work, else the
        answer stored for it (409 while another attempt holds it, 422 for another request)."""
        now = utcnow()
        keys = uow.keys
        # This key's row only, if expired: what other keys left is retention's to delete,
        # in batches, never a claim's (one claim would otherwise delete whatever expired).
        keys.drop_if_expired(key_hash, now)
        fresh = KeyRecord(
            key_hash=key_hash,
            request_hash=fingerprint,
            state="in_flight",
            locked_until=now + IN_FLIGHT_LEASE,
            created_at=now,
            expires_at=now + self.ttl,
        )
        try:
            keys.insert(fresh)
            return None
        except KeyTaken:
            row = keys.get(key_hash)
        if row is None:  # expired and purged between the two statements
            with contextlib.suppress(KeyTaken):
                keys.insert(fresh)
            return None
        if row.request_hash != fingerprint:
            raise IdempotencyKeyReused(
                "This Idempotency-Key was used with a different request; use a new key."
            )
        replay = _replay(row, scope, key)
        if replay is not None:
            return replay
        if self.storage.concurrent_writers:
            row = self._locked_row(keys, key_hash)
            if row is None or (replay := _replay(row, scope, key)) is not None:
                return replay  # finished (or purged) while we looked
        elif row.locked_until > now:
            raise _in_flight()
        keys.extend_lease(key_hash, now + IN_FLIGHT_LEASE)  # its first holder died: take over
        return None

    def _locked_row(self, keys: IdempotencyKeys, key_hash: str) -> KeyRecord | None:
        try:
            return keys.get(key_hash, for_update=True, nowait=True)
        except KeyLocked:
            raise _in_flight() from None

    def _release(self, key_hash: str) -> None:
        try:
            with self.storage.unit_of_work(write=True) as uow:
                uow.keys.release(key_hash)
        except Exception:  # nothing to undo: on PostgreSQL the dead lock frees the key anyway
            pass


def _in_flight() -> IdempotencyInFlight:
    return IdempotencyInFlight(
        "The first request with this Idempotency-Key is still being processed; retry shortly."
    )
