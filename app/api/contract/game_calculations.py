"""Computations on a stored game: gains and final scores under what the game holds."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.contract.dependencies import GameUseCases
from app.api.platform.admission import stores_nothing
from app.api.platform.explicit_route import ExplicitRoute
from app.api.platform.headers import Token
from app.api.platform.responses import JSONDocumentResponse
from app.api.presenters import final_scores_document, gains_document
from app.api.problems import problem_responses
from app.api.schemas.calculations import (
    FinalScoresResult,
    GainsResult,
    GameFinalScoresCalculation,
    PlayerGainsCalculation,
)

router = APIRouter(prefix="/v1/games", tags=["games"], route_class=ExplicitRoute)


@router.post(
    "/{game_id}/players/{player_id}/gain-adjustments",
    operation_id="calculatePlayerGains",
    response_model=GainsResult,
    responses=problem_responses(
        "bad-request",
        "unauthorized",
        "forbidden",
        "not-found",
        "validation-error",
        "unsupported-media-type",
        "service-unavailable",
    ),
)
@stores_nothing
async def gain_adjustments(
    game_id: str, player_id: str, body: PlayerGainsCalculation, games: GameUseCases, token: Token
) -> JSONDocumentResponse:
    """R-GAIN-*: the gains under the player's stored excommunications and leaders.
    Computes only; stores nothing."""
    gains = [g.to_domain() for g in body.gains]
    result = await games.gain_adjustments(game_id, player_id, gains, token)
    return JSONDocumentResponse(gains_document(result))


@router.post(
    "/{game_id}/final-scores",
    operation_id="calculateGameFinalScores",
    response_model=FinalScoresResult,
    responses=problem_responses(
        "bad-request",
        "unauthorized",
        "not-found",
        "validation-error",
        "unsupported-media-type",
        "service-unavailable",
    ),
)
@stores_nothing
async def game_final_scores(
    game_id: str, body: GameFinalScoresCalculation, games: GameUseCases, token: Token
) -> JSONDocumentResponse:
    """R-END-*: final scores with each player's stored excommunications (so far, when
    called before the end). Every player listed once by id. Computes only."""
    scores = await games.final_scores(game_id, [p.to_domain() for p in body.players], token)
    return JSONDocumentResponse(final_scores_document(scores))
