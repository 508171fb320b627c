"""A client-side bound on how long a request may hold a PostgreSQL connection.

``statement_timeout`` and ``lock_timeout`` are enforced by the server; a server that is
frozen (SIGSTOP, a stuck VM, a network path that drops packets while the kernel still
acknowledges them) enforces nothing, and a thread blocked reading its socket waits for
ever. The watchdog is armed when a connection is checked out of the pool and disarmed
when it is returned (or closed, or invalidated). A connection still out past its deadline
has its socket shut down from the watchdog's thread: the blocked read returns at once,
the driver raises a connection error (a 503 for the client), and the pool discards the
connection. It holds its own duplicate of the socket's descriptor, so it can never shut
down a descriptor number that the driver closed and the process reused.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from prometheus_client import Counter

CUT_CONNECTIONS = Counter(
    "db_connections_cut_total",
    "Database connections whose socket the watchdog shut down (held past DB_HOLD_TIMEOUT_MS).",
)

logger = logging.getLogger("app.database")


@dataclass(slots=True)
class _Armed:
    deadline: float
    sock: socket.socket


class Watchdog:
    """Shuts down the socket of any connection held longer than ``bound_s`` seconds."""

    def __init__(self, bound_s: float, *, on_fire: Callable[[], None] = lambda: None) -> None:
        self.bound_s = bound_s
        # Told before a socket is shut down, so that the call it fails sees the stall.
        self._on_fire = on_fire
        self.fired = 0  # sockets shut down so far (for tests and logs)
        self._armed: dict[int, _Armed] = {}
        self._fired: set[int] = set()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        # A thread runs while its generation is current: ``close`` ends it, and the next
        # ``arm`` (an engine may be used again after ``dispose``) starts a new one.
        self._generation = 0

    def arm(self, key: int, fileno: int) -> None:
        """Start the clock for the connection ``key`` whose socket is ``fileno``."""
        sock = socket.socket(fileno=os.dup(fileno))
        with self._cond:
            self._fired.discard(key)
            previous = self._armed.pop(key, None)
            self._armed[key] = _Armed(time.monotonic() + self.bound_s, sock)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, args=(self._generation,), name="db-watchdog", daemon=True
                )
                self._thread.start()
            elif len(self._armed) == 1:
                self._cond.notify()
        if previous is not None:
            previous.sock.close()

    def fired_on(self, key: int) -> bool:
        """Whether the connection ``key`` was cut off since it was last armed."""
        with self._cond:
            return key in self._fired

    def disarm(self, key: int) -> None:
        with self._cond:
            self._fired.discard(key)
            entry = self._armed.pop(key, None)
        if entry is not None:
            entry.sock.close()  # only our duplicate descriptor: the connection stays open

    def close(self) -> None:
        with self._cond:
            self._generation += 1
            self._thread = None
            entries = list(self._armed.values())
            self._armed.clear()
            self._cond.notify_all()
        for entry in entries:
            entry.sock.close()

    def _run(self, generation: int) -> None:
        while True:
            with self._cond:
                if generation != self._generation:
                    return
                now = time.monotonic()
                expired = [k for k, e in self._armed.items() if e.deadline <= now]
                fired = [self._armed.pop(k) for k in expired]
                self._fired.update(expired)
                if not fired:
                    # Every deadline is "now + bound", so the oldest entry is the next due.
                    wait = (
                        min(e.deadline for e in self._armed.values()) - now if self._armed else None
                    )
                    self._cond.wait(wait)
                    continue
            if fired:
                try:
                    self._on_fire()
                except Exception:  # the cut matters more than who hears of it
                    logger.exception("the watchdog's on_fire failed")
            for entry in fired:
                self.fired += 1
                CUT_CONNECTIONS.inc()
                logger.warning(
                    "database connection held for more than %.1f s: its socket is shut down",
                    self.bound_s,
                )
                with contextlib.suppress(OSError):  # already closed by the peer
                    entry.sock.shutdown(socket.SHUT_RDWR)
                entry.sock.close()
