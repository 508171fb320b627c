"""Stateless calculations: nothing is stored and no token is needed."""

from __future__ import annotations

from fastapi import APIRouter, Request

from app.api.contract.dependencies import calculations_of
from app.api.platform.admission import stores_nothing
from app.api.platform.explicit_route import ExplicitRoute
from app.api.platform.responses import JSONDocumentResponse, JSONModelResponse
from app.api.presenters import final_scores_document, gains_document
from app.api.problems import problem_responses
from app.api.schemas.calculations import (
    ActionValueCalculation,
    ActionValueResult,
    FinalScoresCalculation,
    FinalScoresResult,
    GainsCalculation,
    GainsResult,
    PlacementOrderCalculation,
    PlacementOrderResult,
    VaticanReportCalculation,
    VaticanReportResult,
)

router = APIRouter(prefix="/v1/calculations", tags=["calculations"], route_class=ExplicitRoute)
INPUT_PROBLEMS = problem_responses("validation-error", "unsupported-media-type")


@router.post(
    "/vatican-report",
    operation_id="calculateVaticanReport",
    response_model=VaticanReportResult,
    responses=INPUT_PROBLEMS,
)
@stores_nothing
async def calculate_vatican_report(
    body: VaticanReportCalculation, request: Request
) -> JSONModelResponse:
    """R-REP-*: resolve a report for players given in turn order. An eligible player
    without a choice (and no `default_choice`) is a 422 naming them in `pending`, except
    in period 3 (R-REP-6)."""
    result = calculations_of(request).vatican_report(
        body.period, body.tile_id, [p.to_domain() for p in body.players], body.default_choice
    )
    return JSONModelResponse(VaticanReportResult.model_validate(result))


@router.post(
    "/gains",
    operation_id="calculateGains",
    response_model=GainsResult,
    responses=INPUT_PROBLEMS,
)
@stores_nothing
async def calculate_gains(body: GainsCalculation, request: Request) -> JSONDocumentResponse:
    """R-GAIN-*: what each gain really delivers, step by step."""
    result = calculations_of(request).gains(
        body.excommunications, body.leaders, [g.to_domain() for g in body.gains]
    )
    return JSONDocumentResponse(gains_document(result))


@router.post(
    "/action-value",
    operation_id="calculateActionValue",
    response_model=ActionValueResult,
    responses=INPUT_PROBLEMS,
)
@stores_nothing
async def calculate_action_value(
    body: ActionValueCalculation, request: Request
) -> JSONModelResponse:
    """R-ACT-*: an action's final value, whether it is allowed and reaches a required value."""
    result = calculations_of(request).action_value(body.excommunications, body.to_domain())
    return JSONModelResponse(ActionValueResult.model_validate(result))


@router.post(
    "/placement-order",
    operation_id="calculatePlacementOrder",
    response_model=PlacementOrderResult,
    responses=INPUT_PROBLEMS,
)
@stores_nothing
async def calculate_placement_order(
    body: PlacementOrderCalculation, request: Request
) -> JSONModelResponse:
    """R-ORD-1: the order members are placed in a round, players given in turn order."""
    placements = calculations_of(request).placement_order([p.to_domain() for p in body.players])
    return JSONModelResponse(PlacementOrderResult.model_validate({"placements": placements}))


@router.post(
    "/final-scores",
    operation_id="calculateFinalScores",
    response_model=FinalScoresResult,
    responses=INPUT_PROBLEMS,
)
@stores_nothing
async def calculate_final_scores(
    body: FinalScoresCalculation, request: Request
) -> JSONDocumentResponse:
    """R-END-*: every player's final score with every part listed."""
    scores = calculations_of(request).final_scores([p.held() for p in body.players])
    return JSONDocumentResponse(final_scores_document(scores))
