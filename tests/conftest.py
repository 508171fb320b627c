"""Shared database fixtures.

- ``sqlite_url``: an empty SQLite file URL in the test's tmp folder.
- ``postgres_server_url``: the PostgreSQL server to use (env ``TEST_POSTGRES_URL``);
  skips the test when unreachable, fails it when ``CI=true``.
- ``postgres_url``: an empty throwaway PostgreSQL database for one test.
- ``database_url``: a clean, migrated (``alembic upgrade head``) database, once on SQLite
  and once on PostgreSQL (the latter marked ``postgres``).
- ``migrated_database``: a ``Database`` on ``database_url``, disposed after the test.
- ``sqlite_migrated_template``, ``postgres_migrated_url`` (session-wide, migrated once) and
  ``truncate_all``: what ``database_url`` is built from, for fixtures of a wider scope that
  need a clean database too (``tests/api/hostile/conftest.py``).
"""

from __future__ import annotations

import os
import shutil
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from sqlalchemy.engine import make_url

# `pytest` run without an installed package (no `pip install -e .`) must still find `app`.
REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from app.persistence.db import Database  # noqa: E402
from app.persistence.migrate import upgrade  # noqa: E402

DEFAULT_TEST_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


# Markers by what a test needs, so a subset can be picked: `-m "not slow and not postgres"`
# is the fast one (README, Testing). A suite's folder says what its tests need; a module or
# folder elsewhere that is slow is listed by its path.
MARKERS = {
    "postgres": "needs a PostgreSQL server (TEST_POSTGRES_URL); runs in CI",
    "slow": "starts real processes, servers, browsers or containers, or sends many requests",
    "browser": "drives Debian's Chromium (tests/web)",
    "node": "needs Node.js and npm (the SDK, the companion, the contract's npm linters)",
    "docker": "needs a Docker engine (tests/deploy)",
}
_BY_FOLDER = {
    "e2e": ("slow",),
    "integration": ("slow",),
    "edge": ("slow",),
    "stall": ("slow", "postgres"),
    "live": ("slow",),
    "packaging": ("slow",),
    "hostile": ("slow",),
    "docs": ("slow",),
    "contract": ("slow", "node"),
    "clients": ("slow", "node"),
    "web": ("slow", "node", "browser"),
    "deploy": ("slow", "docker"),
}
_BY_MODULE = {
    "api/hostile": ("slow",),  # hundreds of hostile-input cases
    "perf/test_lazy_imports.py": ("slow",),  # fresh interpreters
    "limits/test_across_processes.py": ("slow",),
    "limits/test_real_server_addresses.py": ("slow",),
    "retention/test_retention.py": ("slow",),
    "migrations/test_migrations.py": ("slow",),
}


def pytest_configure(config: pytest.Config) -> None:
    for name, meaning in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    tests = REPO_ROOT / "tests"
    for item in items:
        relative = Path(item.path).resolve().relative_to(tests)
        names = _BY_FOLDER.get(relative.parts[0], ())
        for depth in range(2, len(relative.parts) + 1):
            names += _BY_MODULE.get("/".join(relative.parts[:depth]), ())
        for name in names:
            item.add_marker(name)


def _with_database(server_url: str, name: str) -> str:
    """``server_url`` pointing at database ``name`` (a libpq/psycopg-compatible URL)."""
    url = make_url(server_url).set(drivername="postgresql", database=name)
    return url.render_as_string(hide_password=False)


def _admin_url(server_url: str) -> str:
    return _with_database(server_url, make_url(server_url).database or "postgres")


def _create_database(server_url: str) -> str:
    name = f"vr_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(_admin_url(server_url), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return name


def _drop_database(server_url: str, name: str) -> None:
    with psycopg.connect(_admin_url(server_url), autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        )
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """URL of a not yet existing SQLite file in the test's tmp folder (not migrated)."""
    return f"sqlite:///{tmp_path}/test.db"


@pytest.fixture(scope="session")
def postgres_server_url() -> str:
    """Base URL of the PostgreSQL server for tests, from ``TEST_POSTGRES_URL``.

    Unreachable: the test is skipped, except with ``CI=true`` where it fails (the
    PostgreSQL tests must run in CI).
    """
    url = os.environ.get("TEST_POSTGRES_URL", DEFAULT_TEST_POSTGRES_URL)
    try:
        with psycopg.connect(_admin_url(url), connect_timeout=3):
            pass
    except psycopg.Error as exc:
        message = f"PostgreSQL not reachable at {make_url(url)!r}: {exc}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return url


@pytest.fixture
def postgres_url(postgres_server_url: str) -> Iterator[str]:
    """URL of an empty throwaway PostgreSQL database (``vr_test_<random>``) for one test,
    dropped afterwards (its connections terminated first). Not migrated."""
    name = _create_database(postgres_server_url)
    try:
        yield _with_database(postgres_server_url, name)
    finally:
        _drop_database(postgres_server_url, name)


@pytest.fixture(scope="session")
def sqlite_migrated_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated once per session; each test gets a copy of it."""
    path = tmp_path_factory.mktemp("sqlite_template") / "template.db"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def postgres_migrated_url(postgres_server_url: str) -> Iterator[str]:
    """One throwaway PostgreSQL database per session, migrated once."""
    name = _create_database(postgres_server_url)
    url = _with_database(postgres_server_url, name)
    try:
        upgrade(url)
        yield url
    finally:
        _drop_database(postgres_server_url, name)


def truncate_all(url: str) -> None:
    """Empty every table of the PostgreSQL database at ``url`` (its schema and Alembic
    version kept), for a fixture that reuses the session's migrated database."""
    with psycopg.connect(url, autocommit=True) as conn:
        # A connection leaked by an earlier test must fail this one, not hang it.
        conn.execute("SET lock_timeout = '10s'")
        tables = [
            row[0]
            for row in conn.execute(
                "SELECT tablename FROM pg_tables"
                " WHERE schemaname = current_schema() AND tablename <> 'alembic_version'"
            )
        ]
        if tables:
            conn.execute(
                sql.SQL("TRUNCATE {} RESTART IDENTITY CASCADE").format(
                    sql.SQL(", ").join(sql.Identifier(t) for t in tables)
                )
            )


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ]
)
def empty_url(request: pytest.FixtureRequest) -> str:
    """An empty database, not migrated, on each database."""
    fixture = "sqlite_url" if request.param == "sqlite" else "postgres_url"
    url: str = request.getfixturevalue(fixture)
    return url


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ]
)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """URL of a clean database at the head migration; the test runs once per database.

    SQLite: a copy of a session-wide migrated file. PostgreSQL: a session-wide migrated
    database whose tables are truncated before each test. Built by Alembic, never by
    ``create_all``.
    """
    if request.param == "sqlite":
        template: Path = request.getfixturevalue("sqlite_migrated_template")
        path = tmp_path / "test.db"
        shutil.copyfile(template, path)
        return f"sqlite:///{path}"
    url: str = request.getfixturevalue("postgres_migrated_url")
    truncate_all(url)
    return url


@pytest.fixture
def migrated_database(database_url: str) -> Iterator[Database]:
    """A ``Database`` on ``database_url`` (both databases), disposed after the test."""
    database = Database(database_url)
    try:
        yield database
    finally:
        database.dispose()
