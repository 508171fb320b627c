"""The followers of a game, as the hub (``app/services/live.py``) feeds them: each one's
buffer of the events it has not taken yet, bounded in events and in bytes, and why it
ended; and the channel of a game, which ends the followers whose token was replaced."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from app.domain.game import closed_seat
from app.services.stored import LoggedEvent

__all__ = ["END_REASONS", "Channel", "Delivery", "Subscription", "as_delivery"]

#: Why a follower's stream ends (docs/api.md, "Following a game live"): its time bound,
#: the process shutting down, the client falling too far behind, its token replaced or
#: revoked, its game deleted, a newer follower of its seat past the seat's bound.
END_REASONS = ("time-bound", "shutdown", "behind", "token", "gone", "superseded")


@dataclass(frozen=True, slots=True)
class Delivery:
    """One event as a follower sends it: its seq and its rendered frame, and the seat
    whose token it replaced or revoked, if it did."""

    seq: int
    frame: bytes
    closes: str | None = None


def as_delivery(event: LoggedEvent, render: Callable[[LoggedEvent], bytes]) -> Delivery:
    return Delivery(event.seq, render(event), closed_seat(event.type, event.data))


class Subscription:
    """One follower of one game: a buffer of deliveries, filled by the hub, of at most
    ``max_events`` events and ``max_bytes`` bytes of frames; it follows with the token of
    ``seat``, valid at version ``since`` (None: not ended by token changes), and
    subscribed at loop time ``at`` (a read of the log after it holds every event this
    follower is not handed live)."""

    def __init__(
        self,
        game_id: str,
        *,
        max_events: int,
        max_bytes: int,
        seat: str | None = None,
        since: int = 0,
        at: float = 0.0,
        covered: int | None = None,
    ) -> None:
        self.game_id = game_id
        self.max_events = max_events
        self.max_bytes = max_bytes
        self.seat = seat
        self.since = since
        self.at = at
        # The seq its replay must reach, when known (else: up to the log's end read after
        # ``at``); what comes after is handed to it live.
        self.covered = covered
        # Why it ended, one of END_REASONS (None while it goes on).
        self.ended: str | None = None
        # A list and a future made only while waiting, rather than a deque and an
        # asyncio.Event: each of those holds a block of its own, and a process keeps one
        # subscription per open stream (bench/RESULTS.md, "An open stream's memory").
        self._items: list[Delivery] = []
        self._bytes = 0
        self._waiter: asyncio.Future[None] | None = None

    def offer(self, deliveries: list[Delivery]) -> None:
        """Buffer ``deliveries``; a follower that has not taken what it was given before
        and would pass a bound is ended instead (its client resumes by its last id). An
        empty buffer takes any batch: a batch is at most one page of the log, and a
        follower that keeps up must not be ended for the size of what came at once."""
        if self.ended is not None:
            return
        size = sum(len(item.frame) for item in deliveries)
        if self._items and (
            len(self._items) + len(deliveries) > self.max_events
            or self._bytes + size > self.max_bytes
        ):
            self.end("behind")
            return
        self._items.extend(deliveries)
        self._bytes += size
        self._wake()

    def end(self, reason: str) -> None:
        if self.ended is None:
            self.ended = reason
        self._items = []
        self._bytes = 0
        self._wake()

    async def next(self, timeout: float) -> list[Delivery]:
        """What arrived, waiting up to ``timeout`` seconds; empty when nothing did."""
        if not self._items and self.ended is None:
            loop = asyncio.get_running_loop()
            self._waiter = waiter = loop.create_future()
            timer = loop.call_later(timeout, _release, waiter)
            try:
                await waiter
            finally:
                timer.cancel()
                self._waiter = None
        items, self._items, self._bytes = self._items, [], 0
        return items

    def _wake(self) -> None:
        if self._waiter is not None:
            _release(self._waiter)


def _release(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


@dataclass(eq=False)
class Channel:
    """The followers of one game, and how far the hub has read its log for them."""

    known: int
    target: int
    since: float  # the loop time it was made at
    subscribers: set[Subscription] = field(default_factory=set)
    reader: asyncio.Task[None] | None = None
    # The seq at which each seat's token was last replaced or revoked, as delivered.
    closed: dict[str, int] = field(default_factory=dict)

    def close_seats(self, deliveries: list[Delivery]) -> None:
        """End the subscribers whose token an event of ``deliveries`` replaced."""
        for delivery in deliveries:
            if delivery.closes is not None:
                self.closed[delivery.closes] = delivery.seq
                for subscription in list(self.subscribers):
                    if subscription.seat == delivery.closes and subscription.since < delivery.seq:
                        subscription.end("token")
