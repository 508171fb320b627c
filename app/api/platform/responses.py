"""Responses written straight from bytes or a model (no second validation pass), and the
headers that carry a game's version."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from fastapi import Response
from pydantic import BaseModel

from app.services.idempotency import Answer
from app.services.stored import Outcome


class JSONBytesResponse(Response):
    """A JSON body already serialised, sent as it is: the attributes ``Response.__init__``
    sets, in its order (the given headers, then the length and type), made without its
    rendering and header checks, which are for bodies and headers of any kind."""

    media_type = "application/json"

    def __init__(
        self, body: bytes, status_code: int = 200, headers: Mapping[str, str] | None = None
    ) -> None:
        self.status_code = status_code
        self.body = body
        self.background = None
        given = (headers or {}).items()
        raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in given]
        if headers and any(k in (b"content-length", b"content-type") for k, _ in raw):
            # Said by the caller: as Response would, take the headers as they are.
            self.init_headers(headers)
            return
        if not (status_code < 200 or status_code in (204, 304)):
            raw.append((b"content-length", b"%d" % len(body)))
        raw.append(_JSON_TYPE)
        self.raw_headers = raw


_JSON_TYPE = (b"content-type", b"application/json")


class JSONModelResponse(JSONBytesResponse):
    """A response serialised straight from a pydantic model."""

    def __init__(
        self,
        model: BaseModel,
        status_code: int = 200,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(model.__pydantic_serializer__.to_json(model), status_code, headers)


class JSONDocumentResponse(JSONBytesResponse):
    """A response serialised straight from plain data already in its model's shape."""

    def __init__(self, document: Any, status_code: int = 200) -> None:
        super().__init__(json_bytes(document), status_code)


def json_bytes(value: Any) -> bytes:
    """Plain data (dicts, lists, strings, numbers, booleans, None) as compact JSON, as
    pydantic-core would write it (a key that is not a string becomes one), in a fraction
    of its instructions (bench/RESULTS.md)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def raw_json_response(body: bytes, status_code: int, headers: dict[str, Any]) -> Response:
    return JSONBytesResponse(body, status_code, headers)


def etag(version: int) -> str:
    return f'"{version}"'


class NotModifiedResponse(Response):
    """304 Not Modified, with the version the client holds as its ETag: the attributes
    ``Response.__init__`` sets for it (no body, so neither a length nor a type), made
    without its rendering and header checks. A polling client gets this answer on most of
    its reads, so it costs no more than its one header."""

    def __init__(self, version: int) -> None:
        self.status_code = 304
        self.body = b""
        self.background = None
        self.raw_headers = [(b"etag", etag(version).encode("latin-1"))]


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
