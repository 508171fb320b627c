"""Responses written straight from bytes or a model (no second validation pass), and the
headers that carry a game's version."""

from __future__ import annotations

from typing import Any

from fastapi import Response
from pydantic import BaseModel
from pydantic_core import to_json

from app.services.idempotency import Answer
from app.services.stored import Outcome


class JSONModelResponse(Response):
    """A response serialised straight from a pydantic model."""

    media_type = "application/json"

    def __init__(
        self,
        model: BaseModel,
        status_code: int = 200,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(model.__pydantic_serializer__.to_json(model), status_code, headers)


class JSONDocumentResponse(Response):
    """A response serialised straight from plain data already in its model's shape."""

    media_type = "application/json"

    def __init__(self, document: Any, status_code: int = 200) -> None:
        super().__init__(to_json(document), status_code)


def raw_json_response(body: bytes, status_code: int, headers: dict[str, Any]) -> Response:
    return Response(body, status_code=status_code, headers=headers, media_type="application/json")


def etag(version: int) -> str:
    return f'"{version}"'


def versioned(model: BaseModel, version: int, status_code: int = 200) -> JSONModelResponse:
    """A document about a game, with the game's version as its ETag."""
    return JSONModelResponse(model, status_code, {"ETag": etag(version)})


#: On every answer that carries a token or a secret: no cache, shared or private, keeps it.
NO_STORE = {"Cache-Control": "no-store"}


#: The status that says each outcome of a use case that takes an Idempotency-Key.
OUTCOME_STATUS = {
    Outcome.GAME_CREATED: 201,
    Outcome.REPORT_RESOLVED: 201,
    Outcome.GAME_CHANGED: 200,
}


def replayable(answer: Answer, *, secret: bool = False) -> Response:
    """The answer of an idempotent operation, with the game's version as its ETag (and
    the new game's address), marked when it is a replay of the first; ``secret`` when it
    carries tokens or a recovery code (sent ``no-store``, replays included)."""
    headers = {"ETag": etag(answer.version)}
    if answer.outcome is Outcome.GAME_CREATED:
        headers = {"Location": f"/v1/games/{answer.game_id}", **headers}
    if answer.replayed:
        headers["Idempotent-Replayed"] = "true"
    if secret:
        headers.update(NO_STORE)
    return raw_json_response(answer.body, OUTCOME_STATUS[answer.outcome], headers)
