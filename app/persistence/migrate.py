"""Alembic, configured in code (there is no alembic.ini).

``upgrade`` is safe to run from several processes at once: on PostgreSQL it holds a
session advisory lock for the whole upgrade, so the second process waits and then
finds nothing to do.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

import app
from app.persistence.db import normalize_url

_PACKAGE_DIR = Path(app.__file__).resolve().parent
# An installed wheel carries the repo's top-level `migrations/` inside the package
# (pyproject.toml maps it to `app/migrations`); a checkout (editable install, tests) has it
# beside `app/`, where `alembic revision` must write new scripts.
_MIGRATIONS_DIRS = (_PACKAGE_DIR / "migrations", _PACKAGE_DIR.parent / "migrations")

# pg_advisory_lock key shared by every process migrating this service's database.
_MIGRATION_LOCK_KEY = 0x5641_5449_4341_4E  # "VATICAN"


def migrations_dir() -> Path:
    """The folder of the Alembic scripts: the installed package's, else the checkout's."""
    for folder in _MIGRATIONS_DIRS:
        if (folder / "env.py").is_file():
            return folder
    searched = ", ".join(str(folder) for folder in _MIGRATIONS_DIRS)
    raise RuntimeError(f"the Alembic migrations are missing (looked in {searched})")


def alembic_config(url: str) -> Config:
    """An Alembic configuration for the database at ``url``."""
    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    normalized = normalize_url(url)
    # "%" is ConfigParser's interpolation character (it occurs in escaped passwords).
    config.set_main_option("sqlalchemy.url", normalized.replace("%", "%%"))
    config.attributes["url"] = normalized
    return config


def upgrade(url: str, revision: str = "head") -> None:
    _run(url, lambda config: command.upgrade(config, revision))


def downgrade(url: str, revision: str) -> None:
    _run(url, lambda config: command.downgrade(config, revision))


def _run(url: str, migrate: Callable[[Config], None]) -> None:
    config = alembic_config(url)
    engine = create_engine(config.attributes["url"], poolclass=NullPool)
    try:
        with engine.connect() as connection:
            locked = connection.dialect.name == "postgresql"
            if locked:
                connection.execute(
                    text("SELECT pg_advisory_lock(:key)"), {"key": _MIGRATION_LOCK_KEY}
                )
                connection.commit()
            try:
                config.attributes["connection"] = connection
                migrate(config)
                connection.commit()
            finally:
                if locked:
                    connection.rollback()
                    connection.execute(
                        text("SELECT pg_advisory_unlock(:key)"), {"key": _MIGRATION_LOCK_KEY}
                    )
                    connection.commit()
    finally:
        engine.dispose()
