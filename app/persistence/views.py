"""Read-only snapshots of a stored game, for the use cases that change nothing.

Reads are most of the traffic and the ORM's identity map and relationship loading cost
several times the queries themselves, so reads take plain rows into these frozen
dataclasses instead. They carry the same attribute names as the ORM models, so the rules
and the presenters take either.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.persistence.models import Game, Player, Report


@dataclass(frozen=True, slots=True)
class ExcommunicationView:
    period: int
    tile_id: str


@dataclass(frozen=True, slots=True)
class PlayerView:
    id: str
    name: str
    seat: int
    turn_position: int
    faith: int
    report_victory_points: int
    leaders: list[str]
    token_hash: str
    excommunications: tuple[ExcommunicationView, ...]


@dataclass(frozen=True, slots=True)
class DecisionView:
    player_id: str
    choice: str


@dataclass(frozen=True, slots=True)
class ReportView:
    period: int
    status: str
    outcomes: list[dict[str, Any]] | None
    resolved_at: datetime | None
    decisions: tuple[DecisionView, ...]


@dataclass(frozen=True, slots=True)
class GameView:
    id: str
    version: int
    seed: int | None
    expansions: list[str]
    tile_ids: dict[str, str]
    players_enter_faith: bool
    host_token_hash: str
    players: tuple[PlayerView, ...]
    reports: tuple[ReportView, ...]


# What the rules and presenters read: a locked ORM object (writes) or a snapshot (reads).
GameLike = Game | GameView
PlayerLike = Player | PlayerView
ReportLike = Report | ReportView
