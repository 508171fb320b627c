"""Each player seat of a game has a write budget of its own.

Revision ID: 0004_player_budgets
Revises: 0003_rate_limits
Create Date: 2026-12-01

Upgrade: ``games`` gains ``player_budgets`` (JSON, null for existing games: no player has
spent anything), each player seat's ``[TAT, changes made]``; ``write_tat_ms`` is now the
host's. Additive: a release still running 0003's code ignores the column. Downgrade drops it.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_player_budgets"
down_revision: str | None = "0003_rate_limits"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("player_budgets", sa.JSON(none_as_null=True)))


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        # As in 0003: in place, so that no rebuild of ``games`` cascades into its events.
        op.execute("ALTER TABLE games DROP COLUMN player_budgets")
    else:
        op.drop_column("games", "player_budgets")
