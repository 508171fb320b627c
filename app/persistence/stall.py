"""Failing fast while the database does not answer at all (PostgreSQL).

Each call on a frozen server (SIGSTOP, a stuck VM, a network path that drops packets)
ends at the service's own bounds: the watchdog cuts a connection held past
``DB_HOLD_TIMEOUT_MS``, a new connection gives up after ``DB_CONNECT_TIMEOUT_S``. But
requests queue for the request threads and the connections, and each one that gets there
would wait out the same bound again: 30 reads on 4 threads would take eight bounds in a
row. So the first call that runs out of a bound *without any answer from the server*
(the watchdog's cut, a connect timeout; never a statement or lock timeout, which are the
server's own answers) marks the database stalled: from then on every call fails at once
(503 ``service-unavailable``, the same as the bound would have given, only sooner), and
one probe thread pings the server until it answers, which ends the stall.

A stall therefore costs a request at most one bound, however many queue. A false alarm (a
live server behind a call that held its connection too long) costs the calls made during
one ping, a round trip: the probe starts at once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from prometheus_client import Counter

from app.persistence.errors import DatabaseBusy

logger = logging.getLogger("app.database")

STALLS = Counter(
    "db_stalls_total",
    "Times the database stopped answering within the service's bounds (calls failed at "
    "once until a probe got an answer).",
)
REFUSED_WHILE_STALLED = Counter(
    "db_calls_refused_stalled_total",
    "Database calls answered 503 at once because the database was stalled.",
)

#: What a client is told when its call was refused because the database is stalled.
STALLED_DETAIL = "The database is not answering; retry shortly."
#: Seconds between two probes that got no answer.
PROBE_INTERVAL_S = 0.25


class StallBreaker:
    """Whether the database is stalled, and the probe that ends a stall.

    ``probe`` must raise unless the server answers, within the database's own bounds
    (it runs on a thread of its own, never a request thread).
    """

    def __init__(self, probe: Callable[[], None], *, interval_s: float = PROBE_INTERVAL_S) -> None:
        self._probe = probe
        self._interval_s = interval_s
        self._stalled = threading.Event()
        self._lock = threading.Condition()
        self._prober: threading.Thread | None = None
        # A prober runs while its generation is current: ``close`` ends it (even one still
        # waiting on a frozen server), and the next ``trip`` starts a new one.
        self._generation = 0

    @property
    def stalled(self) -> bool:
        return self._stalled.is_set()

    def check(self) -> None:
        """Raise ``DatabaseBusy`` at once while the database is stalled."""
        if self._stalled.is_set():
            REFUSED_WHILE_STALLED.inc()
            raise DatabaseBusy(STALLED_DETAIL)

    def trip(self, why: str) -> None:
        """A call got no answer within a bound: the database is stalled until a probe
        gets one (``why`` goes to the log)."""
        with self._lock:
            if not self._stalled.is_set():
                self._stalled.set()
                STALLS.inc()
                logger.warning("database stalled (%s): calls fail at once until it answers", why)
            if self._prober is None:
                self._prober = threading.Thread(
                    target=self._run, args=(self._generation,), name="db-probe", daemon=True
                )
                self._prober.start()

    def close(self) -> None:
        """Stop probing and forget the stall (the database is being disposed of)."""
        with self._lock:
            self._generation += 1
            self._prober = None
            self._stalled.clear()
            self._lock.notify_all()

    def _run(self, generation: int) -> None:
        while True:
            try:
                self._probe()
            except Exception as exc:
                logger.debug("database probe got no answer: %s", exc)
                with self._lock:
                    if generation != self._generation:
                        return
                    self._lock.wait(self._interval_s)
                    if generation != self._generation:
                        return
                continue
            with self._lock:
                if generation != self._generation:
                    return
                self._stalled.clear()
                self._prober = None
            logger.warning("database answers again: calls go through")
            return
