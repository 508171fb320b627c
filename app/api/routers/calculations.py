"""Stateless calculations: nothing is stored and no token is needed."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.deps import Tiles
from app.api.presenters import gains_read, scores_read
from app.api.problems import problem_responses
from app.api.schemas.base import JSONModelResponse
from app.api.schemas.calculations import (
    ActionValueCalculation,
    ActionValueResult,
    FinalScoresCalculation,
    FinalScoresResult,
    GainIn,
    GainsCalculation,
    GainsResult,
    OutcomeRead,
    PlacementOrderCalculation,
    PlacementOrderResult,
    PlacementRead,
    ScoringPlayerFields,
    ValueStepRead,
    VaticanReportCalculation,
    VaticanReportResult,
)
from app.domain.actions import ActionRequest, action_value
from app.domain.errors import DecisionsPending, InvalidInput
from app.domain.gains import Gain, apply_gains
from app.domain.order import OrderPlayer, placement_order
from app.domain.report import ReportPlayer, resolve_report
from app.domain.scoring import ScoringPlayer, final_scores
from app.domain.tiles import Tile
from app.services.calculations import tiles_for

router = APIRouter(prefix="/v1/calculations", tags=["calculations"])
INPUT_PROBLEMS = problem_responses("validation-error")


def to_gain(gain: GainIn) -> Gain:
    return Gain(
        source_kind=gain.source.kind,
        source_name=gain.source.name,
        resources=gain.resources.as_bag(),
        privileges=tuple(p.as_bag() for p in gain.privileges),
        wood_or_stone=gain.wood_or_stone,
    )


def to_scoring_player(player: ScoringPlayerFields, tiles: tuple[Tile, ...] = ()) -> ScoringPlayer:
    return ScoringPlayer(
        id=player.id,
        tiles=tiles,
        victory_points=player.victory_points,
        military_points=player.military_points,
        territories=player.territories,
        characters=player.characters,
        venture_points=player.venture_points,
        resources=player.resources.model_dump(),
        building_costs=player.building_costs.model_dump(),
    )


@router.post(
    "/vatican-report",
    operation_id="calculateVaticanReport",
    response_model=VaticanReportResult,
    responses=INPUT_PROBLEMS,
)
async def calculate_vatican_report(
    body: VaticanReportCalculation, catalogue: Tiles
) -> JSONModelResponse:
    """R-REP-*: resolve a report for players given in turn order. An eligible player
    without a choice (and no `default_choice`) is a 422 naming them in `pending`, except
    in period 3 (R-REP-6)."""
    tile_id = None
    if body.tile_id is not None:
        tile = catalogue.require(body.tile_id, loc=("tile_id",))
        if tile.period != body.period:
            raise InvalidInput(f"tile {tile.id} is a period {tile.period} tile", loc=("tile_id",))
        tile_id = tile.id
    players = [ReportPlayer(p.id, p.faith, frozenset(p.leaders), p.choice) for p in body.players]
    try:
        result = resolve_report(body.period, tile_id, players, body.default_choice)
    except DecisionsPending as pending:
        # Stored games wait for decisions (409); here the request itself is incomplete.
        first = next(i for i, p in enumerate(body.players) if p.id in pending.pending)
        raise InvalidInput(
            pending.detail, loc=("players", first, "choice"), pending=pending.pending
        ) from None
    return JSONModelResponse(
        VaticanReportResult(
            period=result.period,
            threshold=result.threshold,
            outcomes=[OutcomeRead.of(o) for o in result.outcomes],
        )
    )


@router.post(
    "/gains",
    operation_id="calculateGains",
    response_model=GainsResult,
    responses=INPUT_PROBLEMS,
)
async def calculate_gains(body: GainsCalculation, catalogue: Tiles) -> JSONModelResponse:
    """R-GAIN-*: what each gain really delivers, step by step."""
    tiles = tiles_for(catalogue, body.excommunications, ("excommunications",))
    result = apply_gains(tiles, frozenset(body.leaders), [to_gain(g) for g in body.gains])
    return JSONModelResponse(gains_read(result))


@router.post(
    "/action-value",
    operation_id="calculateActionValue",
    response_model=ActionValueResult,
    responses=INPUT_PROBLEMS,
)
async def calculate_action_value(
    body: ActionValueCalculation, catalogue: Tiles
) -> JSONModelResponse:
    """R-ACT-*: an action's final value, whether it is allowed and reaches a required value."""
    tiles = tiles_for(catalogue, body.excommunications, ("excommunications",))
    request = ActionRequest(
        action=body.action,
        origin=body.origin,
        family_member=body.family_member,
        die=body.die,
        base_value=body.base_value,
        large_space=body.large_space,
        servants_spent=body.servants_spent,
        modifier=body.modifier,
        required_value=body.required_value,
    )
    result = action_value(tiles, request)
    return JSONModelResponse(
        ActionValueResult(
            allowed=result.allowed,
            value=result.value,
            reaches_required=result.reaches_required,
            steps=[
                ValueStepRead(rule=s.rule, by=s.by, change=s.change, value=s.value, note=s.note)
                for s in result.steps
            ],
        )
    )


@router.post(
    "/placement-order",
    operation_id="calculatePlacementOrder",
    response_model=PlacementOrderResult,
    responses=INPUT_PROBLEMS,
)
async def calculate_placement_order(
    body: PlacementOrderCalculation, catalogue: Tiles
) -> JSONModelResponse:
    """R-ORD-1: the order members are placed in a round, players given in turn order."""
    players = [
        OrderPlayer(
            p.id,
            tiles_for(catalogue, p.excommunications, ("players", i, "excommunications")),
            p.family_members,
        )
        for i, p in enumerate(body.players)
    ]
    order = placement_order(players)
    return JSONModelResponse(
        PlacementOrderResult(
            placements=[PlacementRead(player_id=p.player_id, member=p.member) for p in order]
        )
    )


@router.post(
    "/final-scores",
    operation_id="calculateFinalScores",
    response_model=FinalScoresResult,
    responses=INPUT_PROBLEMS,
)
async def calculate_final_scores(
    body: FinalScoresCalculation, catalogue: Tiles
) -> JSONModelResponse:
    """R-END-*: every player's final score with every part listed."""
    players = [
        to_scoring_player(
            p, tiles_for(catalogue, p.excommunications, ("players", i, "excommunications"))
        )
        for i, p in enumerate(body.players)
    ]
    return JSONModelResponse(FinalScoresResult(players=scores_read(final_scores(players))))
