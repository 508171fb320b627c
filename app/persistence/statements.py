"""The statements of every read and change of a game, built once at import and bound per
call: SQLAlchemy coerces each clause of a new statement object and computes its cache key
again, which cost a change more than its two round trips on loopback (bench/RESULTS.md).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    Connection,
    Dialect,
    Select,
    String,
    bindparam,
    func,
    insert,
    select,
    text,
    update,
)

from app.persistence.key_answers import answer_columns
from app.persistence.tables import EVENTS, GAMES
from app.services.stored import Outcome

GAME_STATE = select(
    GAMES.c.version,
    GAMES.c.state,
    GAMES.c.host_token_hash,
    GAMES.c.player_token_hashes,
    GAMES.c.recovery_code_hash,
    GAMES.c.write_tat_ms,
    GAMES.c.player_budgets,
).where(GAMES.c.id == bindparam("game_id"))
GAME_STATE_LOCKED = GAME_STATE.with_for_update()
GAME_DOCUMENT = select(
    GAMES.c.version,
    GAMES.c.document,
    GAMES.c.document_key,
    GAMES.c.host_token_hash,
    GAMES.c.player_token_hashes,
).where(GAMES.c.id == bindparam("game_id"))
GAME_VERSION = select(GAMES.c.version, GAMES.c.host_token_hash, GAMES.c.player_token_hashes).where(
    GAMES.c.id == bindparam("game_id")
)


def driver_sql(statement: Select[Any], dialect: Dialect) -> str:
    """``statement`` as its driver's own SQL, for the reads on the event loop that go to
    the driver without SQLAlchemy (``async_reads.py``, ``sqlite_reads.py``): compiled from
    the one declaration here, in the driver's parameter style (its one parameter is
    ``game_id``)."""
    return str(statement.compile(dialect=dialect))


# A change: the row rewritten only if the game is still at the version the change read.
GAME_CHANGE = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("game_id"), GAMES.c.version == bindparam("read_version"))
    .values(
        {
            column: bindparam(f"new_{column}", type_=GAMES.c[column].type)
            for column in (
                "version",
                "state",
                "document",
                "document_key",
                "updated_at",
                "write_tat_ms",
                "player_budgets",
            )
        }
    )
)
EVENT_COLUMNS = ("seq", "type", "data", "at")
EVENT_VALUES = [bindparam(f"event_{c}", type_=EVENTS.c[c].type) for c in EVENT_COLUMNS]
EVENT_APPEND = insert(EVENTS).values(
    dict(zip(("game_id", *EVENT_COLUMNS), (bindparam("event_game"), *EVENT_VALUES), strict=True))
)
# PostgreSQL: the change in one statement (see store_change); its one row says it stored.
CHANGED = GAME_CHANGE.returning(GAMES.c.id).cte("changed_game")
LOGGED = insert(EVENTS).from_select(
    ["game_id", *EVENT_COLUMNS], select(CHANGED.c.id, *EVENT_VALUES)
)
NOTIFY = func.pg_notify(bindparam("channel", type_=String), bindparam("payload", type_=String))
# PostgreSQL: one notification per payload, in one statement.
NOTIFY_EACH = text(
    "SELECT pg_notify(:channel, payload) FROM unnest(CAST(:payloads AS text[])) AS payload"
)
CREDENTIALS_CHANGE = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("game_id"))
    .values(
        host_token_hash=bindparam("new_host_token_hash"),
        player_token_hashes=bindparam(
            "new_player_token_hashes", type_=GAMES.c.player_token_hashes.type
        ),
        recovery_code_hash=bindparam("new_recovery_code_hash"),
    )
)
# A deleted game's keys: what is left says only "gone" (see IdempotencyKey).
KEYS_GONE = {
    "game_id": None,
    "state": "completed",
    "body": None,
    **answer_columns(Outcome.GAME_DELETED, None, None),
}
STORE_CHANGE = {
    announce: select(column).select_from(CHANGED).add_cte(LOGGED.cte("logged_event"))
    for announce, column in ((True, NOTIFY), (False, CHANGED.c.id))
}


def dialect_insert(connection: Connection) -> Any:
    """``INSERT`` with ``ON CONFLICT`` for the connection's database. Imported here: a
    process loads its own database's dialect only (PostgreSQL's is about 2 MiB)."""
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert
