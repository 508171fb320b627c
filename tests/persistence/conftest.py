"""Builders of stored games for the persistence tests: real states, made by the rules."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from app.domain import game as rules
from app.domain.game import GameEvent, GameState, NewPlayer, apply
from app.persistence.db import Database
from app.persistence.repositories import Credentials, GameRepository
from app.services.storage import LostRace
from tests.support.tile_packs import catalogue_with_hor, expansions_for

GameFactory = Callable[..., GameState]
AT = datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)


def build_game(players: int = 3) -> GameState:
    """A game of ``players`` with everything a state holds: faith set, the period I report
    resolved (outcomes, an excommunication), a decision in period II, a new turn order."""
    game_id = uuid.uuid4().hex
    names = [
        NewPlayer(f"Player {seat}", ("sisto_iv",) if seat == 0 else ()) for seat in range(players)
    ]
    events = [
        rules.create_game(
            catalogue_with_hor(),
            names,
            expansions_for(players),
            seed=2**40 + 7,
            tiles=None,
            players_enter_faith=False,
            random_seed=0,
        )
    ]
    game = apply(None, events[0], game_id=game_id, seq=1, at=AT)
    for change in (
        lambda g: rules.set_faith(g, {f"p{seat + 1}": 2 + seat * 2 for seat in range(players)}),
        lambda g: rules.resolve(g, 1, "support"),
        lambda g: rules.set_turn_order(g, [*g.turn_order[1:], g.turn_order[0]]),
        lambda g: rules.set_faith(g, {"p2": 9}),
        lambda g: rules.set_decision(g, 2, "p2", "refuse"),
    ):
        game = apply(game, change(game), game_id=game_id, seq=game.version + 1, at=AT)
    return game


def credentials(game: GameState) -> Credentials:
    players = {p.id: f"{i:064d}" for i, p in enumerate(game.players)}
    return Credentials("h" * 64, players, recovery_code_hash="r" * 64)


def store_as_changed(
    repository: GameRepository,
    game: GameState,
    document: str = "{}",
    *,
    read_version: int | None = None,
) -> bool:
    """Store ``game`` as a change read at ``read_version`` (by default the version before
    it) would: its state, document and an event numbered by its version; the event's
    content does not matter to these tests. False when the game was at another version."""
    event = GameEvent("turn_order_set", {"turn_order": list(game.turn_order)})
    if read_version is None:
        read_version = game.version - 1
    try:
        repository.store_change(
            game, document, "k", event, AT, read_version=read_version, write_tat_ms=0
        )
    except LostRace:
        return False
    return True


def store(database: Database, game: GameState) -> None:
    with database.transaction(write=True) as connection:
        GameRepository(connection).insert(game, credentials(game), "{}", "key", AT)


@pytest.fixture
def make_game() -> GameFactory:
    """``make_game(players=3) -> GameState`` (not stored)."""
    return build_game


READ_KINDS = ("document", "version", "state", "recovery")
NO_GAME = "0" * 32


def repository_reads(database: Database, game_id: str) -> tuple[Any, ...]:
    """What the repository reads of ``game_id`` (each of ``READ_KINDS``), then of a game
    that does not exist (None each): what the reads on the event loop must return."""
    with database.transaction(write=False) as connection:
        repository = GameRepository(connection)
        found = tuple(getattr(repository, kind)(game_id) for kind in READ_KINDS)
    _document, version, state, recovery = found
    assert state is not None and recovery is not None and version is not None
    # The recovery's read holds the code's hash, which the version's leaves out.
    assert recovery.credentials == state.credentials
    assert version.credentials.recovery_code_hash is None
    return (*found, *(None,) * len(READ_KINDS))


async def loop_reads(rows: Any, game_id: str) -> tuple[Any, ...]:
    """The same reads through ``rows`` (an ``AsyncGameReads``), which it closes."""
    try:
        return tuple(
            [await getattr(rows, kind)(game) for game in (game_id, NO_GAME) for kind in READ_KINDS]
        )
    finally:
        await rows.close()
