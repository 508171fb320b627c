"""What a follower of a game gets from the hub (``live.py``): its stream, every event after
its cursor in order and each once, and its long-poll, which returns at the next event."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from app.services.replay_pages import PAGE_EVENTS
from app.services.subscriptions import Subscription

if TYPE_CHECKING:
    from app.services.live import LiveHub


async def follow(
    hub: LiveHub,
    subscription: Subscription,
    after: int,
    *,
    heartbeat: float,
    max_seconds: float,
) -> AsyncIterator[bytes | None]:
    """Every event of the subscription's game after ``after`` in order, each once: the
    logged ones (a page's frames at a time), then live ones as they come; None when
    ``heartbeat`` seconds passed with none. Ends after ``max_seconds``, when the
    subscriber falls too far behind, or at shutdown (the client resumes from the last
    seq it got), with ``subscription.ended`` saying why; unsubscribes at the end.
    """
    game_id = subscription.game_id
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max_seconds
        cursor = after
        # Replay the log while this is set: what the follower is not handed live is in
        # a page read at this loop time or later (those committed before it subscribed,
        # then those a gap in deliveries showed committed), or up to seq ``upto``.
        replay_since: float | None = subscription.at
        upto = subscription.covered
        while True:
            while replay_since is not None:
                index = cursor // PAGE_EVENTS
                page = await hub.pages.page(game_id, index, replay_since, upto)
                if subscription.ended is not None:
                    return
                chunk = page.after(cursor)
                if chunk:
                    yield chunk
                    cursor = page.last
                if not page.full or (upto is not None and cursor >= upto):
                    replay_since = None  # the end of the log, or of what was missed
            remaining = deadline - loop.time()
            if subscription.ended is not None:
                return
            if remaining <= 0:
                subscription.end("time-bound")
                return
            deliveries = await subscription.next(min(heartbeat, remaining))
            if subscription.ended is not None:
                return
            if not deliveries:
                if loop.time() < deadline:
                    yield None
                continue
            for item in deliveries:
                if item.seq <= cursor:
                    continue  # already sent from the log
                if item.seq != cursor + 1:
                    # A gap: the log has what is missing, up to this batch's last.
                    replay_since, upto = loop.time(), deliveries[-1].seq
                    break
                yield item.frame
                cursor = item.seq
    finally:
        hub.unsubscribe(subscription)


async def wait_after(
    hub: LiveHub, game_id: str, version: int, after: int, seconds: float, seat: str
) -> str | None:
    """Return once the game has an event after ``after``, or after ``seconds``, or once the
    service ends the wait (a newer follower of ``seat`` takes its place, the token is
    refused, the game is deleted, the process shuts down): then with why, as a stream's
    ``: end`` line says it."""
    subscription = hub.subscribe(game_id, version, seat)
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        # Committed before the subscription could hear it?
        if await hub.read_log(game_id, after, 1):
            return None
        while (remaining := deadline - loop.time()) > 0 and subscription.ended is None:
            deliveries = await subscription.next(remaining)
            if any(delivery.seq > after for delivery in deliveries):
                return None
        return subscription.ended
    finally:
        hub.unsubscribe(subscription)
