"""Replays of games' logs, read in pages shared by every follower of this process.

A follower that resumes from seq N first gets the logged events after N. Read for each
follower, that costs one read of the log and one rendering of each event per follower:
a thousand replays of a long log were a thousand reads queued on the request threads and
a thousand rendered copies of the log in memory. Here a log is cut into aligned pages
(seqs 1-100, 101-200, ...); a page is read and rendered once, by one read on this module's
own small limiter (never a request thread), and every follower reading that range
awaits that read or takes the page it left. The log only grows (events are deleted with
their game, never changed), so a full page stays true for good; the last page of a log
is true for a follower only if it was read after the follower subscribed, since what
was committed before that is not delivered to it live.

Pages are kept in a small cache bounded in bytes (least recently used first out), so
the memory of replays does not grow with the followers.
"""

from __future__ import annotations

import asyncio
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

__all__ = ["PAGE_EVENTS", "Page", "ReplayPages"]

PAGE_EVENTS = 100  # events per page: page k holds seqs k*100+1 .. (k+1)*100
CACHE_BYTES = 4 << 20  # rendered pages kept for the next replays, all games together
# What a kept page costs besides its frames (its tuples, its key, the cache's entry), so
# that pages with few events or none (a resume past the end of a log) are bounded too.
PAGE_OVERHEAD_BYTES = 512


@dataclass(frozen=True, slots=True, eq=False)
class Page:
    """Page ``index`` of a game's log as a reader found it at loop time ``read_at``: its
    events' seqs, each one's offset in ``body`` (their SSE frames, one after the other)."""

    index: int
    read_at: float
    seqs: tuple[int, ...]
    offsets: tuple[int, ...]
    body: bytes

    @property
    def full(self) -> bool:
        return len(self.seqs) == PAGE_EVENTS

    @property
    def last(self) -> int:
        return self.seqs[-1] if self.seqs else self.index * PAGE_EVENTS

    def after(self, seq: int) -> bytes:
        """The frames of the events after ``seq`` (empty when there are none)."""
        start = bisect_right(self.seqs, seq)
        if start == 0:
            return self.body
        return self.body[self.offsets[start] :] if start < len(self.seqs) else b""


#: Reads and renders page ``index`` of a game's log: each event's seq and SSE frame.
PageReader = Callable[[str, int], Awaitable[list[tuple[int, bytes]]]]


class ReplayPages:
    """The pages of games' logs, read once for every follower that needs them."""

    def __init__(self, read: PageReader, *, cache_bytes: int = CACHE_BYTES) -> None:
        self.read = read
        self.cache_bytes = cache_bytes
        self._cached: OrderedDict[tuple[str, int], Page] = OrderedDict()
        self._cached_bytes = 0
        # The reads under way: each one's task and the loop time it started at.
        self._reading: dict[tuple[str, int], tuple[asyncio.Task[Page], float]] = {}

    async def page(
        self, game_id: str, index: int, not_before: float, upto: int | None = None
    ) -> Page:
        """Page ``index`` of the game's log: a full one, one that reaches seq ``upto``
        (when given), or one read at loop time ``not_before`` or later (it then holds
        every event committed before it)."""
        key = (game_id, index)

        def enough(page: Page) -> bool:
            return (
                page.full or page.read_at >= not_before or (upto is not None and page.last >= upto)
            )

        cached = self._cached.get(key)
        if cached is not None and enough(cached):
            self._cached.move_to_end(key)
            return cached
        reading = self._reading.get(key)
        if reading is not None and reading[1] < not_before:
            # Started too early to be sure of the last page, but most pages are full.
            page = await asyncio.shield(reading[0])
            if enough(page):
                return page
            reading = self._reading.get(key)
        if reading is None or reading[1] < not_before:
            reading = self._start(key)
        # shield: a follower that goes away does not cancel the read the others await.
        return await asyncio.shield(reading[0])

    def _start(self, key: tuple[str, int]) -> tuple[asyncio.Task[Page], float]:
        loop = asyncio.get_running_loop()
        now = loop.time()
        reading = self._reading[key] = (loop.create_task(self._read(key, now)), now)

        def done(task: asyncio.Task[Page]) -> None:
            if self._reading.get(key) is reading:
                del self._reading[key]
            if not task.cancelled():
                task.exception()  # retrieved here too: its followers may all be gone

        reading[0].add_done_callback(done)
        return reading

    async def _read(self, key: tuple[str, int], read_at: float) -> Page:
        frames = await self.read(*key)
        offsets, position = [], 0
        for _, frame in frames:
            offsets.append(position)
            position += len(frame)
        page = Page(
            key[1],
            read_at,
            tuple(seq for seq, _ in frames),
            tuple(offsets),
            b"".join(frame for _, frame in frames),
        )
        self._keep(key, page)
        return page

    def _keep(self, key: tuple[str, int], page: Page) -> None:
        previous = self._cached.pop(key, None)
        if previous is not None:
            self._cached_bytes -= _cost(previous)
        self._cached[key] = page
        self._cached_bytes += _cost(page)
        while self._cached_bytes > self.cache_bytes and self._cached:
            _, evicted = self._cached.popitem(last=False)
            self._cached_bytes -= _cost(evicted)

    def forget(self, game_id: str) -> None:
        """Drop the game's pages (it was deleted)."""
        for key in [key for key in self._cached if key[0] == game_id]:
            self._cached_bytes -= _cost(self._cached.pop(key))


def _cost(page: Page) -> int:
    return len(page.body) + 16 * len(page.seqs) + PAGE_OVERHEAD_BYTES
