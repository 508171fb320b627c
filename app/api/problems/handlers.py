"""Exception handlers: everything that goes wrong becomes a problem document.

The use cases' and rules' errors carry their slug (:class:`ServiceError`); FastAPI's request
validation and Starlette's HTTP errors (unknown route, wrong method) are mapped to the
declared types; anything else is answered by the front (``app/api/platform/front.py``)
(:func:`unexpected_error_body`): 503 when the database is down, else a logged 500.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from app.api.problems.catalogue import PROBLEM_TYPES
from app.api.problems.documents import problem_body, problem_response
from app.api.problems.statuses import status_of
from app.domain.errors import InvalidInput, ServiceError
from app.services.errors import TooManyRequests, TooManyStreams
from app.services.health import is_outage, outage_detail

# Starlette/FastAPI ``HTTPException`` statuses -> slug. A 400 only comes from a body FastAPI
# could not parse: the contract calls bad input a 422 validation error.
_SLUG_FOR_HTTP_STATUS: Mapping[int, str] = {
    400: "validation-error",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    406: "not-acceptable",
    413: "payload-too-large",
    415: "unsupported-media-type",
    422: "validation-error",
    429: "too-many-requests",
    431: "request-header-fields-too-large",
    503: "service-unavailable",
}

_NON_BODY_LOCATIONS = frozenset({"query", "header", "path", "cookie"})


def _json_safe_loc(loc: Iterable[Any]) -> list[str | int]:
    return [part if isinstance(part, int | str) else str(part) for part in loc]


def validation_error_items(errors: Sequence[Any]) -> list[dict[str, Any]]:
    """pydantic/FastAPI error dicts reduced to JSON-safe `{loc, msg, type}`.

    ``input`` and ``ctx`` are dropped: they may hold raw bytes, exception objects or the
    client's secrets, none of which belong in an answer.
    """
    items: list[dict[str, Any]] = []
    for error in errors:
        if isinstance(error, Mapping):
            loc, msg, kind = error.get("loc", ()), error.get("msg", ""), error.get("type", "")
            ctx = error.get("ctx")
            if (
                kind == "json_invalid"
                and isinstance(ctx, Mapping)
                and isinstance(ctx.get("error"), str)
            ):
                msg = f"{msg}: {ctx['error']}"
        else:
            loc, msg, kind = (), error, "value_error"
        items.append({"loc": _json_safe_loc(loc), "msg": str(msg), "type": str(kind)})
    return items


def _summary(items: Sequence[Mapping[str, Any]]) -> str:
    parts = []
    for item in items[:5]:
        where = ".".join(str(p) for p in item["loc"]) or "request"
        parts.append(f"{where}: {item['msg']}")
    more = f" (and {len(items) - 5} more)" if len(items) > 5 else ""
    return "; ".join(parts) + more


async def request_validation_handler(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    items = validation_error_items(exc.errors())
    return problem_response(
        request,
        "validation-error",
        detail=_summary(items) or "The request is not valid.",
        extra={"errors": items},
    )


async def service_error_handler(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ServiceError)
    extra: dict[str, Any] = dict(exc.extra)
    headers: dict[str, str] = {}
    if isinstance(exc, InvalidInput) and exc.loc:
        # Rules name places in the body ("players", 0, "name"); a query parameter or a
        # header is already named as such, like FastAPI's own validation errors.
        where = [] if exc.loc[0] in _NON_BODY_LOCATIONS else ["body"]
        extra["errors"] = [
            {"loc": [*where, *_json_safe_loc(exc.loc)], "msg": exc.detail, "type": "value_error"}
        ]
    if isinstance(exc, TooManyRequests | TooManyStreams):
        headers["Retry-After"] = str(exc.retry_after)
    return problem_response(request, exc.slug, detail=exc.detail, extra=extra, headers=headers)


async def http_exception_handler(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    status = exc.status_code
    slug = _SLUG_FOR_HTTP_STATUS.get(status)
    if slug is None:
        try:
            slug = HTTPStatus(status).phrase.lower().replace(" ", "-")
        except ValueError:
            slug = f"http-{status}"
    else:
        status = status_of(PROBLEM_TYPES[slug])
    detail = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail, default=str)
    if slug == "not-found" and exc.detail == HTTPStatus.NOT_FOUND.phrase:
        detail = f"No route or resource at {request.url.path}"
    elif slug == "method-not-allowed":
        detail = f"{request.method} is not allowed on {request.url.path}"
    extra: dict[str, Any] | None = None
    if slug == "validation-error":
        # A body the JSON parser gave up on (not UTF-8, nested too deep): still say where.
        extra = {"errors": [{"loc": ["body"], "msg": detail, "type": "json_invalid"}]}
    return problem_response(
        request, slug, detail=detail, status=status, headers=exc.headers, extra=extra
    )


def unexpected_error_body(exc: BaseException, instance: str | None) -> tuple[dict[str, Any], bool]:
    """The problem for an exception nothing else handled, and whether it is a 503.

    A database outage is not a bug: 503 so clients retry. Anything else is, and is
    logged with its traceback by the caller; the answer discloses nothing about it.
    """
    if is_outage(exc):
        body = problem_body(
            "service-unavailable",
            detail=outage_detail(exc),
            instance=instance,
        )
        return body, True
    body = problem_body(
        "internal-error",
        detail="An unexpected error occurred; it has been logged.",
        instance=instance,
    )
    return body, False


def install_problem_handlers(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, request_validation_handler)
    app.add_exception_handler(ServiceError, service_error_handler)
    app.add_exception_handler(StarletteHTTPException, http_exception_handler)
