"""A game is one row: its state, its read model and its tokens' hashes.

Revision ID: 0002_game_row
Revises: 0001_initial
Create Date: 2026-11-30

Upgrade: ``games`` gains ``state`` (the game's state as JSON, format 1), ``document`` and
``document_key`` (the rendered read model; left empty here, the service renders it on the
first read) and ``player_token_hashes``; every existing game's state is built from the
tables of 0001, which are then dropped with the columns ``state`` replaces. Idempotency keys
gain the ``game_id`` they belong to (so they go with their game), and ``games.updated_at`` an
index (so idle games are found without a scan).

Downgrade rebuilds the tables of 0001 from ``state``. Written out in full (no imports from
``app``) so that it never changes when the models do.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0002_game_row"
down_revision: str | None = "0001_initial"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STATE_FORMAT = 1
BATCH = 500  # games converted per round trip

_games = sa.table(
    "games",
    sa.column("id", sa.String),
    sa.column("seed", sa.BigInteger),
    sa.column("expansions", sa.JSON),
    sa.column("tile_ids", sa.JSON),
    sa.column("players_enter_faith", sa.Boolean),
    sa.column("state", sa.JSON),
    sa.column("player_token_hashes", sa.JSON),
)
_players = sa.table(
    "players",
    sa.column("game_id", sa.String),
    sa.column("id", sa.String),
    sa.column("name", sa.String),
    sa.column("seat", sa.Integer),
    sa.column("turn_position", sa.Integer),
    sa.column("faith", sa.Integer),
    sa.column("report_victory_points", sa.Integer),
    sa.column("leaders", sa.JSON),
    sa.column("token_hash", sa.String),
)
_excommunications = sa.table(
    "excommunications",
    sa.column("game_id", sa.String),
    sa.column("player_id", sa.String),
    sa.column("period", sa.Integer),
    sa.column("tile_id", sa.String),
)
_reports = sa.table(
    "reports",
    sa.column("game_id", sa.String),
    sa.column("period", sa.Integer),
    sa.column("status", sa.String),
    sa.column("outcomes", sa.JSON(none_as_null=True)),
    sa.column("resolved_at", sa.DateTime(timezone=True)),
)
_decisions = sa.table(
    "report_decisions",
    sa.column("game_id", sa.String),
    sa.column("period", sa.Integer),
    sa.column("player_id", sa.String),
    sa.column("choice", sa.String),
    sa.column("updated_at", sa.DateTime(timezone=True)),
)


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def _as_utc(value: Any) -> datetime | None:
    """A stored timestamp as an aware UTC datetime (SQLite gives naive values, or text)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _json(value: Any) -> Any:
    # Some drivers hand a JSON column back as text when read through a lightweight table.
    return json.loads(value) if isinstance(value, str) else value


def _batches(connection: sa.Connection) -> Iterator[list[Any]]:
    last = ""
    while True:
        rows = connection.execute(
            sa.select(_games).where(_games.c.id > last).order_by(_games.c.id).limit(BATCH)
        ).all()
        if not rows:
            return
        yield rows
        last = rows[-1].id


def _grouped(connection: sa.Connection, table: Any, ids: list[str], *order: Any) -> Any:
    grouped: dict[str, list[Any]] = defaultdict(list)
    rows = connection.execute(sa.select(table).where(table.c.game_id.in_(ids)).order_by(*order))
    for row in rows:
        grouped[row.game_id].append(row)
    return grouped


def _normalized_tables() -> None:
    """The tables of 0001 that ``games.state`` replaces, exactly as 0001 made them."""
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


def _check_foreign_keys_off(connection: sa.Connection) -> None:
    # SQLite rebuilds a table to drop its columns; with foreign keys enforced, dropping the
    # old ``games`` would cascade and delete every event. Migrations connect without them.
    if connection.dialect.name == "sqlite":
        enforced = connection.exec_driver_sql("PRAGMA foreign_keys").scalar()
        if enforced:
            raise RuntimeError("run this migration with PRAGMA foreign_keys = OFF")


# ---- upgrade ----------------------------------------------------------------------------


def _state(game: Any, players: list[Any], excommunications: list[Any], reports: list[Any],
           decisions: list[Any]) -> dict[str, Any]:
    held: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in excommunications:
        held[e.player_id].append({"period": e.period, "tile_id": e.tile_id})
    chosen: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for d in decisions:
        chosen[d.period].append({"player_id": d.player_id, "choice": d.choice})
    resolved = []
    for r in reports:
        at = _as_utc(r.resolved_at)
        resolved.append(
            {
                "period": r.period,
                "status": r.status,
                "decisions": chosen[r.period],
                "outcomes": _json(r.outcomes),
                "resolved_at": None if at is None else at.isoformat(),
            }
        )
    return {
        "format": STATE_FORMAT,
        "seed": game.seed,
        "expansions": _json(game.expansions),
        "tiles": _json(game.tile_ids),
        "players_enter_faith": bool(game.players_enter_faith),
        "players": [
            {
                "id": p.id,
                "name": p.name,
                "faith": p.faith,
                "report_victory_points": p.report_victory_points,
                "leaders": _json(p.leaders),
                "excommunications": sorted(held[p.id], key=lambda e: e["period"]),
            }
            for p in players
        ],
        "turn_order": [p.id for p in sorted(players, key=lambda p: p.turn_position)],
        "reports": resolved,
    }


