"""Vatican Reports of a stored game: read, decide, resolve (R-REP-*)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response

from app.api.contract.dependencies import ReportUseCases
from app.api.contract.games import NOT_MODIFIED, not_modified
from app.api.platform.admission import changes_game
from app.api.platform.explicit_route import ExplicitRoute
from app.api.platform.headers import IdempotencyKey, IfMatch, IfNoneMatch, Token
from app.api.platform.responses import replayable, versioned
from app.api.presenters import report_read
from app.api.problems import problem_responses
from app.api.schemas.base import WholeNumber
from app.api.schemas.games import DecisionUpdate, ReportRead, ResolutionCreate
from app.services.idempotency import request_fingerprint

router = APIRouter(
    prefix="/v1/games/{game_id}/reports", tags=["reports"], route_class=ExplicitRoute
)
Period = Annotated[int, Path(ge=1, le=3, description="1, 2 or 3 (periods I-III)"), WholeNumber]

CHANGE_PROBLEMS = (
    "bad-request",
    "unauthorized",
    "forbidden",
    "not-found",
    "validation-error",
    "unsupported-media-type",
    "version-mismatch",
    "report-resolved",
    "report-out-of-order",
    "event-limit-reached",
    "seat-event-limit-reached",
    "too-many-requests",
    "service-unavailable",
)


@router.get(
    "/{period}",
    operation_id="getReport",
    response_model=ReportRead,
    responses={
        **NOT_MODIFIED,
        **problem_responses(
            "bad-request", "unauthorized", "not-found", "validation-error", "service-unavailable"
        ),
    },
)
async def get_report(
    game_id: str, reports: ReportUseCases, token: Token, cached: IfNoneMatch, period: Period
) -> Response:
    """The report of a period: who is eligible (faith at or above the threshold), who chose
    what, and once resolved the outcome of every player. The `ETag` is the game's version."""
    if cached:
        # A client polling with the ETag it holds costs one small read, no state.
        version = await reports.current_version(game_id, token)
        if version in cached:
            return not_modified(version)
    game = await reports.get_report(game_id, period, token)
    if game.version in cached:
        return not_modified(game.version)
    return versioned(report_read(game, period), game.version)


@router.put(
    "/{period}/decisions/{player_id}",
    operation_id="setReportDecision",
    response_model=ReportRead,
    responses=problem_responses(*CHANGE_PROBLEMS, "not-eligible"),
)
@changes_game
def set_decision(
    game_id: str,
    player_id: str,
    body: DecisionUpdate,
    reports: ReportUseCases,
    token: Token,
    if_match: IfMatch,
    period: Period,
) -> Response:
    """R-REP-5: an eligible player (or the host for them) chooses `support` or `refuse`;
    the choice can be changed until the report is resolved."""
    game = reports.set_decision(game_id, period, player_id, body.choice, token, if_match)
    return versioned(report_read(game, period), game.version)


@router.post(
    "/{period}/resolution",
    status_code=201,
    operation_id="resolveReport",
    response_model=ReportRead,
    responses=problem_responses(
        *CHANGE_PROBLEMS,
        "decisions-pending",
        "idempotency-key-reused",
        "idempotency-in-flight",
    ),
)
@changes_game
def resolve_report(
    game_id: str,
    body: ResolutionCreate,
    reports: ReportUseCases,
    token: Token,
    if_match: IfMatch,
    key: IdempotencyKey,
    period: Period,
) -> Response:
    """R-REP-2..10: resolve the report once, in period order, and apply every outcome to
    the players atomically. Eligible players without a choice take `default_choice`;
    without one the answer is 409 `decisions-pending` naming them. Period 3 needs no
    decisions: an eligible player who did not choose supports (R-REP-6), whatever the
    default, since refusing there can only cost them."""
    fingerprint = request_fingerprint(f"resolveReport:{game_id}:{period}", body.model_dump_json())
    answer = reports.resolve(
        game_id, period, body.default_choice, token, if_match, key, fingerprint
    )
    return replayable(answer)
