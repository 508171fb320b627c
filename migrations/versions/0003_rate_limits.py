"""Rate limits kept in the database, so that they hold across replicas.

Revision ID: 0003_rate_limits
Revises: 0002_game_row
Create Date: 2026-11-30

Upgrade: ``games`` gains ``write_tat_ms`` (the per-game write limit's theoretical arrival
time, 0 for existing games: nothing owed) and ``creation_limits`` holds one row per client
address that created games recently. Downgrade drops both.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_rate_limits"
down_revision: str | None = "0002_game_row"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A plain ALTER TABLE ... ADD COLUMN, on SQLite too: no table rebuild.
    op.add_column(
        "games", sa.Column("write_tat_ms", sa.BigInteger(), server_default="0", nullable=False)
    )
    op.create_table(
        "creation_limits",
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("tat_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("address", name=op.f("pk_creation_limits")),
    )
    op.create_index(op.f("ix_creation_limits_tat_ms"), "creation_limits", ["tat_ms"])


def downgrade() -> None:
    op.drop_index(op.f("ix_creation_limits_tat_ms"), table_name="creation_limits")
    op.drop_table("creation_limits")
    if op.get_bind().dialect.name == "sqlite":
        # SQLite >= 3.35 drops a column in place; a batch rebuild of ``games`` would
        # cascade into its events with foreign keys on.
        op.execute("ALTER TABLE games DROP COLUMN write_tat_ms")
    else:
        op.drop_column("games", "write_tat_ms")
