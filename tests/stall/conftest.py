"""Fixtures of the outage tests: a private PostgreSQL cluster they may freeze (never the
shared server), and a ``python -m app`` on it with the default settings."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
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


@contextmanager
def _serving(
    cluster: PrivatePostgres, log_dir: Path, name: str, async_reads: bool
) -> Iterator[Server]:
    running = Server(
        cluster.url, log_dir, name, env={"DB_ASYNC_READS": "true" if async_reads else "false"}
    ).start()
    try:
        running.wait_ready()
        yield running
    finally:
        running.stop()


@pytest.fixture
def default_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every setting that bounds a wait on the database left at its default."""
    for name in BOUND_SETTINGS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server(
    cluster: PrivatePostgres, async_reads: bool, tmp_path: Path, default_bounds: None
) -> Iterator[Server]:
    """The service on ``cluster`` with the default bounds, async reads on or off (the
    test's ``async_reads`` parameter)."""
    with _serving(cluster, tmp_path, "stall-routes", async_reads) as running:
        yield running


@pytest.fixture
def both_servers(
    cluster: PrivatePostgres, tmp_path: Path, default_bounds: None
) -> Iterator[dict[str, Server]]:
    """The service on ``cluster`` with the default bounds, twice: async reads on, and off
    (started one after the other: the second finds the migrations done)."""
    with (
        _serving(cluster, tmp_path, "async-reads", True) as on,
        _serving(cluster, tmp_path, "thread-reads", False) as off,
    ):
        yield {"async-reads": on, "thread-reads": off}
