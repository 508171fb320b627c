"""The event loop's turns counted while a test awaits something: a wait that let the loop
run other tasks counts some, one that blocked it throughout counts none."""

from __future__ import annotations

import asyncio
from types import TracebackType


class LoopTurns:
    """``async with LoopTurns() as turns: ...``; then ``turns.count``: how many times a task
    of its own ran meanwhile (every ``interval`` seconds, or every turn with 0)."""

    def __init__(self, interval: float = 0.0) -> None:
        self.interval = interval
        self.count = 0
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> LoopTurns:
        self._task = asyncio.create_task(self._counting())
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        assert self._task is not None
        self._task.cancel()

    async def _counting(self) -> None:
        while True:
            self.count += 1
            await asyncio.sleep(self.interval)
