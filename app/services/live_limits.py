"""What the live hub may take at once, apart from the request threads: its own threads
reading the log, and the streams whose token is being checked.

Made in the event loop that uses them (anyio's limiters and asyncio's semaphores belong
to one loop)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from anyio import CapacityLimiter

from app.services.errors import TooManyStreams

__all__ = ["HubLimits"]

# Threads reading the log for the hub, apart from the request threads (THREADPOOL_SIZE):
# replays, and reads of events committed by other processes (and long-polls' first look).
REPLAY_READERS = 2
LIVE_READERS = 2
# New streams whose token is checked at once (a check reads on the event loop, or takes a
# request thread with DB_ASYNC_READS=false or when that read would wait): a flood of
# streams waits on the event loop and leaves the other routes theirs.
STREAM_ADMISSIONS = 2


class HubLimits:
    def __init__(self) -> None:
        self.replay_reads = CapacityLimiter(REPLAY_READERS)
        self.live_reads = CapacityLimiter(LIVE_READERS)
        self._admissions = asyncio.Semaphore(STREAM_ADMISSIONS)

    @asynccontextmanager
    async def admitting(self, wait: float, retry_after: int) -> AsyncIterator[None]:
        """One of the few places for a stream's token check, waited for at most ``wait``
        seconds (then 503 too-many-streams)."""
        try:
            async with asyncio.timeout(wait):
                await self._admissions.acquire()
        except TimeoutError:
            raise TooManyStreams(
                "This process is admitting many streams at once; try again shortly.",
                retry_after=retry_after,
            ) from None
        try:
            yield
        finally:
            self._admissions.release()
