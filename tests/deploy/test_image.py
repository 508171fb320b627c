"""The Dockerfile's image, built on a base made from Debian's packages and run as users run
it: as a non-root user, healthy by its own HEALTHCHECK, two replicas migrating one database
at once, the README's walkthrough, and SIGTERM (docs/deploy.md)."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator

import httpx
import psycopg
import pytest
from alembic.script import ScriptDirectory

# The key every replica's migration locks; the test takes it first to line both up behind it.
from app.persistence.migrate import _MIGRATION_LOCK_KEY, alembic_config
from tests.conftest import _create_database, _drop_database, _with_database
from tests.deploy.engine import Container, docker, run_containers
from tests.deploy.test_shutdown import hold_a_request
from tests.support.walkthrough import run_walkthrough

pytestmark = pytest.mark.postgres

SERVICE_ENV = {"LOG_LEVEL": "warning", "GAME_CREATION_RATE": "0", "GAME_WRITE_RATE": "0"}


@pytest.fixture(scope="module")
def replica(service_image: str, postgres_server_url: str) -> Iterator[Container]:
    """One container for the tests that only look at it, on a throwaway database."""
    name = _create_database(postgres_server_url)
    env = {**SERVICE_ENV, "DATABASE_URL": _with_database(postgres_server_url, name)}
    try:
        with run_containers(service_image, 1, env) as (container,):
            container.wait_healthy()
            yield container
    finally:
        _drop_database(postgres_server_url, name)


def test_the_image_runs_as_a_user_that_is_not_root(replica: Container) -> None:
    assert replica.inspect()["Config"]["User"] == "app"  # type: ignore[index]
    uid = docker("exec", replica.name, "python", "-c", "import os; print(os.getuid())")
    assert int(uid) != 0
    # The server itself, PID 1 of the container, runs as that user too.
    status = docker("exec", replica.name, "cat", "/proc/1/status")
    real_uid = next(line.split()[1] for line in status.splitlines() if line.startswith("Uid:"))
    assert real_uid == uid.strip()


def test_the_healthcheck_calls_it_healthy_and_it_serves(replica: Container) -> None:
    assert replica.health() == "healthy"
    assert httpx.get(f"{replica.base_url}/readyz", timeout=10).status_code == 200


def _advisory_waiters(conn: psycopg.Connection[tuple[object, ...]]) -> int:
    """Sessions waiting for the migration lock (the key split as pg_locks shows it)."""
    row = conn.execute(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        " AND ((classid::bigint << 32) | objid::bigint) = %s",
        (_MIGRATION_LOCK_KEY,),
    ).fetchone()
    assert row is not None
    return int(row[0])  # type: ignore[call-overload]


def test_two_replicas_started_together_migrate_once(service_image: str, postgres_url: str) -> None:
    heads = ScriptDirectory.from_config(alembic_config(postgres_url)).get_heads()
    revisions = list(ScriptDirectory.from_config(alembic_config(postgres_url)).walk_revisions())
    with psycopg.connect(postgres_url, autocommit=True) as holder:
        # Held here first, so that both replicas are surely migrating at the same moment.
        holder.execute("SELECT pg_advisory_lock(%s)", (_MIGRATION_LOCK_KEY,))
        env = {**SERVICE_ENV, "DATABASE_URL": postgres_url}
        with run_containers(service_image, 2, env) as replicas:
            deadline = time.monotonic() + 90
            while _advisory_waiters(holder) < 2:
                assert time.monotonic() < deadline, "both replicas never waited for the lock"
                for replica in replicas:
                    assert replica.state()["Running"], replica.logs()
                time.sleep(0.2)
            holder.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK_KEY,))
            # A revision applied a second time would fail (its tables exist): the replica
            # whose migration failed would exit instead of becoming healthy.
            for replica in replicas:
                replica.wait_healthy()
        version = holder.execute("SELECT version_num FROM alembic_version").fetchall()
        assert [row[0] for row in version] == list(heads)
        # One insert of the version row, then one update per later revision: each once.
        deadline = time.monotonic() + 30
        while True:
            stats = holder.execute(
                "SELECT n_tup_ins, n_tup_upd FROM pg_stat_user_tables"
                " WHERE relname = 'alembic_version'"
            ).fetchone()
            if stats == (1, len(revisions) - 1) or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert stats == (1, len(revisions) - 1)


def test_the_walkthrough_passes_against_the_image(replica: Container) -> None:
    run_walkthrough(replica.base_url)


def test_sigterm_ends_streams_and_exits_within_the_shutdown_timeout(
    service_image: str, postgres_url: str
) -> None:
    bound = 3  # SHUTDOWN_TIMEOUT_SECONDS; a body timeout of a minute would hold it longer
    env = {
        **SERVICE_ENV,
        "DATABASE_URL": postgres_url,
        "SHUTDOWN_TIMEOUT_SECONDS": str(bound),
        "BODY_TIMEOUT_SECONDS": "60",
    }
    with run_containers(service_image, 1, env) as (replica,):
        replica.wait_healthy()
        created = httpx.post(
            f"{replica.base_url}/v1/games",
            json={"players": [{"name": "Anna"}, {"name": "Bruno"}], "seed": 7},
            timeout=10,
        )
        assert created.status_code == 201, created.text
        game, token = created.json()["game"]["id"], created.json()["host_token"]
        ended = threading.Event()

        def follow() -> None:
            headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
            url = f"{replica.base_url}/v1/games/{game}/events/stream"
            with httpx.stream("GET", url, headers=headers, timeout=60) as stream:
                assert stream.status_code == 200
                for _ in stream.iter_raw():
                    pass
            ended.set()

        follower = threading.Thread(target=follow, daemon=True)
        follower.start()
        deadline = time.monotonic() + 30
        while "live_subscribers 1.0" not in httpx.get(f"{replica.base_url}/metrics").text:
            assert time.monotonic() < deadline, "the stream never opened"
            time.sleep(0.1)
        held = hold_a_request(replica.port)
        try:
            started = time.monotonic()
            docker("kill", "--signal", signal.SIGTERM.name, replica.name)
            assert ended.wait(10), "the stream did not end on SIGTERM"
            code = replica.wait_exited(bound + 8)
            took = time.monotonic() - started
        finally:
            held.close()
        assert code == 0, replica.logs()[-3000:]
        assert took >= bound - 0.5, "the request under way was not given its time"
        assert "timeout graceful shutdown exceeded" in replica.logs()
