"""Following games live: the hub that hands every committed change to the streams and
long-polls of this process.

One hub per process, on the event loop. The change feed (``app/persistence/changes.py``)
tells it "game G reached seq S", from whichever process committed; the hub then reads the
new events of G from the log once (one reader per game, however many follow it), renders
each once, and offers them to every subscriber of G.

A subscriber's buffer is bounded in events and in bytes: one that falls that far behind
is ended (its client resumes from the last id it got) instead of holding back the others
or growing without bound. A follower never trusts the hub for completeness: it replays
the log from its own cursor first (in pages shared by every follower of this process,
``replay_pages.py``), skips what it already has, and replays again when a delivery skips
a seq. So a lost or late notification costs latency, never an event, and no event is
ever given twice.

Every read of the log the hub makes runs on its own small limiters, never on the request
threads: a party that opens many replays delays replays, and no stored read or write of
another game.

A follower's stream ends when the token it follows with stops working: the hub knows the
seat each follower's token holds and the version it was checked at, and an event that
gives that seat a new token (or revokes it) after that version ends it; a game deleted
ends every follower of it. (Long-polls need nothing of this: any event wakes them, and
their next read checks the token.)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager

from anyio import to_thread

from app.services import following
from app.services.errors import TooManyStreams
from app.services.live_limits import HubLimits
from app.services.replay_pages import PAGE_EVENTS, ReplayPages
from app.services.storage import GONE, ChangeFeed, Storage
from app.services.stored import LoggedEvent
from app.services.subscriptions import Channel, Delivery, Subscription, as_delivery

__all__ = ["Delivery", "LiveHub", "LoggedEvent", "Subscription"]

logger = logging.getLogger("app.live")


class LiveHub:
    """Subscribers per game, fed from the change feed by one reader per game."""

    def __init__(
        self,
        storage: Storage,
        feed: ChangeFeed,
        render: Callable[[LoggedEvent], bytes],
        *,
        buffer_events: int,
        buffer_bytes: int,
        max_subscribers: int,
        max_per_seat: int,
        retry_after: int,
        admission_wait: float,
        observe: Callable[[int], None] = lambda count: None,
        superseded: Callable[[], None] = lambda: None,
    ) -> None:
        self.storage = storage
        self.feed = feed
        self.render = render
        self.buffer_events = buffer_events
        self.buffer_bytes = buffer_bytes
        self.max_subscribers = max_subscribers
        self.max_per_seat = max_per_seat
        self.retry_after = retry_after
        self.admission_wait = admission_wait
        self.observe = observe  # hears the number of subscribers after each change of it
        self.superseded = superseded  # hears each follower ended for a newer of its seat
        self.count = 0
        self.closed = False
        self._channels: dict[str, Channel] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self.pages = ReplayPages(self._read_page)
        self._limits: HubLimits | None = None  # made in the loop that uses them

    # ---- life -------------------------------------------------------------------------

    def _started(self) -> None:
        loop = asyncio.get_running_loop()
        if self._loop is loop:
            return
        self._loop = loop
        self._limits = HubLimits()
        self.feed.start(self._heard_threadsafe)

    def close(self) -> None:
        """End every subscriber now (their clients reconnect elsewhere) and take no more."""
        self.closed = True
        for channel in self._channels.values():
            for subscription in channel.subscribers:
                subscription.end("shutdown")

    def close_threadsafe(self) -> None:
        """``close`` from any thread or a signal handler."""
        loop = self._loop
        if loop is None or loop.is_closed():
            self.closed = True
        else:
            loop.call_soon_threadsafe(self.close)

    def stop(self) -> None:
        self.close()
        self.feed.stop()
        self._loop = None

    # ---- subscribers ------------------------------------------------------------------

    def subscribe(
        self,
        game_id: str,
        version: int,
        seat: str | None = None,
        *,
        checked_from: float | None = None,
    ) -> Subscription:
        """A new subscriber of ``game_id``, whose version a read just found at ``version``
        (checking the token of ``seat``, if given; the read began at loop time
        ``checked_from``); 503 past ``max_subscribers`` or while shutting down. A seat
        already followed ``max_per_seat`` times loses its oldest follower first."""
        if seat is not None and not self.closed:
            self._make_room_for(game_id, seat)
        if self.closed or self.count >= self.max_subscribers:
            raise TooManyStreams(
                "This process is shutting down; follow the game on another one."
                if self.closed
                else f"This process already follows games for {self.count} clients, "
                "the most it may.",
                retry_after=self.retry_after,
            )
        self._started()
        now = asyncio.get_running_loop().time()
        channel = self._channels.get(game_id)
        # Followed here since before the check began: what was committed since the check
        # was heard by the channel (up to its target) or will be handed over live, so the
        # replay needs to reach no further. Otherwise only a read of the log after this
        # moment is sure to hold everything committed before it.
        covered = (
            max(version, channel.target)
            if channel is not None and checked_from is not None and channel.since <= checked_from
            else None
        )
        if channel is None:
            channel = self._channels[game_id] = Channel(known=version, target=version, since=now)
            self.feed.watch(self._channels)
        subscription = Subscription(
            game_id,
            max_events=self.buffer_events,
            max_bytes=self.buffer_bytes,
            seat=seat,
            since=version,
            at=now,
            covered=covered,
        )
        if seat is not None and channel.closed.get(seat, 0) > version:
            subscription.end("token")  # replaced while the subscriber was on its way here
        channel.subscribers.add(subscription)
        self.count += 1
        self.observe(self.count)
        return subscription

    def _make_room_for(self, game_id: str, seat: str) -> None:
        """End and drop the oldest followers of ``seat`` until it holds fewer than
        ``max_per_seat``: the newest is the one its client is reading (a phone that lost
        its connection comes back before the process notices)."""
        channel = self._channels.get(game_id)
        if channel is None:
            return
        held = sorted((s for s in channel.subscribers if s.seat == seat), key=lambda s: s.at)
        for oldest in held[: max(0, len(held) - self.max_per_seat + 1)]:
            oldest.end("superseded")
            self.unsubscribe(oldest)
            self.superseded()

    def unsubscribe(self, subscription: Subscription) -> None:
        channel = self._channels.get(subscription.game_id)
        if channel is None or subscription not in channel.subscribers:
            return
        channel.subscribers.discard(subscription)
        self.count -= 1
        self.observe(self.count)
        if not channel.subscribers:
            del self._channels[subscription.game_id]
            self.feed.watch(self._channels)
            if channel.reader is not None:
                channel.reader.cancel()

    # ---- fan-out ------------------------------------------------------------------------

    def _heard_threadsafe(self, game_id: str, seq: int, event: LoggedEvent | None) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._heard, game_id, seq, event)

    def _heard(self, game_id: str, seq: int, event: LoggedEvent | None = None) -> None:
        channel = self._channels.get(game_id)
        if channel is None:
            return
        if seq == GONE:
            self.pages.forget(game_id)
            for subscription in list(channel.subscribers):
                subscription.end("gone")
            return
        if event is not None and seq == channel.known + 1:
            # Committed here, and next in line: no need to read it back from the log. The
            # database's own notice of this commit may have come first (on PostgreSQL it
            # is sent as the statement commits, before the unit of work's commit hooks run): a
            # read it started finds the event known and offers it to nobody again.
            channel.known = seq
            channel.target = max(channel.target, seq)
            deliveries = [as_delivery(event, self.render)]
            for subscription in list(channel.subscribers):
                subscription.offer(deliveries)
            channel.close_seats(deliveries)
            return
        if seq <= channel.target:
            return
        channel.target = seq
        if channel.reader is None:
            channel.reader = asyncio.get_running_loop().create_task(self._read(game_id, channel))

    async def _read(self, game_id: str, channel: Channel) -> None:
        try:
            while channel.target > channel.known and channel.subscribers:
                try:
                    deliveries = await self.read_log(game_id, channel.known, PAGE_EVENTS)
                except Exception as exc:  # the database is away: try again shortly
                    logger.warning("reading the events of game %s failed: %s", game_id, exc)
                    await asyncio.sleep(1)
                    continue
                if not deliveries:
                    # The notice ran ahead of what this process can see: the next one
                    # must start a read again.
                    channel.target = channel.known
                    break
                # A commit of this process may have handed some over during the read.
                fresh = [delivery for delivery in deliveries if delivery.seq > channel.known]
                if fresh:
                    channel.known = fresh[-1].seq
                    for subscription in list(channel.subscribers):
                        subscription.offer(fresh)
                    channel.close_seats(fresh)
        finally:
            channel.reader = None

    async def read_log(self, game_id: str, after: int, limit: int) -> list[Delivery]:
        """The game's logged events after ``after``, rendered (read in a thread of the
        hub's own)."""

        def read() -> list[Delivery]:
            with self.storage.unit_of_work(write=False) as uow:
                events = uow.events.list_after(game_id, after, limit)
            return [as_delivery(e, self.render) for e in events]

        return await to_thread.run_sync(read, limiter=self.limits.live_reads)

    async def _read_page(self, game_id: str, index: int) -> list[tuple[int, bytes]]:
        """Page ``index`` of the game's log for replays: each event's seq and frame."""

        def read() -> list[tuple[int, bytes]]:
            with self.storage.unit_of_work(write=False) as uow:
                events = uow.events.list_after(game_id, index * PAGE_EVENTS, PAGE_EVENTS)
            return [(e.seq, self.render(e)) for e in events]

        return await to_thread.run_sync(read, limiter=self.limits.replay_reads)

    @property
    def limits(self) -> HubLimits:
        self._started()
        assert self._limits is not None
        return self._limits

    def admitting(self) -> AbstractAsyncContextManager[None]:
        """Held by a new stream while its token is checked; 503 after ``admission_wait``
        seconds in line."""
        return self.limits.admitting(self.admission_wait, self.retry_after)

    # ---- followers (following.py) -------------------------------------------------------

    def follow(
        self,
        subscription: Subscription,
        after: int,
        *,
        heartbeat: float,
        max_seconds: float,
    ) -> AsyncIterator[bytes | None]:
        """The subscription's stream (``following.follow``)."""
        return following.follow(
            self, subscription, after, heartbeat=heartbeat, max_seconds=max_seconds
        )

    async def wait_after(
        self, game_id: str, version: int, after: int, seconds: float, seat: str
    ) -> str | None:
        """Return once the game has an event after ``after``, or after ``seconds``, or with
        why the service ended the wait; a waiting long-poll counts as a follower of ``seat``."""
        return await following.wait_after(self, game_id, version, after, seconds, seat)
