"""The documents of a stored game that its events carry too: a player, a round, a report."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from app.api.schemas.base import PeriodNumber, ResponseModel
from app.domain.leaders import LeaderId as Leader
from app.domain.report import Choice, Outcome

RoundNumber = Annotated[int, Field(ge=1, le=6)]


class ExcommunicationRead(ResponseModel):
    period: PeriodNumber
    tile_id: str


class PlayerRead(ResponseModel):
    id: str
    name: str
    faith: int
    report_victory_points: int
    leaders: list[Leader]
    excommunications: list[ExcommunicationRead]


class RoundRead(ResponseModel):
    number: RoundNumber
    phase: Literal["play", "report"] = Field(
        description="`report` once the Vatican Report phase of round 2, 4 or 6 has begun."
    )


class DecisionRead(ResponseModel):
    player_id: str
    eligible: bool
    choice: Choice | None


class ReportRead(ResponseModel):
    period: PeriodNumber
    round: int
    threshold: int
    status: Literal["open", "resolved"]
    tile_id: str
    decisions: list[DecisionRead]
    outcomes: list[Outcome] | None
    resolved_at: datetime | None = None
