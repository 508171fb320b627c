"""Vatican Reports of a stored game: read, decide, resolve (R-REP-*)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response

from app.api.deps import Replays, Reports
from app.api.headers import IdempotencyKey, IfMatch, Token, etag
from app.api.presenters import replayable, report_read
from app.api.problems import problem_responses
from app.api.schemas.base import JSONModelResponse, WholeNumber
from app.api.schemas.games import DecisionUpdate, ReportRead, ResolutionCreate
from app.persistence.models import Game, Report
from app.services.idempotency import StoredAnswer, request_fingerprint

router = APIRouter(prefix="/v1/games/{game_id}/reports", tags=["reports"])
Period = Annotated[int, Path(ge=1, le=3, description="1, 2 or 3 (periods I-III)"), WholeNumber]

REPORT_STATE_PROBLEMS = ("report-resolved", "report-out-of-order")


@router.get(
    "/{period}",
    operation_id="getReport",
    response_model=ReportRead,
    responses=problem_responses(
        "unauthorized", "not-found", "validation-error", "service-unavailable"
    ),
)
def get_report(game_id: str, reports: Reports, token: Token, period: Period) -> JSONModelResponse:
    """The report of a period: who is eligible (faith at or above the threshold), who chose
    what, and once resolved the outcome of every player."""
    game, report = reports.get_report(game_id, period, token)
    return JSONModelResponse(report_read(game, report), headers={"ETag": etag(game.version)})


@router.put(
    "/{period}/decisions/{player_id}",
    operation_id="setReportDecision",
    response_model=ReportRead,
    responses=problem_responses(
        "unauthorized",
        "forbidden",
        "not-found",
        "validation-error",
        "version-mismatch",
        "not-eligible",
        *REPORT_STATE_PROBLEMS,
        "service-unavailable",
    ),
)
def set_decision(
    game_id: str,
    player_id: str,
    body: DecisionUpdate,
    reports: Reports,
    token: Token,
    version: IfMatch,
    period: Period,
) -> JSONModelResponse:
    """R-REP-5: an eligible player (or the host for them) chooses `support` or `refuse`;
    the choice can be changed until the report is resolved."""
    game, report = reports.set_decision(game_id, period, player_id, body.choice, token, version)
    return JSONModelResponse(report_read(game, report), headers={"ETag": etag(game.version)})


@router.post(
    "/{period}/resolution",
    status_code=201,
    operation_id="resolveReport",
    response_model=ReportRead,
    responses=problem_responses(
        "unauthorized",
        "forbidden",
        "not-found",
        "validation-error",
        "version-mismatch",
        "decisions-pending",
        *REPORT_STATE_PROBLEMS,
        "idempotency-key-reused",
        "idempotency-in-flight",
        "service-unavailable",
    ),
)
def resolve_report(
    game_id: str,
    body: ResolutionCreate,
    reports: Reports,
    replays: Replays,
    token: Token,
    version: IfMatch,
    key: IdempotencyKey,
    period: Period,
) -> Response:
    """R-REP-2..10: resolve the report once, in period order, and apply every outcome to
    the players atomically. Eligible players without a choice take `default_choice`;
    without one the answer is 409 `decisions-pending` naming them. Period 3 needs no
    decisions: an eligible player who did not choose supports (R-REP-6), whatever the
    default, since refusing there can only cost them."""
    scope = f"resolveReport:{game_id}:{period}"
    if key is not None:
        # A replay must not skip access control: check the host token first.
        reports.require_host(game_id, token, "resolve a report")
    fingerprint = request_fingerprint(scope, body.model_dump_json())

    def render(result: tuple[Game, Report]) -> StoredAnswer:
        game, report = result
        model = report_read(game, report)
        return StoredAnswer(
            201, model.__pydantic_serializer__.to_json(model), {"ETag": etag(game.version)}
        )

    answer = replays.run(
        scope,
        key,
        fingerprint,
        lambda session: reports.resolve(
            session, game_id, period, body.default_choice, token, version
        ),
        render,
    )
    return replayable(answer)