def upgrade() -> None:
    connection = op.get_bind()
    _check_foreign_keys_off(connection)
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("state", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("document", sa.Text(), nullable=True))
        batch.add_column(sa.Column("document_key", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("player_token_hashes", sa.JSON(), nullable=True))

    for games in _batches(connection):
        ids = [g.id for g in games]
        players = _grouped(connection, _players, ids, _players.c.game_id, _players.c.seat)
        held = _grouped(connection, _excommunications, ids, _excommunications.c.game_id)
        reports = _grouped(connection, _reports, ids, _reports.c.game_id, _reports.c.period)
        decisions = _grouped(
            connection, _decisions, ids, _decisions.c.game_id, _decisions.c.player_id
        )
        for game in games:
            connection.execute(
                _games.update()
                .where(_games.c.id == game.id)
                .values(
                    state=_state(
                        game,
                        players[game.id],
                        held[game.id],
                        reports[game.id],
                        decisions[game.id],
                    ),
                    player_token_hashes={p.id: p.token_hash for p in players[game.id]},
                )
            )

    op.drop_table("report_decisions")
    op.drop_table("excommunications")
    op.drop_table("reports")
    op.drop_table("players")
    with op.batch_alter_table("games") as batch:
        batch.alter_column("state", existing_type=sa.JSON(), nullable=False)
        batch.alter_column("player_token_hashes", existing_type=sa.JSON(), nullable=False)
        batch.drop_column("seed")
        batch.drop_column("expansions")
        batch.drop_column("tile_ids")
        batch.drop_column("players_enter_faith")
        batch.create_index("ix_games_updated_at", ["updated_at"], unique=False)
    with op.batch_alter_table("idempotency_keys") as batch:
        batch.add_column(sa.Column("game_id", sa.String(length=32), nullable=True))
        batch.create_index("ix_idempotency_keys_game_id", ["game_id"], unique=False)


# ---- downgrade --------------------------------------------------------------------------


def downgrade() -> None:
    connection = op.get_bind()
    _check_foreign_keys_off(connection)
    with op.batch_alter_table("idempotency_keys") as batch:
        batch.drop_index("ix_idempotency_keys_game_id")
        batch.drop_column("game_id")
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_updated_at")
        batch.add_column(sa.Column("seed", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("expansions", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("tile_ids", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("players_enter_faith", sa.Boolean(), nullable=True))
    _normalized_tables()

    now = datetime.now(UTC)
    for games in _batches(connection):
        for game in games:
            state = _json(game.state)
            hashes = _json(game.player_token_hashes)
            position = {player_id: i for i, player_id in enumerate(state["turn_order"])}
            connection.execute(
                _games.update()
                .where(_games.c.id == game.id)
                .values(
                    seed=state["seed"],
                    expansions=state["expansions"],
                    tile_ids=state["tiles"],
                    players_enter_faith=state["players_enter_faith"],
                )
            )
            players = [
                {
                    "game_id": game.id,
                    "id": p["id"],
                    "name": p["name"],
                    "seat": seat,
                    "turn_position": position[p["id"]],
                    "faith": p["faith"],
                    "report_victory_points": p["report_victory_points"],
                    "leaders": p["leaders"],
                    "token_hash": hashes[p["id"]],
                }
                for seat, p in enumerate(state["players"])
            ]
            connection.execute(_players.insert(), players)
            held = [
                {"game_id": game.id, "player_id": p["id"], **e}
                for p in state["players"]
                for e in p["excommunications"]
            ]
            if held:
                connection.execute(_excommunications.insert(), held)
            connection.execute(
                _reports.insert(),
                [
                    {
                        "game_id": game.id,
                        "period": r["period"],
                        "status": r["status"],
                        "outcomes": r["outcomes"],
                        "resolved_at": _as_utc(r["resolved_at"]),
                    }
                    for r in state["reports"]
                ],
            )
            decisions = [
                {"game_id": game.id, "period": r["period"], "updated_at": now, **d}
                for r in state["reports"]
                for d in r["decisions"]
            ]
            if decisions:
                connection.execute(_decisions.insert(), decisions)

    with op.batch_alter_table("games") as batch:
        batch.alter_column("expansions", existing_type=sa.JSON(), nullable=False)
        batch.alter_column("tile_ids", existing_type=sa.JSON(), nullable=False)
        batch.alter_column("players_enter_faith", existing_type=sa.Boolean(), nullable=False)
        batch.drop_column("state")
        batch.drop_column("document")
        batch.drop_column("document_key")
        batch.drop_column("player_token_hashes")
