"""The retention sweep finds idle games by the hour of their last change.

Revision ID: 0006_updated_hour
Revises: 0005_undo_recovery_rounds
Create Date: 2026-12-06

Upgrade: ``games`` gains ``updated_hour`` (whole hours since the Unix epoch of
``updated_at``, filled in for every stored game), indexed; the index on ``updated_at`` goes.
A change rewrote that index every time; it rewrites the new one only when it falls in
another hour than the change before it. The column defaults to 0, so that a replica of the
release before this one, still running during a rolling release, can insert a game: the
sweep reads such a row on each pass (0 is never later than its last change) until a change
of this release sets its hour. That replica's own sweep finds no index on ``updated_at``
and reads every game.

Downgrade puts the index on ``updated_at`` back and drops the column. Written out in full
(no imports from ``app``) so that it never changes when the service does.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_updated_hour"
down_revision: str | None = "0005_undo_recovery_rounds"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Each database's whole hours since the epoch of ``updated_at``, the fraction of a second
# dropped first on SQLite (whose ``strftime('%s')`` rounds it, up to the next hour at
# worst, and a row's hour is never to be later than its last change's).
HOUR_OF_UPDATED_AT = {
    "sqlite": "CAST(strftime('%s', substr(updated_at, 1, 19)) AS INTEGER) / 3600",
    "postgresql": "CAST(floor(extract(epoch FROM updated_at) / 3600) AS BIGINT)",
}


def upgrade() -> None:
    op.add_column(
        "games", sa.Column("updated_hour", sa.BigInteger(), nullable=False, server_default="0")
    )
    dialect = op.get_bind().dialect.name
    op.execute(f"UPDATE games SET updated_hour = {HOUR_OF_UPDATED_AT[dialect]}")
    op.create_index(op.f("ix_games_updated_hour"), "games", ["updated_hour"])
    op.drop_index(op.f("ix_games_updated_at"), table_name="games")


def downgrade() -> None:
    op.create_index(op.f("ix_games_updated_at"), "games", ["updated_at"])
    op.drop_index(op.f("ix_games_updated_hour"), table_name="games")
    if op.get_bind().dialect.name == "sqlite":
        # SQLite >= 3.35 drops a column in place; a batch rebuild of ``games`` would
        # copy every row.
        op.execute("ALTER TABLE games DROP COLUMN updated_hour")
    else:
        op.drop_column("games", "updated_hour")
