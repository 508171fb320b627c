"""Undo and redo of a stored game's changes of play (R-UNDO-1..3)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from app.api.contract.dependencies import HistoryUseCases
from app.api.contract.games import CHANGE_PROBLEMS
from app.api.platform.admission import changes_game
from app.api.platform.explicit_route import ExplicitRoute
from app.api.platform.headers import IdempotencyKey, IfMatch, Token
from app.api.platform.responses import replayable
from app.api.problems import problem_responses
from app.api.schemas.games import RedoRead, UndoRead
from app.services.idempotency import request_fingerprint

router = APIRouter(prefix="/v1/games", tags=["games"], route_class=ExplicitRoute)

IDEMPOTENT = ("idempotency-key-reused", "idempotency-in-flight")


@router.post(
    "/{game_id}/undo",
    operation_id="undoChange",
    response_model=UndoRead,
    responses=problem_responses(*CHANGE_PROBLEMS, "nothing-to-undo", *IDEMPOTENT),
)
@changes_game
def undo_change(
    game_id: str, history: HistoryUseCases, token: Token, if_match: IfMatch, key: IdempotencyKey
) -> Response:
    """R-UNDO-1, R-UNDO-3: the host undoes the last change of play still in effect (a
    Faith change, leaders, the turn order, a decision, a resolution, the round), logging a
    `change_undone` event with what it leaves; each call goes one change further back.
    With `If-Match` a repeated call cannot undo twice; with an `Idempotency-Key` a retry
    replays the first answer."""
    fingerprint = request_fingerprint(f"undoChange:{game_id}")
    return replayable(history.undo(game_id, token, if_match, key, fingerprint))


@router.post(
    "/{game_id}/redo",
    operation_id="redoChange",
    response_model=RedoRead,
    responses=problem_responses(*CHANGE_PROBLEMS, "nothing-to-redo", *IDEMPOTENT),
)
@changes_game
def redo_change(
    game_id: str, history: HistoryUseCases, token: Token, if_match: IfMatch, key: IdempotencyKey
) -> Response:
    """R-UNDO-2: the host applies the most recently undone change again (a
    `change_redone` event), while no change of play came since it was undone."""
    fingerprint = request_fingerprint(f"redoChange:{game_id}")
    return replayable(history.redo(game_id, token, if_match, key, fingerprint))
