"""Builders of stored games for the persistence tests."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from app.persistence.models import Excommunication, Game, Player, Report, ReportDecision

GameFactory = Callable[..., Game]


def build_game(players: int = 3, *, reports: int = 2) -> Game:
    """A game with ``players`` players, one excommunication each, and ``reports``
    reports (the first resolved) with a decision per player."""
    game_id = uuid.uuid4().hex
    now = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    game = Game(
        id=game_id,
        version=1,
        seed=2**40 + 7,
        expansions=["base"],
        tile_ids={"1": "I-4", "2": "II-6", "3": "III-1"},
        players_enter_faith=False,
        host_token_hash="h" * 64,
        created_at=now,
        updated_at=now,
    )
    # Seats given in reverse so that the loaded order proves the ORDER BY.
    for seat in reversed(range(players)):
        game.players.append(
            Player(
                id=f"p{seat}",
                name=f"Player {seat}",
                seat=seat,
                turn_position=(seat + 1) % players,
                faith=seat,
                report_victory_points=0,
                leaders=["sisto_iv"] if seat == 0 else [],
                token_hash=f"{seat:064d}",
                excommunications=[Excommunication(period=1, tile_id="I-4")],
            )
        )
    for period in reversed(range(1, reports + 1)):
        game.reports.append(
            Report(
                period=period,
                status="resolved" if period == 1 else "open",
                outcomes=[{"player_id": "p0", "outcome": "supported"}] if period == 1 else None,
                resolved_at=now if period == 1 else None,
                decisions=[
                    ReportDecision(
                        player_id=f"p{seat}",
                        choice="support" if seat % 2 else "refuse",
                        updated_at=now,
                    )
                    for seat in reversed(range(players))
                ],
            )
        )
    return game


@pytest.fixture
def make_game() -> GameFactory:
    """``make_game(players=3, reports=2) -> Game`` (not yet added to a session)."""
    return build_game
