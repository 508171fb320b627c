"""Undo and redo, recovery codes, rounds.

Revision ID: 0005_undo_recovery_rounds
Revises: 0004_player_budgets
Create Date: 2026-12-01

Upgrade: ``games`` gains ``recovery_code_hash`` (null for the games already stored: they
have no recovery code), and every game's state is rewritten in format 2: ``round`` null
(they were created without ``track_rounds``), ``undoable`` the seq and type of every
change of play in its log, in order (each can be undone, the last first), ``redoable``
empty.

Downgrade writes format 1 again (the round and the stacks dropped) and drops the column.
The events of the types this revision's release added stay in the logs: the release
before it cannot list them (its events list refuses a type it does not know), so keep
such games' logs or delete those games before going back. Written out in full (no imports
from ``app``) so that it never changes when the service does.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0005_undo_recovery_rounds"
down_revision: str | None = "0004_player_budgets"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500  # games rewritten per round trip
# The changes of play that the release before this one logged (all can be undone).
PLAY_TYPES = ("faith_set", "leaders_set", "turn_order_set", "decision_set", "report_resolved")
NEW_KEYS = ("round", "undoable", "redoable")

_games = sa.table("games", sa.column("id", sa.String), sa.column("state", sa.JSON))
_events = sa.table(
    "events", sa.column("game_id", sa.String), sa.column("seq", sa.Integer), sa.column("type")
)


def _json(value: Any) -> Any:
    # Some drivers hand a JSON column back as text when read through a lightweight table.
    return json.loads(value) if isinstance(value, str) else value


def _batches(connection: sa.Connection) -> Iterator[list[Any]]:
    last = ""
    while True:
        rows = connection.execute(
            sa.select(_games.c.id, _games.c.state)
            .where(_games.c.id > last)
            .order_by(_games.c.id)
            .limit(BATCH)
        ).all()
        if not rows:
            return
        yield rows
        last = rows[-1].id


def _play_changes(connection: sa.Connection, ids: list[str]) -> dict[str, list[list[Any]]]:
    changes: dict[str, list[list[Any]]] = defaultdict(list)
    rows = connection.execute(
        sa.select(_events.c.game_id, _events.c.seq, _events.c.type)
        .where(
            _events.c.game_id.in_(ids),
            _events.c.type.in_(PLAY_TYPES),
            _events.c.seq > 1,  # the creation, whatever a hand-written log says
        )
        .order_by(_events.c.game_id, _events.c.seq)
    )
    for row in rows:
        changes[row.game_id].append([row.seq, row.type])
    return changes


def _rewrite(connection: sa.Connection, states: dict[str, dict[str, Any]]) -> None:
    statement = (
        sa.update(_games)
        .where(_games.c.id == sa.bindparam("game_id"))
        .values(state=sa.bindparam("new_state", type_=sa.JSON))
    )
    connection.execute(
        statement, [{"game_id": game_id, "new_state": s} for game_id, s in states.items()]
    )


def upgrade() -> None:
    op.add_column("games", sa.Column("recovery_code_hash", sa.String(length=64), nullable=True))
    connection = op.get_bind()
    for rows in _batches(connection):
        changes = _play_changes(connection, [row.id for row in rows])
        states = {}
        for row in rows:
            state = _json(row.state)
            if state.get("format") != 1:
                raise RuntimeError(f"game {row.id}: state format {state.get('format')!r}")
            state.update(format=2, round=None, undoable=changes[row.id], redoable=[])
            states[row.id] = state
        _rewrite(connection, states)


def downgrade() -> None:
    connection = op.get_bind()
    for rows in _batches(connection):
        states = {}
        for row in rows:
            state = _json(row.state)
            for key in NEW_KEYS:
                state.pop(key, None)
            state["format"] = 1
            states[row.id] = state
        _rewrite(connection, states)
    if connection.dialect.name == "sqlite":
        # SQLite >= 3.35 drops a column in place; a batch rebuild of ``games`` would
        # cascade into its events with foreign keys on.
        op.execute("ALTER TABLE games DROP COLUMN recovery_code_hash")
    else:
        op.drop_column("games", "recovery_code_hash")
