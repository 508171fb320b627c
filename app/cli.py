"""Commands of ``python -m app`` other than serving: ``purge``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from app.persistence.changes import ChangeFeed
from app.persistence.db import Database
from app.services.retention import Retention
from app.services.stored import utcnow
from app.settings import Settings, get_settings


def purge(argv: Sequence[str], settings: Settings | None = None) -> int:
    """``python -m app purge``: delete what the retention allows, print what went."""
    settings = settings or get_settings()
    argparse.ArgumentParser(
        prog="python -m app purge",
        description=(
            "Delete games idle for longer than GAME_RETENTION_DAYS (with their events and "
            "idempotency keys), expired idempotency keys and expired creation limits, in "
            "batches of RETENTION_BATCH_SIZE; print how many of each. Schedule it (cron) "
            "when the service's own sweep is off (RETENTION_SWEEP_SECONDS=0)."
        ),
    ).parse_args(argv)
    db = Database(
        settings.database_url, pool_size=1, sqlite_synchronous=settings.sqlite_synchronous
    )
    retention = Retention(
        db,
        retention_days=settings.game_retention_days,
        batch_size=settings.retention_batch_size,
        # Not started: it only announces the deletions to the servers (PostgreSQL).
        changes=ChangeFeed(db, poll_seconds=settings.change_poll_seconds),
    )
    now = utcnow()
    try:
        purged = retention.purge(now)
    finally:
        db.dispose()
    before = retention.idle_before(now)
    games = (
        f"{purged.games} games idle since before {before.isoformat(timespec='seconds')}"
        if before is not None
        else "no games (GAME_RETENTION_DAYS is 0: games are kept)"
    )
    print(
        f"Deleted {games}, {purged.idempotency_keys} expired idempotency keys and "
        f"{purged.creation_limits} expired creation limits.",
        flush=True,
    )
    return 0
