"""The stored tables: games, their event log, idempotency keys and creation limits.

Declared here once, for the migrations (``migrations/env.py``) and the statements
(``statements.py``), as SQLAlchemy Core tables: the repositories read and write plain
rows, never ORM objects, and a process that declared its tables as ORM classes would load
the ORM's modules for nothing but that (bench/RESULTS.md). Every table holding a game's
data has a primary key that starts with the game id, so the schema can be spread over a
distributed PostgreSQL by game (docs/scaling.md).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    Column,
    DateTime,
    Dialect,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
)

from app.services.stored import utcnow

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every database.

    PostgreSQL stores ``timestamptz``; SQLite has no time zones and gives back naive
    values, which are UTC because only UTC is ever written.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given; use a timezone-aware UTC datetime")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


METADATA = MetaData(naming_convention=NAMING_CONVENTION)
SECONDS_PER_HOUR = 3600


def hour_of(at: datetime) -> int:
    """Whole hours since the Unix epoch at ``at`` (a game's ``updated_hour``)."""
    return int(at.timestamp() // SECONDS_PER_HOUR)


# One game: its state (what its events fold to), the read model served to clients, and who
# may touch it. Every change rewrites this row and appends one event, in one transaction
# (``app/services/transactions.py``).
GAMES = Table(
    "games",
    METADATA,
    Column("id", String(32), primary_key=True),
    Column("version", Integer(), nullable=False),
    # The domain's GameState as data (app/persistence/game_state.py).
    Column("state", JSON(), nullable=False),
    # The rendered public document (GET /v1/games/{id}), and the key of the renderer and
    # catalogue that made it: a read with another key renders the document again.
    Column("document", Text()),
    Column("document_key", String(64)),
    Column("host_token_hash", String(64), nullable=False),
    # A player whose token was revoked has no entry until the host issues it a new one.
    Column("player_token_hashes", JSON(), nullable=False),
    # The hash of the code that regains the host seat; null for a game created before
    # recovery codes existed (it has none).
    Column("recovery_code_hash", String(64)),
    Column("created_at", UTCDateTime(), nullable=False),
    # The last change: games idle longer than the retention are deleted by it.
    Column("updated_at", UTCDateTime(), nullable=False),
    # The hour of the last change (``hour_of(updated_at)``), which the retention sweep
    # finds idle games by. Not ``updated_at`` itself: an index on it is rewritten by every
    # change, and a change within the hour of the one before leaves this one alone (its
    # statement rewrites it only when the hour moves; bench/RESULTS.md). Never later than
    # ``hour_of(updated_at)``: 0 (the default) for a row written by a release that did not
    # know it, which the sweep only reads more of.
    Column("updated_hour", BigInteger(), nullable=False, server_default="0", index=True),
    # The host's write limit: the theoretical arrival time (GCRA, ms since the epoch) of its
    # next change; app/services/client_limits.py.
    Column("write_tat_ms", BigInteger(), nullable=False, server_default="0"),
    # Each player seat's [TAT, changes made]: a player spends only its own seat's budget.
    Column("player_budgets", JSON(none_as_null=True)),
)

# The append-only log of every change to a game, numbered by ``seq`` within the game.
EVENTS = Table(
    "events",
    METADATA,
    Column("game_id", String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("seq", Integer(), primary_key=True),
    Column("type", String(40), nullable=False),
    Column("at", UTCDateTime(), nullable=False),
    Column("data", JSON(), nullable=False),
)

# A key's claim and its answer. When the game it acted on is deleted, what is left until it
# expires is a completed key with status 404 and no answer (no ``game_id``, headers or
# body): a retry with it answers 404 instead of acting again.
IDEMPOTENCY_KEYS = Table(
    "idempotency_keys",
    METADATA,
    Column("key_hash", String(64), primary_key=True),
    # The game the answer belongs to (once known): deleted with it.
    Column("game_id", String(32), index=True),
    Column("request_hash", String(64), nullable=False),
    Column("state", String(12), nullable=False),
    Column("locked_until", UTCDateTime(), nullable=False),
    Column("status_code", Integer()),
    Column("headers", JSON(none_as_null=True)),
    Column("body", LargeBinary()),
    Column("created_at", UTCDateTime(), nullable=False, default=utcnow),
    Column("expires_at", UTCDateTime(), nullable=False, index=True),
    CheckConstraint("state IN ('in_flight', 'completed')", name="state_known"),
)

# The game-creation limit of one client address: the theoretical arrival time (GCRA, ms
# since the epoch) of its next creation. A row whose time has passed says nothing a missing
# row would not, so the retention sweep deletes it.
CREATION_LIMITS = Table(
    "creation_limits",
    METADATA,
    Column("address", String(64), primary_key=True),
    Column("tat_ms", BigInteger(), nullable=False, index=True),
)
