"""Stored games and domain results as response models."""

from __future__ import annotations

from fastapi import Response

from app.api.schemas.base import raw_json_response
from app.api.schemas.calculations import (
    GainRead,
    GainSourceRead,
    GainsResult,
    GainStepRead,
    OutcomeRead,
    PlayerScoreRead,
    ScorePartRead,
)
from app.api.schemas.games import (
    DecisionRead,
    ExcommunicationRead,
    GameRead,
    PlayerRead,
    ReportRead,
    ReportSummary,
)
from app.api.schemas.reference import TileRead
from app.domain import gains as domain_gains
from app.domain.faith import period_info
from app.domain.report import Choice, is_eligible
from app.domain.scoring import PlayerScore
from app.domain.tiles import Catalogue
from app.persistence.views import GameLike, PlayerLike, ReportLike
from app.services.idempotency import StoredAnswer
from app.services.store import turn_order


def player_read(player: PlayerLike) -> PlayerRead:
    return PlayerRead(
        id=player.id,
        name=player.name,
        faith=player.faith,
        report_victory_points=player.report_victory_points,
        leaders=list(player.leaders),
        excommunications=[
            ExcommunicationRead(period=e.period, tile_id=e.tile_id) for e in player.excommunications
        ],
    )


def game_read(game: GameLike, catalogue: Catalogue) -> GameRead:
    return GameRead(
        id=game.id,
        version=game.version,
        seed=game.seed,
        expansions=list(game.expansions),
        players_enter_faith=game.players_enter_faith,
        tiles={
            period: TileRead.of(catalogue.require(tile_id))
            for period, tile_id in sorted(game.tile_ids.items())
        },
        turn_order=[p.id for p in turn_order(game)],
        players=[player_read(p) for p in game.players],
        reports=[
            ReportSummary(
                period=r.period,
                status="resolved" if r.status == "resolved" else "open",
                threshold=period_info(r.period).threshold,
            )
            for r in game.reports
        ],
    )


def report_read(game: GameLike, report: ReportLike) -> ReportRead:
    info = period_info(report.period)
    choices = {d.player_id: d.choice for d in report.decisions}
    outcomes = None if report.outcomes is None else [OutcomeRead(**o) for o in report.outcomes]
    faith_before = {o.player_id: o.faith_before for o in outcomes or []}
    return ReportRead(
        period=report.period,
        round=info.report_round,
        threshold=info.threshold,
        status="resolved" if report.status == "resolved" else "open",
        tile_id=game.tile_ids[str(report.period)],
        decisions=[
            DecisionRead(
                player_id=p.id,
                eligible=is_eligible(report.period, faith_before.get(p.id, p.faith)),
                choice=_choice(choices.get(p.id)),
            )
            for p in turn_order(game)
        ],
        outcomes=outcomes,
        resolved_at=report.resolved_at,
    )


def _choice(value: str | None) -> Choice | None:
    """A stored choice as its literal type (the database's CHECK allows only these)."""
    if value == "support":
        return "support"
    if value == "refuse":
        return "refuse"
    return None


def gains_read(result: domain_gains.GainsResult) -> GainsResult:
    return GainsResult(
        gains=[
            GainRead(
                source=GainSourceRead(kind=o.gain.source_kind, name=o.gain.source_name),
                received=o.received,
                steps=[
                    GainStepRead(rule=s.rule, by=s.by, change=s.change, note=s.note)
                    for s in o.steps
                ],
                result=o.result,
            )
            for o in result.gains
        ],
        total=result.total,
    )


def scores_read(scores: list[PlayerScore]) -> list[PlayerScoreRead]:
    return [
        PlayerScoreRead(
            player_id=s.player_id,
            parts=[
                ScorePartRead(rule=p.rule, part=p.part, change=p.change, by=p.by, note=p.note)
                for p in s.parts
            ],
            total=s.total,
        )
        for s in scores
    ]


def replayable(answer: StoredAnswer) -> Response:
    """The answer of an idempotent operation, marked when it is a replay of the first."""
    headers = dict(answer.headers)
    if answer.replayed:
        headers["Idempotent-Replayed"] = "true"
    return raw_json_response(answer.body, answer.status_code, headers)
