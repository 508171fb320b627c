"""Fixtures of the outage tests: a private PostgreSQL cluster they may freeze (never the
shared server), and a ``python -m app`` on it with the default settings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.support import PrivatePostgres, Server
from tests.stall.freeze import BOUND_SETTINGS


@pytest.fixture(scope="module")
def cluster() -> Iterator[PrivatePostgres]:
    """A private cluster for the module's tests (each resumes it before it ends)."""
    if not PrivatePostgres.available():
        pytest.fail("PostgreSQL 15 binaries (initdb, pg_ctl) are needed for this test")
    private = PrivatePostgres()
    try:
        private.init()
        private.start()
        private.wait_accepting()
        yield private
    finally:
        private.cleanup()


@pytest.fixture
def server(
    cluster: PrivatePostgres,
    async_reads: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Server]:
    """The service on ``cluster`` with the default bounds, async reads on or off (the
    test's ``async_reads`` parameter)."""
    for name in BOUND_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DB_ASYNC_READS", "true" if async_reads else "false")
    running = Server(cluster.url, tmp_path, "stall-routes").start()
    try:
        running.wait_ready()
        yield running
    finally:
        running.stop()
