"""Every revision goes up, down and up again; the head matches the tables."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Column, Integer, MetaData, create_engine, inspect
from sqlalchemy.pool import NullPool

from app.persistence.db import normalize_url
from app.persistence.migrate import alembic_config, downgrade, upgrade
from app.persistence.tables import METADATA, NAMING_CONVENTION

REPO_ROOT = Path(__file__).resolve().parents[2]


def _revisions_base_to_head(url: str) -> list[Any]:
    script = ScriptDirectory.from_config(alembic_config(url))
    return list(reversed(list(script.walk_revisions())))


def _state(url: str) -> tuple[str | None, set[str]]:
    engine = create_engine(normalize_url(url), poolclass=NullPool)
    try:
        with engine.connect() as conn:
            current = MigrationContext.configure(conn).get_current_revision()
            tables = set(inspect(conn).get_table_names()) - {"alembic_version"}
        return current, tables
    finally:
        engine.dispose()


def _diff(url: str, metadata: MetaData) -> list[Any]:
    engine = create_engine(normalize_url(url), poolclass=NullPool)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            return list(compare_metadata(context, metadata))
    finally:
        engine.dispose()


def test_a_single_head_and_the_first_revision_is_0001_initial() -> None:
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    assert len(script.get_heads()) == 1
    revisions = _revisions_base_to_head("sqlite://")
    assert revisions[0].revision == "0001_initial"
    assert revisions[0].down_revision is None


def test_every_revision_walks_up_down_and_up_again(empty_url: str) -> None:
    revisions = _revisions_base_to_head(empty_url)
    seen_tables: list[set[str]] = []

    for revision in revisions:
        upgrade(empty_url, revision.revision)
        current, tables = _state(empty_url)
        assert current == revision.revision
        seen_tables.append(tables)
    assert seen_tables[-1] == set(METADATA.tables)

    for index in reversed(range(len(revisions))):
        target = revisions[index - 1].revision if index > 0 else "base"
        downgrade(empty_url, target)
        current, tables = _state(empty_url)
        if index > 0:
            assert current == target
            assert tables == seen_tables[index - 1]
        else:
            assert current is None
            assert tables == set()

    upgrade(empty_url)
    assert _state(empty_url) == (revisions[-1].revision, set(METADATA.tables))
    assert _diff(empty_url, METADATA) == []


def test_migrating_twice_is_a_no_op(empty_url: str) -> None:
    upgrade(empty_url)
    first = _state(empty_url)
    upgrade(empty_url)
    assert _state(empty_url) == first


def test_head_migration_matches_the_tables(empty_url: str) -> None:
    upgrade(empty_url)
    assert _diff(empty_url, METADATA) == []


def test_the_comparison_sees_a_model_the_migrations_lack(empty_url: str) -> None:
    """Guards the test above: a model change without a migration is reported."""
    upgrade(empty_url)
    drifted = MetaData(naming_convention=NAMING_CONVENTION)
    for table in METADATA.sorted_tables:
        table.to_metadata(drifted)
    drifted.tables["games"].append_column(Column("extra", Integer, nullable=True))
    diff = _diff(empty_url, drifted)
    assert [entry[0] for entry in diff] == ["add_column"]


@pytest.mark.postgres
def test_two_processes_upgrading_at_once_both_succeed(postgres_url: str) -> None:
    code = "import sys; from app.persistence.migrate import upgrade; upgrade(sys.argv[1])"
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", code, postgres_url],
            cwd=REPO_ROOT,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for process in processes:
        _, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr
    current, tables = _state(postgres_url)
    assert current == _revisions_base_to_head(postgres_url)[-1].revision
    assert tables == set(METADATA.tables)
