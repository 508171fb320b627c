"""The use cases on a real database (SQLite and PostgreSQL), without HTTP: the services as
the app factory wires them, rendering through the API's presenter."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta

import pytest

from app.api.presenters import GameDocuments
from app.domain.game import NewPlayer
from app.persistence.db import Database
from app.services.calculations import Calculations
from app.services.games import GameService, NewGame
from app.services.history import HistoryService
from app.services.idempotency import Idempotency, request_fingerprint
from app.services.limits import WriteLimits
from app.services.reports import ReportService
from app.services.seats import SeatService
from app.services.tile_packs import load_catalogue
from app.services.transactions import GameTransactions

CATALOGUE = load_catalogue()
MAX_EVENTS = 12


@dataclass
class UseCases:
    db: Database
    transactions: GameTransactions
    games: GameService
    reports: ReportService
    history: HistoryService
    seats: SeatService


@dataclass(frozen=True)
class Created:
    id: str
    host: str
    players: dict[str, str]
    recovery_code: str = ""


def wire(db: Database, max_events: int = MAX_EVENTS) -> UseCases:
    """The use cases on ``db``, as the app factory wires them."""
    idempotency = Idempotency(db, timedelta(hours=24))
    transactions = GameTransactions(
        db, GameDocuments(CATALOGUE), limits=WriteLimits(max_events=max_events)
    )
    games = GameService(transactions, idempotency, CATALOGUE, Calculations(CATALOGUE))
    return UseCases(
        db,
        transactions,
        games,
        ReportService(transactions, idempotency),
        HistoryService(transactions, idempotency),
        SeatService(transactions, idempotency),
    )


@pytest.fixture
def use_cases(migrated_database: Database) -> Iterator[UseCases]:
    yield wire(migrated_database)


def new_game(*names: str, players_enter_faith: bool = False, track_rounds: bool = False) -> NewGame:
    return NewGame(
        players=[NewPlayer(name) for name in names or ("Anna", "Bruno", "Carla")],
        expansions=["base"],
        seed=42,
        tiles=None,
        players_enter_faith=players_enter_faith,
        track_rounds=track_rounds,
    )


def create(use_cases: UseCases, new: NewGame | None = None, key: str | None = None) -> Created:
    import json

    answer = use_cases.games.create_game(new or new_game(), key, request_fingerprint("t", "1"))
    body = json.loads(answer.body)
    return Created(
        body["game"]["id"], body["host_token"], body["player_tokens"], body["recovery_code"]
    )
