"""The write gate: at most ``slots`` changes of stored games run at once.

Every stored-game route runs in the threadpool (``THREADPOOL_SIZE`` threads). A change
may wait on a lock (another writer's row lock on PostgreSQL, the write lock on SQLite) for
up to ``DB_LOCK_TIMEOUT_MS``; without a gate, a burst of changes to one locked game takes
every thread and reads of *other* games queue behind them. The gate admits a change to
the threadpool only while fewer than ``slots`` (less than the threadpool) run, so a thread
is always left for reads. A change waits for a slot here, on the event loop (no thread
held), for at most ``wait_s`` seconds, then gets a 503 ``service-unavailable`` with
``Retry-After``.
"""

from __future__ import annotations

import anyio
from prometheus_client import Counter
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.problems import PROBLEM_MEDIA_TYPE, problem_body, problem_bytes

REFUSED = Counter(
    "write_gate_refused_total",
    "Changes answered 503 because no write slot freed up within DB_POOL_TIMEOUT_MS.",
)

GATED_PREFIX = "/v1/games"
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# POSTs on a stored game that compute from it and store nothing: reads.
COMPUTE_ONLY_SUFFIXES = ("/gain-adjustments", "/final-scores")


class WriteGate:
    def __init__(self, app: ASGIApp, *, slots: int, wait_s: float, retry_after_seconds: int):
        self.app = app
        self.slots = slots
        self.wait_s = wait_s
        self.retry_after = str(retry_after_seconds).encode()
        self._semaphore = anyio.Semaphore(slots)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] in READ_METHODS
            or not scope["path"].startswith(GATED_PREFIX)
            or scope["path"].rstrip("/").endswith(COMPUTE_ONLY_SUFFIXES)
        ):
            await self.app(scope, receive, send)
            return
        admitted = False
        with anyio.move_on_after(self.wait_s):
            await self._semaphore.acquire()
            admitted = True
        if not admitted:
            REFUSED.inc()
            await self._busy(scope, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self._semaphore.release()

    async def _busy(self, scope: Scope, send: Send) -> None:
        body = problem_bytes(
            problem_body(
                "service-unavailable",
                detail=(
                    f"{self.slots} changes are already waiting on the database; retry shortly."
                ),
                instance=scope["path"],
            )
        )
        headers = [
            (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"retry-after", self.retry_after),
        ]
        await send({"type": "http.response.start", "status": 503, "headers": headers})
        await send({"type": "http.response.body", "body": body})
