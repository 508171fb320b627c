"""What clients read of a stored game: a report as the Report document, a player as the
Player document (the stored state keeps players so too)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.domain.faith import period_info
from app.domain.json_data import from_data, to_data
from app.domain.report import Choice, Outcome, is_eligible
from app.domain.state import GameState, PlayerState, ReportStatus


@dataclass(frozen=True, slots=True)
class DecisionView:
    player_id: str
    eligible: bool
    choice: Choice | None


@dataclass(frozen=True, slots=True)
class ReportView:
    """A report as clients read it (the API's Report document)."""

    period: int
    round: int
    threshold: int
    status: ReportStatus
    tile_id: str
    decisions: tuple[DecisionView, ...]  # in turn order
    outcomes: tuple[Outcome, ...] | None
    resolved_at: datetime | None


def report_view(game: GameState, period: int) -> ReportView:
    """R-REP-5: who may choose in the report of ``period``, who chose what, and once it is
    resolved what it did; eligibility as it was when it was resolved (the outcomes keep
    the faith before)."""
    report = game.report(period)
    info = period_info(period)
    faith_before = {o.player_id: o.faith_before for o in report.outcomes or ()}
    return ReportView(
        period=period,
        round=info.report_round,
        threshold=info.threshold,
        status=report.status,
        tile_id=game.tile_ids[period],
        decisions=tuple(
            DecisionView(
                p.id,
                is_eligible(period, faith_before.get(p.id, p.faith)),
                report.choice_of(p.id),
            )
            for p in game.in_turn_order()
        ),
        outcomes=report.outcomes,
        resolved_at=report.resolved_at,
    )


def player_data(player: PlayerState) -> dict[str, Any]:
    """A player as JSON-ready data, as clients read it (the stored state keeps it so too)."""
    data: dict[str, Any] = to_data(player)
    return data


def player_from_data(data: Mapping[str, Any]) -> PlayerState:
    """The player :func:`player_data` gave."""
    player: PlayerState = from_data(PlayerState, data)
    return player
