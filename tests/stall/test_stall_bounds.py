"""The bounds reach the database: each setting ends up where the database enforces it."""

from __future__ import annotations

import socket
import time

import pytest
from sqlalchemy import text

from app.persistence.db import Database, DatabaseTimeouts
from app.persistence.watchdog import Watchdog
from app.settings import Settings

TIMEOUTS = DatabaseTimeouts(
    pool_ms=1500, connect_s=2, lock_ms=1234, statement_ms=2345, hold_ms=4000
)


def test_sqlite_busy_timeout_is_the_lock_timeout(sqlite_url: str) -> None:
    database = Database(sqlite_url, timeouts=TIMEOUTS)
    try:
        with database.engine.connect() as conn:
            assert conn.execute(text("PRAGMA busy_timeout")).scalar() == 1234
            assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert conn.execute(text("PRAGMA cache_size")).scalar() == -256  # KiB
        assert database.engine.pool.timeout() == 1.5  # type: ignore[attr-defined]
    finally:
        database.dispose()


@pytest.mark.postgres
def test_postgres_sessions_carry_the_statement_and_lock_timeouts(postgres_url: str) -> None:
    database = Database(postgres_url, timeouts=TIMEOUTS)
    try:
        with database.engine.connect() as conn:
            assert conn.execute(text("SHOW statement_timeout")).scalar() == "2345ms"
            assert conn.execute(text("SHOW lock_timeout")).scalar() == "1234ms"
            assert conn.execute(text("SHOW idle_in_transaction_session_timeout")).scalar() == "8s"
        assert database.engine.pool.timeout() == 1.5  # type: ignore[attr-defined]
        assert database.watchdog is not None and database.watchdog.bound_s == 4.0
    finally:
        database.dispose()


def test_writes_always_leave_a_thread_for_reads() -> None:
    assert Settings().write_slots == 3  # THREADPOOL_SIZE 4
    assert Settings(threadpool_size=4, max_concurrent_writes=10).write_slots == 3
    assert Settings(threadpool_size=8, max_concurrent_writes=2).write_slots == 2
    assert Settings(threadpool_size=1).write_slots == 1


def test_the_watchdog_shuts_down_a_socket_held_past_its_bound_and_only_that_one() -> None:
    held, peer = socket.socketpair()
    returned, returned_peer = socket.socketpair()
    watchdog = Watchdog(0.2)
    try:
        watchdog.arm(1, held.fileno())
        watchdog.arm(2, returned.fileno())
        watchdog.disarm(2)  # returned to the pool in time
        held.settimeout(5)
        start = time.monotonic()
        assert held.recv(1) == b""  # the blocked read ends: the socket was shut down
        assert 0.1 < time.monotonic() - start < 4  # generous: a loaded machine
        assert watchdog.fired == 1 and watchdog.fired_on(1) and not watchdog.fired_on(2)
        returned_peer.sendall(b"x")
        assert returned.recv(1) == b"x"  # untouched
    finally:
        watchdog.close()
        for sock in (held, peer, returned, returned_peer):
            sock.close()


def test_the_watchdog_works_again_after_close() -> None:
    """``Database.dispose`` closes it; an engine used again must still be guarded."""
    held, peer = socket.socketpair()
    watchdog = Watchdog(0.2)
    try:
        watchdog.close()
        watchdog.arm(1, held.fileno())
        held.settimeout(5)
        assert held.recv(1) == b""
        assert watchdog.fired == 1
    finally:
        watchdog.close()
        held.close()
        peer.close()


def test_the_watchdog_tells_of_a_cut_before_the_blocked_call_fails() -> None:
    """So that the call it fails, and whatever that call does next (releasing an
    idempotency key, say), already finds the database stalled (app/persistence/stall.py)."""
    held, peer = socket.socketpair()
    told: list[bool] = []

    def on_fire() -> None:
        held.setblocking(False)
        try:
            held.recv(1)
        except BlockingIOError:
            told.append(True)  # nothing to read yet: the socket is still up
        finally:
            held.setblocking(True)

    watchdog = Watchdog(0.2, on_fire=on_fire)
    try:
        watchdog.arm(1, held.fileno())
        held.settimeout(5)
        assert held.recv(1) == b""
        assert told == [True]
    finally:
        watchdog.close()
        held.close()
        peer.close()
