"""SQLAlchemy models of stored games, their event log and idempotency keys.

The tables are declared here for the migrations and the repositories' statements; the
repositories read and write plain rows (SQLAlchemy Core), never ORM objects, so a
request builds no identity map. Every table holding a game's data has a primary key that
starts with the game id, so the schema can be spread over a distributed PostgreSQL by game
(docs/scaling.md).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    DateTime,
    Dialect,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Declared with the values the storage port hands out; importers of models keep finding it.
from app.services.stored import utcnow as utcnow

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


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Game(Base):
    """One game: its state (what its events fold to), the read model served to clients, and
    who may touch it. Every change rewrites this row and appends one event, in one
    transaction (``app/services/transactions.py``)."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    version: Mapped[int] = mapped_column(Integer)
    # The domain's GameState as data (app/persistence/game_state.py).
    state: Mapped[dict[str, Any]] = mapped_column(JSON())
    # The rendered public document (GET /v1/games/{id}), and the key of the renderer and
    # catalogue that made it: a read with another key renders the document again.
    document: Mapped[str | None] = mapped_column(Text())
    document_key: Mapped[str | None] = mapped_column(String(64))
    host_token_hash: Mapped[str] = mapped_column(String(64))
    # A player whose token was revoked has no entry until the host issues it a new one.
    player_token_hashes: Mapped[dict[str, str]] = mapped_column(JSON())
    # The hash of the code that regains the host seat; null for a game created before
    # recovery codes existed (it has none).
    recovery_code_hash: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # The last change: games idle longer than the retention are deleted by it.
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
    # The host's write limit: the theoretical arrival time (GCRA, ms since the epoch) of its
    # next change; app/services/client_limits.py.
    write_tat_ms: Mapped[int] = mapped_column(BigInteger(), server_default="0")
    # Each player seat's [TAT, changes made]: a player spends only its own seat's budget.
    player_budgets: Mapped[dict[str, list[int]] | None] = mapped_column(JSON(none_as_null=True))


class Event(Base):
    """Append-only log of every change to a game, numbered by ``seq`` within the game."""

    __tablename__ = "events"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    type: Mapped[str] = mapped_column(String(40))
    at: Mapped[datetime] = mapped_column(UTCDateTime())
    data: Mapped[dict[str, Any]] = mapped_column(JSON())


class IdempotencyKey(Base):
    """A key's claim and its answer. When the game it acted on is deleted, what is left
    until it expires is a completed key with status 404 and no answer (no ``game_id``,
    headers or body): a retry with it answers 404 instead of acting again."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (CheckConstraint("state IN ('in_flight', 'completed')", name="state_known"),)

    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    # The game the answer belongs to (once known): deleted with it.
    game_id: Mapped[str | None] = mapped_column(String(32), index=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(12))
    locked_until: Mapped[datetime] = mapped_column(UTCDateTime())
    status_code: Mapped[int | None] = mapped_column(Integer)
    headers: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    body: Mapped[bytes | None] = mapped_column(LargeBinary())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


class CreationLimit(Base):
    """The game-creation limit of one client address: the theoretical arrival time (GCRA,
    ms since the epoch) of its next creation. A row whose time has passed says nothing a
    missing row would not, so the retention sweep deletes it."""

    __tablename__ = "creation_limits"

    address: Mapped[str] = mapped_column(String(64), primary_key=True)
    tat_ms: Mapped[int] = mapped_column(BigInteger(), index=True)
