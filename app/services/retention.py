"""Retention: what the service deletes on its own, so that storage stays bounded.

- games idle (no change) for longer than the retention, with their events and idempotency
  keys (``deletion.py``, as when their host deletes them);
- idempotency keys past their expiry;
- creation-limit rows whose theoretical arrival time has passed (a missing row means the
  same thing).

A sweep deletes at most one batch of each, each batch in a short transaction of its own, so
that it never holds locks for long; ``purge`` sweeps until nothing is left. Replicas may
sweep at once: on PostgreSQL a sweep skips the games another transaction has locked.
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from anyio import to_thread

from app.services.storage import ChangeFeed, Storage
from app.services.stored import utcnow

logger = logging.getLogger("app.retention")
# Its own generator: drawing from the global one would shift the sequence of any other user
# of ``random`` in the process (seeded test generators among them).
_JITTER = random.SystemRandom()


@dataclass(frozen=True, slots=True)
class Purged:
    """How many rows of each kind a sweep deleted."""

    games: int = 0
    idempotency_keys: int = 0
    creation_limits: int = 0

    def __add__(self, other: Purged) -> Purged:
        return Purged(
            self.games + other.games,
            self.idempotency_keys + other.idempotency_keys,
            self.creation_limits + other.creation_limits,
        )

    def __str__(self) -> str:
        return (
            f"{self.games} idle games (with their events), {self.idempotency_keys} expired "
            f"idempotency keys, {self.creation_limits} expired creation limits"
        )


class Retention:
    def __init__(
        self,
        storage: Storage,
        *,
        retention_days: float,
        batch_size: int,
        changes: ChangeFeed | None = None,
    ) -> None:
        """``retention_days`` 0 keeps games forever (expired keys and limits still go);
        ``changes`` tells whoever follows a deleted game."""
        self.storage = storage
        self.retention = timedelta(days=retention_days) if retention_days > 0 else None
        self.batch_size = batch_size
        self.changes = changes

    def idle_before(self, now: datetime) -> datetime | None:
        """Games whose last change is older than this are deleted."""
        return None if self.retention is None else now - self.retention

    def sweep(self, now: datetime | None = None) -> Purged:
        """Delete at most one batch of each kind."""
        now = now or utcnow()
        games = 0
        before = self.idle_before(now)
        if before is not None:
            with self.storage.unit_of_work(write=True) as uow:
                idle = uow.games.idle_since(before, self.batch_size, lock=True)
                games = uow.delete_games(idle, self.changes)
        with self.storage.unit_of_work(write=True) as uow:
            keys = uow.keys.purge_expired(now, self.batch_size)
        with self.storage.unit_of_work(write=True) as uow:
            limits = uow.limits.purge_expired(int(now.timestamp() * 1000), self.batch_size)
        return Purged(games, keys, limits)

    def purge(self, now: datetime | None = None) -> Purged:
        """Sweep until a sweep finds less than a full batch of anything."""
        now = now or utcnow()
        total = Purged()
        while True:
            purged = self.sweep(now)
            total += purged
            if max(purged.games, purged.idempotency_keys, purged.creation_limits) < (
                self.batch_size
            ):
                return total


async def sweep_periodically(retention: Retention, interval_seconds: float) -> None:
    """Sweep every ``interval_seconds`` until cancelled; the first sweep comes at a random
    point of the first interval, so that replicas started together do not sweep together.
    A failed sweep (e.g. the database is down) is logged and tried again next time."""
    delay = _JITTER.uniform(0, interval_seconds)
    while True:
        await asyncio.sleep(delay)
        delay = interval_seconds
        try:
            purged = await to_thread.run_sync(retention.sweep)
        except Exception:
            logger.warning("retention sweep failed; trying again later", exc_info=True)
            continue
        if purged != Purged():
            logger.info("retention sweep deleted %s", purged)
