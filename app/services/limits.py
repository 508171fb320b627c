"""Rate limits: game creation per client address, changes per game (GCRA).

The generic cell rate algorithm keeps one number per key, the theoretical arrival time
(TAT) of its next request: a request at ``now`` is admitted while ``TAT - now`` stays within
the burst's tolerance, and moves the TAT one interval on. The TAT lives in the database and
moves in the same transaction as the write it admits (``creation_limits`` by address, the
``write_tat_ms`` column of the game), so every replica sharing the database enforces the
same limit and a refused or rolled-back write costs nothing.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.persistence.repositories import CreationLimitRepository
from app.services.errors import TooManyRequests


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class Rate:
    """``per_minute`` requests a minute on average, ``burst`` of them at once; a rate of 0
    is no limit."""

    per_minute: float
    burst: int

    @property
    def on(self) -> bool:
        return self.per_minute > 0

    @property
    def interval_ms(self) -> int:
        """The time one request uses up."""
        return max(1, round(60_000 / self.per_minute))

    @property
    def tolerance_ms(self) -> int:
        """How far ahead of now the TAT may be and still admit a request."""
        return self.interval_ms * (self.burst - 1)

    def admit(self, tat_ms: int, now: int) -> int | None:
        """The key's next TAT when a request at ``now`` is admitted, else None."""
        start = max(tat_ms, now)
        if start - now > self.tolerance_ms:
            return None
        return start + self.interval_ms

    def retry_after(self, tat_ms: int, now: int) -> int:
        """Whole seconds until a refused request would be admitted (at least 1)."""
        return max(1, math.ceil((tat_ms - self.tolerance_ms - now) / 1000))


UNLIMITED = Rate(0, 1)


def limit_game_creation(session: Session, rate: Rate, address: str) -> None:
    """Admit one game creation from ``address`` in ``session`` (the transaction that stores
    the game), or raise 429 ``too-many-requests``."""
    if not rate.on:
        return
    now = now_ms()
    repository = CreationLimitRepository(session)
    if repository.admit(address, now, rate.interval_ms, rate.tolerance_ms):
        return
    tat = repository.tat(address)
    raise TooManyRequests(
        f"Too many games created from {address}: at most {rate.burst} at once and "
        f"{rate.per_minute:g} a minute.",
        retry_after=rate.retry_after(now if tat is None else tat, now),
    )


def limit_game_write(rate: Rate, game_id: str, tat_ms: int, now: int) -> int:
    """The game's next TAT when a change at ``now`` is admitted, or 429."""
    if not rate.on:
        return tat_ms
    admitted = rate.admit(tat_ms, now)
    if admitted is None:
        raise TooManyRequests(
            f"Too many changes to game {game_id}: at most {rate.burst} at once and "
            f"{rate.per_minute:g} a minute.",
            retry_after=rate.retry_after(tat_ms, now),
        )
    return admitted
