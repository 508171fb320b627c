"""The statements of every read and change of a game, built once at import and bound per
call: SQLAlchemy coerces each clause of a new statement object and computes its cache key
again, which cost a change more than its two round trips on loopback (bench/RESULTS.md).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    BindParameter,
    Connection,
    Delete,
    Dialect,
    Integer,
    Select,
    String,
    Update,
    bindparam,
    delete,
    func,
    insert,
    literal_column,
    select,
    text,
    update,
)

from app.persistence.key_answers import answer_columns
from app.persistence.tables import EVENTS, GAMES, IDEMPOTENCY_KEYS
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
# A change's read, with the hour its row holds: the change sets it only when it moves.
GAME_STATE_LOCKED = GAME_STATE.add_columns(GAMES.c.updated_hour).with_for_update()
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
# What a recovery's code is checked against before it is admitted: the version's read and
# the code's hash, never the state (a stranger's guesses parse nothing of it). Apart from
# GAME_VERSION, which a 304 sends, so that the reads clients poll with stay as narrow.
GAME_RECOVERY = GAME_VERSION.add_columns(GAMES.c.recovery_code_hash)
# Whether an Idempotency-Key is stored (an answer, or a claim in flight), without its answer.
KEY_STORED = select(IDEMPOTENCY_KEYS.c.key_hash).where(
    IDEMPOTENCY_KEYS.c.key_hash == bindparam("key_hash")
)


def driver_sql(statement: Select[Any], dialect: Dialect) -> str:
    """``statement`` as its driver's own SQL, for the reads on the event loop that go to
    the driver without SQLAlchemy (``async_reads.py``, ``sqlite_reads.py``): compiled from
    the one declaration here, in the driver's parameter style (its one parameter is
    ``game_id``)."""
    return str(statement.compile(dialect=dialect))


def _new_values(*columns: str) -> dict[str, BindParameter[Any]]:
    """The games' ``columns``, each bound to ``new_<column>`` with its column's type."""
    return {column: bindparam(f"new_{column}", type_=GAMES.c[column].type) for column in columns}


# A new game's row.
GAME_INSERT = insert(GAMES).values(
    _new_values(
        "id",
        "version",
        "state",
        "document",
        "document_key",
        "host_token_hash",
        "player_token_hashes",
        "recovery_code_hash",
        "created_at",
        "updated_at",
        "updated_hour",
    )
)
# A change: the row rewritten only if the game is still at the version the change read.
# Its ``updated_hour`` is left alone unless the change falls in another hour than the row
# holds (``GAME_CHANGE_HOURLY``): SQLite rewrites an index whenever its column is set, to
# the value it had too. PostgreSQL's one statement always sets it (an indexed column set
# to the value it had leaves the update a heap-only one).
GAME_CHANGE = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("game_id"), GAMES.c.version == bindparam("read_version"))
    .values(
        _new_values(
            "version",
            "state",
            "document",
            "document_key",
            "updated_at",
            "write_tat_ms",
            "player_budgets",
        )
    )
)
GAME_CHANGE_HOURLY = GAME_CHANGE.values(_new_values("updated_hour"))
# The retention sweep's batch: games last changed before ``before``, found by the hour's
# index (a row's hour is never later than its last change's), oldest hour first, so that
# a sweep reads its batch and no more. Ordered by ``id`` instead, SQLite walked the
# primary key and read every game to fill a batch (tests/persistence/test_updated_hour.py).
IDLE_GAMES = (
    select(GAMES.c.id)
    .where(
        GAMES.c.updated_hour <= bindparam("before_hour", type_=GAMES.c.updated_hour.type),
        GAMES.c.updated_at < bindparam("before", type_=GAMES.c.updated_at.type),
    )
    .order_by(GAMES.c.updated_hour)
    .limit(bindparam("batch", type_=Integer()))
)
# Skipping the games another transaction holds (PostgreSQL), locking the others.
IDLE_GAMES_LOCKED = IDLE_GAMES.with_for_update(skip_locked=True)
EVENT_COLUMNS = ("seq", "type", "data", "at")
EVENT_VALUES = [bindparam(f"event_{c}", type_=EVENTS.c[c].type) for c in EVENT_COLUMNS]
EVENT_APPEND = insert(EVENTS).values(
    dict(zip(("game_id", *EVENT_COLUMNS), (bindparam("event_game"), *EVENT_VALUES), strict=True))
)
# PostgreSQL: the change in one statement (see store_change); its one row says it stored.
CHANGED = GAME_CHANGE_HOURLY.returning(GAMES.c.id).cte("changed_game")
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
    """``INSERT`` with ``ON CONFLICT`` for the connection's database."""
    return dialect_insert_of(connection.dialect.name)


def dialect_insert_of(name: str) -> Any:
    """``INSERT`` with ``ON CONFLICT`` for the database named ``name``. Imported here: a
    process loads its own database's dialect only (PostgreSQL's is about 2 MiB)."""
    if name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert


# An Idempotency-Key's row, and what a keyed request writes to it (idempotency_keys.py).
def _key_value(column: str) -> BindParameter[Any]:
    return bindparam(f"new_{column}", type_=IDEMPOTENCY_KEYS.c[column].type)


KEY_ROW = select(IDEMPOTENCY_KEYS).where(IDEMPOTENCY_KEYS.c.key_hash == bindparam("key_hash"))
KEY_ROW_LOCKED = KEY_ROW.with_for_update()
KEY_ROW_LOCKED_NOWAIT = KEY_ROW.with_for_update(nowait=True)
KEY_CLAIM_COLUMNS = (
    "key_hash",
    "game_id",
    "request_hash",
    "state",
    "locked_until",
    "created_at",
    "expires_at",
)
KEY_LEASE: Update = (
    update(IDEMPOTENCY_KEYS)
    .where(IDEMPOTENCY_KEYS.c.key_hash == bindparam("key_hash"))
    .values(locked_until=_key_value("locked_until"))
)
KEY_COMPLETE: Update = (
    update(IDEMPOTENCY_KEYS)
    .where(IDEMPOTENCY_KEYS.c.key_hash == bindparam("key_hash"))
    .values(
        {
            column: _key_value(column)
            for column in ("state", "game_id", "body", "status_code", "headers")
        }
    )
)
KEY_RELEASE: Delete = delete(IDEMPOTENCY_KEYS).where(
    IDEMPOTENCY_KEYS.c.key_hash == bindparam("key_hash"),
    IDEMPOTENCY_KEYS.c.state == literal_column("'in_flight'"),
)
KEY_EXPIRED: Delete = delete(IDEMPOTENCY_KEYS).where(
    IDEMPOTENCY_KEYS.c.key_hash == bindparam("key_hash"),
    IDEMPOTENCY_KEYS.c.expires_at < bindparam("now", type_=IDEMPOTENCY_KEYS.c.expires_at.type),
)


def key_claim(dialect: Dialect) -> Any:
    """A key's row inserted unless its ``key_hash`` exists (``ON CONFLICT DO NOTHING``
    leaves the transaction usable either way): its ``key_hash`` comes back when it was."""
    return (
        dialect_insert_of(dialect.name)(IDEMPOTENCY_KEYS)
        .values({column: _key_value(column) for column in KEY_CLAIM_COLUMNS})
        .on_conflict_do_nothing(index_elements=[IDEMPOTENCY_KEYS.c.key_hash])
        .returning(IDEMPOTENCY_KEYS.c.key_hash)
    )
