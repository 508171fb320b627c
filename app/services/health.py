"""Whether the service can answer: its database, and the errors that mean it is away."""

from __future__ import annotations

from collections.abc import Callable

import anyio
import anyio.to_thread

from app.services.storage import Storage, StorageUnavailable

# Readiness probes that may wait on the database at once; a probe the bound gave up on
# keeps its thread until the database bounds end it, so this also caps such threads.
_PROBE_THREADS = 2


class Health:
    def __init__(self, storage: Storage, *, timeout_s: float = 1.0) -> None:
        self.storage = storage
        self.timeout_s = timeout_s
        # Its own threads: a readiness probe never queues behind requests stuck on the
        # database in the shared threadpool (that is what it must report).
        self._limiter = anyio.CapacityLimiter(_PROBE_THREADS)

    def check_database(self) -> None:
        """Raise unless the database answers (blocking, bounded by the database bounds)."""
        self.storage.ping()

    async def database_answers(self) -> None:
        """Raise unless the database answers within ``timeout_s`` (``TimeoutError``)."""
        with anyio.fail_after(self.timeout_s):
            await anyio.to_thread.run_sync(
                self.check_database, limiter=self._limiter, abandon_on_cancel=True
            )


#: Tell the store's own errors that reach the edge without passing through a unit of work
#: (a ping, a driver error raised outside the port): the storage adapter's classification,
#: given once by the composition root (``recognize_outages``).
_OUTAGE_DETAILS: list[Callable[[BaseException], str | None]] = []


def recognize_outages(detail: Callable[[BaseException], str | None]) -> None:
    """Also treat as an outage what ``detail`` describes (it answers None for the rest)."""
    if detail not in _OUTAGE_DETAILS:
        _OUTAGE_DETAILS.append(detail)


def _detail(exc: BaseException) -> str | None:
    if isinstance(exc, StorageUnavailable):
        return str(exc)
    for detail in _OUTAGE_DETAILS:
        if (described := detail(exc)) is not None:
            return described
    return None


def is_outage(exc: BaseException) -> bool:
    """True when ``exc`` means the database is unreachable, down or locked up (a 503, not
    a bug): rule errors, constraint violations and the like are answers, not outages. The
    storage adapter raises an outage as the port's ``StorageUnavailable``."""
    return _detail(exc) is not None


def outage_detail(exc: BaseException) -> str:
    """The problem ``detail`` for the outage ``exc``: a lock waited for too long, a
    statement past its bound, or a database that is away."""
    return _detail(exc) or "The database is unavailable; retry shortly."
