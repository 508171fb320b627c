"""Who holds each seat of a stored game: new tokens, revoked tokens, the host seat
recovered. See docs/api.md "Recovering a seat" for the threat model."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response

from app.api.contract.dependencies import SeatUseCases
from app.api.contract.games import CHANGE_PROBLEMS
from app.api.platform.admission import changes_game, recovers_game
from app.api.platform.explicit_route import ExplicitRoute
from app.api.platform.headers import IdempotencyKey, IfMatch, Token
from app.api.platform.responses import etag, replayable
from app.api.problems import problem_responses
from app.api.schemas.seats import RecoveryCreate, RecoveryRead, SeatTokenRead
from app.services.idempotency import request_fingerprint

router = APIRouter(prefix="/v1/games", tags=["seats"], route_class=ExplicitRoute)

Seat = Annotated[
    str,
    Path(min_length=1, max_length=16, description="`host`, or a player's id (`p1`, `p2`...)."),
]
IDEMPOTENT = ("idempotency-key-reused", "idempotency-in-flight")


@router.post(
    "/{game_id}/seats/{seat}/token",
    operation_id="issueSeatToken",
    response_model=SeatTokenRead,
    responses=problem_responses(*CHANGE_PROBLEMS, *IDEMPOTENT),
)
@changes_game
def issue_seat_token(
    game_id: str,
    seat: Seat,
    seats: SeatUseCases,
    token: Token,
    if_match: IfMatch,
    key: IdempotencyKey,
) -> Response:
    """The host gives a seat a new token, refusing its old one from now on: `host` moves
    the host seat to another device, a player's id hands that player's seat to a new
    phone. Open streams on the old token end. Logs `seat_token_changed` (never the token).
    With an `Idempotency-Key`, a retry with the same token replays the first answer (even
    when that token is the one this call replaced)."""
    fingerprint = request_fingerprint(f"issueSeatToken:{game_id}:{seat}")
    answer = seats.issue_token(game_id, seat, token, if_match, key, fingerprint)
    return replayable(answer, secret=True)


@router.delete(
    "/{game_id}/seats/{seat}/token",
    status_code=204,
    operation_id="revokeSeatToken",
    response_class=Response,
    responses={
        204: {
            "description": "Revoked: the seat has no token (it had none already: nothing "
            "logged, the version unchanged)."
        },
        **problem_responses(*CHANGE_PROBLEMS),
    },
)
@changes_game
def revoke_seat_token(
    game_id: str, seat: Seat, seats: SeatUseCases, token: Token, if_match: IfMatch
) -> Response:
    """The host revokes a player's token (a phone lent out, lost or taken back): it is
    refused from now on, its open streams and long-polls end, and the seat has no token
    until the host issues it a new one (the host acts for that player meanwhile). The host
    seat cannot be revoked: issue it a new token. Logs `seat_token_changed`; revoking a
    seat that has no token logs nothing."""
    version = seats.revoke_token(game_id, seat, token, if_match)
    return Response(status_code=204, headers={"ETag": etag(version)})


@router.post(
    "/{game_id}/recovery",
    operation_id="recoverHostSeat",
    response_model=RecoveryRead,
    responses=problem_responses(
        "bad-request",
        "unauthorized",
        "not-found",
        "validation-error",
        "unsupported-media-type",
        "event-limit-reached",
        "too-many-requests",
        "service-unavailable",
        *IDEMPOTENT,
    ),
)
@recovers_game
def recover_host_seat(
    game_id: str, body: RecoveryCreate, seats: SeatUseCases, key: IdempotencyKey
) -> Response:
    """The host regains its seat with the game's recovery code (shown once, at creation),
    when the host's device and what it stored are lost: a new host token and a new
    recovery code, the old code spent and the old host token refused. No token needed.
    Send an `Idempotency-Key`: a retry with it and the same code replays the answer,
    which is otherwise lost with the seat."""
    fingerprint = request_fingerprint(f"recoverHostSeat:{game_id}", body.model_dump_json())
    answer = seats.recover_host_seat(game_id, body.recovery_code, key, fingerprint)
    return replayable(answer, secret=True)
