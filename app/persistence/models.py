"""SQLAlchemy models of stored games, their event log and idempotency keys.

Every relationship is ``lazy="raise"``: a repository loads what a use case needs
explicitly, so an accidental N+1 fails a test instead of slowing a server.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    ForeignKey,
    ForeignKeyConstraint,
    Integer,
    LargeBinary,
    MetaData,
    String,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.ext.mutable import MutableDict, MutableList
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


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
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    version: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int | None] = mapped_column(BigInteger)
    expansions: Mapped[list[str]] = mapped_column(MutableList.as_mutable(JSON()))
    tile_ids: Mapped[dict[str, str]] = mapped_column(MutableDict.as_mutable(JSON()))
    players_enter_faith: Mapped[bool] = mapped_column(Boolean)
    host_token_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)

    players: Mapped[list[Player]] = relationship(
        order_by="Player.seat", cascade="all, delete-orphan", lazy="raise"
    )
    reports: Mapped[list[Report]] = relationship(
        order_by="Report.period", cascade="all, delete-orphan", lazy="raise"
    )


class Player(Base):
    __tablename__ = "players"
    __table_args__ = (
        UniqueConstraint("game_id", "name"),
        CheckConstraint("faith >= 0", name="faith_not_negative"),
        CheckConstraint("report_victory_points >= 0", name="report_victory_points_not_negative"),
    )

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    seat: Mapped[int] = mapped_column(Integer)
    turn_position: Mapped[int] = mapped_column(Integer)
    faith: Mapped[int] = mapped_column(Integer)
    report_victory_points: Mapped[int] = mapped_column(Integer)
    leaders: Mapped[list[str]] = mapped_column(MutableList.as_mutable(JSON()))
    token_hash: Mapped[str] = mapped_column(String(64))

    excommunications: Mapped[list[Excommunication]] = relationship(
        order_by="Excommunication.period", cascade="all, delete-orphan", lazy="raise"
    )


class Excommunication(Base):
    __tablename__ = "excommunications"
    __table_args__ = (
        ForeignKeyConstraint(
            ["game_id", "player_id"], ["players.game_id", "players.id"], ondelete="CASCADE"
        ),
        CheckConstraint("period BETWEEN 1 AND 3", name="period_range"),
    )

    game_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    period: Mapped[int] = mapped_column(Integer, primary_key=True)
    tile_id: Mapped[str] = mapped_column(String(16))


class Report(Base):
    __tablename__ = "reports"
    __table_args__ = (
        CheckConstraint("period BETWEEN 1 AND 3", name="period_range"),
        CheckConstraint("status IN ('open', 'resolved')", name="status_known"),
    )

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    period: Mapped[int] = mapped_column(Integer, primary_key=True)
    status: Mapped[str] = mapped_column(String(16))
    outcomes: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON(none_as_null=True))
    resolved_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    decisions: Mapped[list[ReportDecision]] = relationship(
        order_by="ReportDecision.player_id", cascade="all, delete-orphan", lazy="raise"
    )


class ReportDecision(Base):
    __tablename__ = "report_decisions"
    __table_args__ = (
        ForeignKeyConstraint(
            ["game_id", "period"], ["reports.game_id", "reports.period"], ondelete="CASCADE"
        ),
        CheckConstraint("choice IN ('support', 'refuse')", name="choice_known"),
    )

    game_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    period: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    choice: Mapped[str] = mapped_column(String(8))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)


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

    # Never loaded (lazy="raise"); it makes the unit of work insert a new game before
    # the events appended with it in the same flush.
    game: Mapped[Game] = relationship(lazy="raise")


class IdempotencyKey(Base):
    __tablename__ = "idempotency_keys"
    __table_args__ = (CheckConstraint("state IN ('in_flight', 'completed')", name="state_known"),)

    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(12))
    locked_until: Mapped[datetime] = mapped_column(UTCDateTime())
    status_code: Mapped[int | None] = mapped_column(Integer)
    headers: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    body: Mapped[bytes | None] = mapped_column(LargeBinary())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
