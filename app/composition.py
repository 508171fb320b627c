"""The use cases, wired once from the settings: the app factory (app/main.py) serves them
over HTTP, and the use-case tests drive the very same objects without HTTP. Nothing here
holds per-request state; every request shares what this builds."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from app.api.presenters import GameDocuments
from app.domain.tiles import Catalogue
from app.persistence.changes import ChangeFeed
from app.persistence.db import Database
from app.services.calculations import Calculations
from app.services.games import GameService
from app.services.history import HistoryService
from app.services.idempotency import Idempotency
from app.services.limits import Rate, WriteLimits
from app.services.reports import ReportService
from app.services.seats import SeatService
from app.services.transactions import GameTransactions
from app.settings import Settings


@dataclass(frozen=True)
class UseCases:
    db: Database
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


def compose_use_cases(settings: Settings, db: Database, catalogue: Catalogue) -> UseCases:
    idempotency = Idempotency(db, timedelta(hours=settings.idempotency_ttl_hours))
    changes = ChangeFeed(db, poll_seconds=settings.change_poll_seconds)
    # Reads of a game on the event loop, with no thread held (PostgreSQL only; measured).
    rows = db.async_game_rows(settings.db_pool_size) if settings.db_async_reads else None
    transactions = GameTransactions(
        db, GameDocuments(catalogue), limits=write_limits(settings), changes=changes, rows=rows
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
        db=db,
        catalogue=catalogue,
        changes=changes,
        idempotency=idempotency,
        transactions=transactions,
        calculations=calculations,
        games=games,
        reports=ReportService(transactions, idempotency),
        history=HistoryService(transactions, idempotency),
        seats=SeatService(transactions, idempotency),
    )
