"""The use cases, wired once from the settings and a storage: the app factory (app/main.py)
serves them over HTTP on the database, and the use-case tests drive the very same objects
without HTTP, on the database or on the in-memory storage of tests/support. This is the one
module that joins the services to the persistence that implements their storage port.
Nothing here holds per-request state; every request shares what this builds."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from app.api.presenters import JsonPresenter
from app.domain.tiles import Catalogue
from app.persistence.changes import ChangeFeed as DatabaseChangeFeed
from app.persistence.db import Database
from app.persistence.errors import outage_detail
from app.services.calculations import Calculations
from app.services.client_limits import Rate, WriteLimits
from app.services.games import GameService
from app.services.health import recognize_outages
from app.services.history import HistoryService
from app.services.idempotency import Idempotency
from app.services.reports import ReportService
from app.services.seats import SeatService
from app.services.storage import AsyncGameReads, ChangeFeed, Storage
from app.services.transactions import GameTransactions
from app.settings import Settings


@dataclass(frozen=True)
class StoragePorts:
    """What the use cases store through: the units of work, the feed that hears every
    process's commits, and (where the storage has them) reads on the event loop."""

    storage: Storage
    changes: ChangeFeed
    rows: AsyncGameReads | None = None


@dataclass(frozen=True)
class UseCases:
    storage: Storage
    catalogue: Catalogue
    changes: ChangeFeed
    idempotency: Idempotency
    transactions: GameTransactions
    calculations: Calculations
    games: GameService
    reports: ReportService
    history: HistoryService
    seats: SeatService


def write_limits(settings: Settings) -> WriteLimits:
    """A game's change budgets, as the settings give them."""
    return WriteLimits(
        host=Rate(settings.game_write_rate, settings.game_write_burst),
        player=Rate(settings.player_write_rate, settings.player_write_burst),
        max_events=settings.max_events_per_game,
        max_player_events=settings.max_events_per_player,
    )


def database_ports(settings: Settings, db: Database) -> StoragePorts:
    """The storage port on the database: its units of work, its change feed, and its reads
    of a game on the event loop, with no thread held (measured)."""
    rows = db.async_game_rows(settings.db_pool_size) if settings.db_async_reads else None
    # The driver's errors that reach the edge outside a unit of work are outages too.
    recognize_outages(outage_detail)
    return StoragePorts(db, DatabaseChangeFeed(db, poll_seconds=settings.change_poll_seconds), rows)


def compose_use_cases(settings: Settings, db: Database, catalogue: Catalogue) -> UseCases:
    """The use cases on the database, as the app serves them."""
    return compose(settings, database_ports(settings, db), catalogue)


def compose(settings: Settings, ports: StoragePorts, catalogue: Catalogue) -> UseCases:
    """The use cases on any implementation of the storage port."""
    storage = ports.storage
    idempotency = Idempotency(
        storage, timedelta(hours=settings.idempotency_ttl_hours), rows=ports.rows
    )
    transactions = GameTransactions(
        storage,
        JsonPresenter(catalogue),
        limits=write_limits(settings),
        changes=ports.changes,
        rows=ports.rows,
    )
    calculations = Calculations(catalogue)
    games = GameService(
        transactions,
        idempotency,
        catalogue,
        calculations,
        creation_rate=Rate(settings.game_creation_rate, settings.game_creation_burst),
    )
    return UseCases(
        storage=storage,
        catalogue=catalogue,
        changes=ports.changes,
        idempotency=idempotency,
        transactions=transactions,
        calculations=calculations,
        games=games,
        reports=ReportService(transactions, idempotency),
        history=HistoryService(transactions, idempotency),
        seats=SeatService(transactions, idempotency),
    )
