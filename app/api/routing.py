"""Routes whose JSON bodies are read strictly, and the lean route of the calculations.

FastAPI reads a body with ``json.loads``, which guesses UTF-16 and UTF-32 from the bytes
and lets the last of two equal keys win; and a body of another media type reaches the
model as raw bytes (a confusing 422). Here a body must be ``application/json`` (or
``+json``; a request without ``Content-Type`` is read as JSON) else 415, UTF-8 else 422, and
an object may not repeat a key (422 naming it).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Coroutine
from email.message import Message
from typing import Any

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException

from app.api.problems.catalogue import UnsupportedMediaType


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return result


# Read once: json.loads(text, object_pairs_hook=...) builds a new decoder per call.
_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates)


def _is_json(content_type: str) -> bool:
    if content_type == "application/json":  # what nearly every client sends: no parsing
        return True
    message = Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (
        subtype == "json" or subtype.endswith("+json")
    )


class StrictJSONRequest(Request):
    """A request whose JSON body must be UTF-8 and repeat no key in any object.

    Its errors are ``JSONDecodeError`` so that FastAPI answers them as every other JSON
    error: a 422 ``validation-error`` at ``body`` saying what is wrong.
    """

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise json.JSONDecodeError("the body is not UTF-8 text", "", exc.start) from None
            if text.startswith("\ufeff"):  # as json.loads says, which _DECODER would not
                raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
            try:
                self._json = _DECODER.decode(text)
            except _DuplicateKey as exc:
                raise json.JSONDecodeError(
                    f"the key {exc.args[0]!r} appears twice in one object", text, 0
                ) from None
        return self._json


class StrictJSONRoute(APIRoute):
    """An APIRoute that takes JSON bodies only (415 otherwise), read strictly."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        takes_body = self.body_field is not None

        async def strict_handler(request: Request) -> Response:
            content_type = request.headers.get("content-type")
            if takes_body:
                _check_media_type(content_type)
            return await handler(StrictJSONRequest(request.scope, request.receive))

        return strict_handler


def _check_media_type(content_type: str | None) -> None:
    if content_type is not None and not _is_json(content_type):
        raise UnsupportedMediaType(
            f"The body must be application/json, not {content_type.split(';')[0]!r}."
        )


class CalculationRoute(StrictJSONRoute):
    """A route whose endpoint is ``async (body, request) -> Response`` and nothing more.

    FastAPI's own request handler (dependency solving, a second parse of Content-Type,
    response models, telemetry hooks) costs about 40 us a request: as much as a whole
    calculation's rules. This one reads the body as :class:`StrictJSONRoute` does and
    validates it with the route's own body field, so the answers, errors included, are
    the ones FastAPI would give (tests/api/test_routing.py runs both).
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        field, endpoint, dependant = self.body_field, self.endpoint, self.dependant
        others = dependant.path_params + dependant.query_params + dependant.header_params
        if (
            field is None
            or len(dependant.body_params) != 1
            or dependant.request_param_name is None
            or others + dependant.cookie_params
            or dependant.dependencies
            or not inspect.iscoroutinefunction(endpoint)
        ):
            raise TypeError(f"{self.path}: the endpoint must be async (body, request) only")
        body_name, request_name = dependant.body_params[0].name, dependant.request_param_name

        async def calculation_handler(request: Request) -> Response:
            content_type = request.headers.get("content-type")
            _check_media_type(content_type)
            value = await _read_body(StrictJSONRequest(request.scope, request.receive))
            body, errors = field.validate(value, loc=("body",))
            if errors:
                raise RequestValidationError(errors, body=value)
            response: Response = await endpoint(**{body_name: body, request_name: request})
            return response

        return calculation_handler


async def _read_body(request: StrictJSONRequest) -> Any:
    """The body as FastAPI reads it, its errors included."""
    try:
        value: Any = await request.body()
        if not value:
            raise RequestValidationError([_MISSING_BODY])
        # Without a Content-Type, FastAPI validates the bytes themselves: a 422.
        if request.headers.get("content-type") is not None:
            value = await request.json()
    except json.JSONDecodeError as exc:
        raise RequestValidationError([_invalid_json(exc)], body=exc.doc) from exc
    except (HTTPException, RequestValidationError):
        raise
    except Exception as exc:  # a body nested too deep for the parser, a client gone
        raise HTTPException(400, "There was an error parsing the body") from exc
    return value


# FastAPI's errors for a missing body and for one that is not JSON, word for word.
_MISSING_BODY = {"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}


def _invalid_json(exc: json.JSONDecodeError) -> dict[str, Any]:
    return {
        "type": "json_invalid",
        "loc": ("body", exc.pos),
        "msg": "JSON decode error",
        "input": {},
        "ctx": {"error": exc.msg},
    }
