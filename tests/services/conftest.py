"""The use cases on a real database (SQLite and PostgreSQL), without HTTP: the services as
the app factory wires them (one composition, app/composition.py)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from app.composition import UseCases, compose_use_cases
from app.domain.game import NewPlayer
from app.persistence.db import Database
from app.services.games import NewGame
from app.services.idempotency import request_fingerprint
from app.services.tile_packs import load_catalogue
from app.settings import Settings

CATALOGUE = load_catalogue()
MAX_EVENTS = 12


@dataclass(frozen=True)
class Created:
    id: str
    host: str
    players: dict[str, str]
    recovery_code: str = ""


def wire(db: Database, max_events: int = MAX_EVENTS) -> UseCases:
    """The use cases on ``db``, wired as the app wires them (app/composition.py), with no
    rate limits (a test's changes come faster than any table's) and a short event log."""
    settings = Settings(
        database_url=db.url,
        game_write_rate=0,
        player_write_rate=0,
        game_creation_rate=0,
        max_events_per_game=max_events,
        db_async_reads=False,
    )
    return compose_use_cases(settings, db, CATALOGUE)


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
