"""Initial schema: games, players, excommunications, reports, decisions, events, idempotency keys.

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-30

Written out in full (no imports from ``app``) so that it never changes when the tables do.
Constraint names follow ``app.persistence.tables.NAMING_CONVENTION``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_initial"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=True),
        sa.Column("expansions", sa.JSON(), nullable=False),
        sa.Column("tile_ids", sa.JSON(), nullable=False),
        sa.Column("players_enter_faith", sa.Boolean(), nullable=False),
        sa.Column("host_token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("updated_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_games"),
    )
    op.create_table(
        "idempotency_keys",
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("locked_until", _utc(), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("headers", sa.JSON(), nullable=True),
        sa.Column("body", sa.LargeBinary(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("expires_at", _utc(), nullable=False),
        sa.CheckConstraint(
            "state IN ('in_flight', 'completed')", name="ck_idempotency_keys_state_known"
        ),
        sa.PrimaryKeyConstraint("key_hash", name="pk_idempotency_keys"),
    )
    op.create_index(
        "ix_idempotency_keys_expires_at", "idempotency_keys", ["expires_at"], unique=False
    )
    op.create_table(
        "events",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=40), nullable=False),
        sa.Column("at", _utc(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name="fk_events_game_id_games", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "seq", name="pk_events"),
    )
    op.create_table(
        "players",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("id", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("turn_position", sa.Integer(), nullable=False),
        sa.Column("faith", sa.Integer(), nullable=False),
        sa.Column("report_victory_points", sa.Integer(), nullable=False),
        sa.Column("leaders", sa.JSON(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.CheckConstraint("faith >= 0", name="ck_players_faith_not_negative"),
        sa.CheckConstraint(
            "report_victory_points >= 0",
            name="ck_players_report_victory_points_not_negative",
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name="fk_players_game_id_games", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "id", name="pk_players"),
        sa.UniqueConstraint("game_id", "name", name="uq_players_game_id_name"),
    )
    op.create_table(
        "reports",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("period", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("outcomes", sa.JSON(), nullable=True),
        sa.Column("resolved_at", _utc(), nullable=True),
        sa.CheckConstraint("status IN ('open', 'resolved')", name="ck_reports_status_known"),
        sa.CheckConstraint("period BETWEEN 1 AND 3", name="ck_reports_period_range"),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name="fk_reports_game_id_games", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "period", name="pk_reports"),
    )
    op.create_table(
        "excommunications",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.String(length=16), nullable=False),
        sa.Column("period", sa.Integer(), nullable=False),
        sa.Column("tile_id", sa.String(length=16), nullable=False),
        sa.CheckConstraint("period BETWEEN 1 AND 3", name="ck_excommunications_period_range"),
        sa.ForeignKeyConstraint(
            ["game_id", "player_id"],
            ["players.game_id", "players.id"],
            name="fk_excommunications_game_id_player_id_players",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "player_id", "period", name="pk_excommunications"),
    )
    op.create_table(
        "report_decisions",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("period", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=16), nullable=False),
        sa.Column("choice", sa.String(length=8), nullable=False),
        sa.Column("updated_at", _utc(), nullable=False),
        sa.CheckConstraint(
            "choice IN ('support', 'refuse')", name="ck_report_decisions_choice_known"
        ),
        sa.ForeignKeyConstraint(
            ["game_id", "period"],
            ["reports.game_id", "reports.period"],
            name="fk_report_decisions_game_id_period_reports",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "period", "player_id", name="pk_report_decisions"),
    )


def downgrade() -> None:
    op.drop_table("report_decisions")
    op.drop_table("excommunications")
    op.drop_table("reports")
    op.drop_table("players")
    op.drop_table("events")
    op.drop_index("ix_idempotency_keys_expires_at", table_name="idempotency_keys")
    op.drop_table("idempotency_keys")
    op.drop_table("games")
