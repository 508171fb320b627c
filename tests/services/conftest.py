"""The use cases without HTTP, wired as the app factory wires them (one composition,
app/composition.py), on each implementation of the storage port: the in-memory fake
(tests/support/fake_storage.py, fast), SQLite and PostgreSQL (marked ``postgres``). The
same tests on all three keep the fake from drifting from the database's semantics."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.composition import StoragePorts, UseCases, compose, database_ports
from app.domain.game import NewPlayer
from app.persistence.db import Database
from app.services.games import NewGame
from app.services.idempotency import request_fingerprint
from app.services.storage import Storage
from app.services.tile_packs import load_catalogue
from app.settings import Settings
from tests.conftest import truncate_all
from tests.support.fake_storage import FakeChangeFeed, FakeStorage

CATALOGUE = load_catalogue()
MAX_EVENTS = 12


@dataclass(frozen=True)
class Created:
    id: str
    host: str
    players: dict[str, str]
    recovery_code: str = ""


def wire(storage: Storage, max_events: int = MAX_EVENTS) -> UseCases:
    """The use cases on ``storage`` (a ``Database`` or the fake), wired as the app wires
    them (app/composition.py), with no rate limits (a test's changes come faster than any
    table's) and a short event log."""
    settings = Settings(
        database_url=storage.url if isinstance(storage, Database) else "sqlite://",
        game_write_rate=0,
        player_write_rate=0,
        game_creation_rate=0,
        max_events_per_game=max_events,
        db_async_reads=False,
    )
    if isinstance(storage, Database):
        return compose(settings, database_ports(settings, storage), CATALOGUE)
    return compose(settings, StoragePorts(storage, FakeChangeFeed()), CATALOGUE)


@pytest.fixture(
    params=[
        pytest.param("fake", id="fake"),
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ]
)
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    """Each implementation of the storage port, empty: the fake, then a SQLite and a
    PostgreSQL database at the head migration (as ``database_url`` makes them)."""
    if request.param == "fake":
        yield FakeStorage()
        return
    if request.param == "sqlite":
        path = tmp_path / "test.db"
        shutil.copyfile(request.getfixturevalue("sqlite_migrated_template"), path)
        url = f"sqlite:///{path}"
    else:
        url = request.getfixturevalue("postgres_migrated_url")
        truncate_all(url)
    database = Database(url)
    try:
        yield database
    finally:
        database.dispose()


@pytest.fixture
def use_cases(storage: Storage) -> Iterator[UseCases]:
    yield wire(storage)


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
