"""RFC 9457 problem details: every error this service returns is ``application/problem+json``.

One module maps everything that can go wrong to a problem document: the rules' own errors
(:class:`~app.domain.errors.RuleError` and its subclasses, each carrying a slug), FastAPI's
request validation, Starlette's HTTP errors (unknown route, wrong method) and, as a last
resort, unexpected exceptions (503 when the database is down, else a logged 500).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from app.domain.errors import InvalidInput, RuleError
from app.persistence.db import is_unavailable_error

PROBLEM_MEDIA_TYPE = "application/problem+json"
PROBLEM_TYPE_PREFIX = "/problems/"

logger = logging.getLogger("app.errors")


@dataclass(frozen=True, slots=True)
class ProblemType:
    slug: str
    status: int
    title: str
    description: str


_PROBLEM_TYPES: tuple[ProblemType, ...] = (
    ProblemType(
        "validation-error",
        422,
        "Invalid request",
        "The request is not valid: malformed JSON, an unknown field, a value of the wrong "
        "type or one that breaks a rule. `errors` names each offending field.",
    ),
    ProblemType(
        "unauthorized", 401, "Missing or invalid token", "No token, or one this game does not know."
    ),
    ProblemType(
        "forbidden", 403, "This token may not do that", "The token is valid but lacks the right."
    ),
    ProblemType("not-found", 404, "Not found", "No such resource (or route)."),
    ProblemType(
        "report-resolved",
        409,
        "Report already resolved",
        "The Vatican Report is resolved; its decisions can no longer change.",
    ),
    ProblemType(
        "report-out-of-order",
        409,
        "An earlier report is still open",
        "Reports resolve in period order; an earlier one is still open.",
    ),
    ProblemType(
        "decisions-pending",
        409,
        "Eligible players have not chosen",
        "Eligible players must choose before the report resolves; `pending` lists them.",
    ),
    ProblemType(
        "not-eligible",
        409,
        "Player is not eligible to choose",
        "The player has too little faith to choose; they are excommunicated.",
    ),
    ProblemType(
        "version-mismatch",
        412,
        "The game changed since that version",
        "`If-Match` names an older version of the game; reload it and retry.",
    ),
    ProblemType(
        "idempotency-key-reused",
        422,
        "Idempotency-Key reused with a different request",
        "An `Idempotency-Key` may only be retried with the same request body.",
    ),
    ProblemType(
        "idempotency-in-flight",
        409,
        "A request with this Idempotency-Key is still being processed",
        "Retry after the first request with this `Idempotency-Key` has finished.",
    ),
    ProblemType(
        "payload-too-large",
        413,
        "Request body too large",
        "The request body is larger than this service accepts.",
    ),
    ProblemType(
        "unknown-expansion", 422, "Unknown expansion", "An expansion this service does not know."
    ),
    ProblemType(
        "service-unavailable",
        503,
        "Service unavailable",
        "The database is unreachable; retry after `Retry-After` seconds.",
    ),
    ProblemType(
        "too-many-requests",
        429,
        "Too many requests",
        "A rate limit was reached; retry after `Retry-After` seconds.",
    ),
    ProblemType(
        "event-limit-reached",
        409,
        "The game's event log is full",
        "The game has reached the most changes a game may log; it can still be read.",
    ),
    ProblemType(
        "request-header-fields-too-large",
        431,
        "Request header fields too large",
        "The request's headers are larger than this service accepts.",
    ),
    ProblemType(
        "method-not-allowed",
        405,
        "Method not allowed",
        "The route exists but not with this method; `Allow` lists the methods it takes.",
    ),
    ProblemType(
        "not-acceptable",
        406,
        "Not acceptable",
        "The service cannot answer in the media type asked.",
    ),
    ProblemType(
        "unsupported-media-type",
        415,
        "Unsupported media type",
        "The request body must be `application/json`.",
    ),
    ProblemType(
        "internal-error",
        500,
        "Internal error",
        "A bug in this service. It is logged with the request id; nothing else is disclosed.",
    ),
)

PROBLEM_TYPES: Mapping[str, ProblemType] = {p.slug: p for p in _PROBLEM_TYPES}

# Statuses of Starlette/FastAPI ``HTTPException`` -> slug. A 400 only comes from a body
# FastAPI could not parse: the contract calls bad input a 422 validation error.
_SLUG_FOR_HTTP_STATUS: Mapping[int, str] = {
    400: "validation-error",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    406: "not-acceptable",
    413: "payload-too-large",
    415: "unsupported-media-type",
    429: "too-many-requests",
    431: "request-header-fields-too-large",
    422: "validation-error",
    503: "service-unavailable",
}


class ProblemErrorItem(BaseModel):
    """One offending field of a validation error."""

    loc: list[str | int] = Field(description="Where the error is, e.g. `['body', 'players', 0]`.")
    msg: str
    type: str


class Problem(BaseModel):
    """An RFC 9457 problem document (`application/problem+json`)."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "example": {
                "type": "/problems/not-found",
                "title": "Not found",
                "status": 404,
                "detail": "No game with id 'g_123'",
                "instance": "/v1/games/g_123",
            }
        },
    )

    type: str = Field(description="A URI reference that ends in the problem's slug.")
    title: str
    status: int
    detail: str
    instance: str | None = Field(default=None, description="The request path.")
    errors: list[ProblemErrorItem] | None = Field(
        default=None, description="validation-error only: each offending field."
    )
    pending: list[str] | None = Field(
        default=None, description="decisions-pending only: the players who must still choose."
    )


def problem_type_uri(slug: str) -> str:
    return PROBLEM_TYPE_PREFIX + slug


def status_for_slug(slug: str) -> int:
    problem_type = PROBLEM_TYPES.get(slug)
    if problem_type is None:
        # A RuleError with a slug missing from the table is a bug, but the input is still
        # what the rules refused: answer as a validation error rather than a 500.
        logger.warning("problem slug %r has no status; answering 422", slug)
        return 422
    return problem_type.status


def problem_body(
    slug: str,
    *,
    detail: str,
    title: str | None = None,
    status: int | None = None,
    instance: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The problem document for ``slug``; ``extra`` members never replace the standard ones."""
    problem_type = PROBLEM_TYPES.get(slug)
    body: dict[str, Any] = dict(extra or {})
    body.update(
        type=problem_type_uri(slug),
        title=title or (problem_type.title if problem_type else slug),
        status=status if status is not None else status_for_slug(slug),
        detail=detail,
    )
    if instance is not None:
        body["instance"] = instance
    return body


def problem_bytes(body: Mapping[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), default=str).encode()


def retry_after_seconds(request: Request) -> int:
    settings = getattr(request.app.state, "settings", None)
    return settings.retry_after_seconds if settings is not None else 2


class ProblemResponse(Response):
    media_type = PROBLEM_MEDIA_TYPE

    def render(self, content: Any) -> bytes:
        return problem_bytes(content)


def problem_response(
    request: Request,
    slug: str,
    *,
    detail: str,
    title: str | None = None,
    status: int | None = None,
    extra: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
) -> ProblemResponse:
    body = problem_body(
        slug, detail=detail, title=title, status=status, instance=request.url.path, extra=extra
    )
    all_headers = dict(headers or {})
    if slug == "service-unavailable":
        all_headers.setdefault("Retry-After", str(retry_after_seconds(request)))
    return ProblemResponse(body, status_code=body["status"], headers=all_headers)


# --- exception handlers --------------------------------------------------------------------


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


_NON_BODY_LOCATIONS = frozenset({"query", "header", "path", "cookie"})


async def rule_error_handler(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RuleError)
    extra: dict[str, Any] = dict(exc.extra)
    if isinstance(exc, InvalidInput) and exc.loc:
        # Rules name places in the body ("players", 0, "name"); a query parameter or a
        # header is already named as such, like FastAPI's own validation errors.
        where = [] if exc.loc[0] in _NON_BODY_LOCATIONS else ["body"]
        extra["errors"] = [
            {"loc": [*where, *_json_safe_loc(exc.loc)], "msg": exc.detail, "type": "value_error"}
        ]
    return problem_response(request, exc.slug, title=exc.title, detail=exc.detail, extra=extra)


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
        status = PROBLEM_TYPES[slug].status
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
    if is_unavailable_error(exc):
        body = problem_body(
            "service-unavailable",
            detail="The database is unavailable; retry shortly.",
            instance=instance,
        )
        return body, True
    body = problem_body(
        "internal-error",
        detail="An unexpected error occurred; it has been logged.",
        instance=instance,
    )
    return body, False


async def unexpected_error_handler(request: Request, exc: Exception) -> Response:
    body, unavailable = unexpected_error_body(exc, request.url.path)
    headers: dict[str, str] = {}
    if unavailable:
        logger.warning("database unavailable: %s", type(exc).__name__)
        headers["Retry-After"] = str(retry_after_seconds(request))
    else:
        logger.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return ProblemResponse(body, status_code=body["status"], headers=headers)


def install_problem_handlers(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, request_validation_handler)
    app.add_exception_handler(RuleError, rule_error_handler)
    app.add_exception_handler(StarletteHTTPException, http_exception_handler)
    # The platform middleware catches these first (so the answer carries the request id
    # and is counted); this handler is the fallback for an app mounted without it.
    app.add_exception_handler(Exception, unexpected_error_handler)


# --- OpenAPI -------------------------------------------------------------------------------

PROBLEM_SCHEMA_REF = "#/components/schemas/Problem"


def problem_responses(*slugs: str) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route: one entry per status, naming every slug it can return.

    Example: ``@router.get(..., responses=problem_responses("not-found", "unauthorized"))``.
    """
    by_status: dict[int, list[ProblemType]] = {}
    for slug in slugs:
        if slug not in PROBLEM_TYPES:
            raise ValueError(f"unknown problem slug {slug!r}")
        problem_type = PROBLEM_TYPES[slug]
        group = by_status.setdefault(problem_type.status, [])
        if problem_type not in group:
            group.append(problem_type)
    responses: dict[int | str, dict[str, Any]] = {}
    for status in sorted(by_status):
        group = by_status[status]
        names = ", ".join(f"`{p.slug}`" for p in group)
        examples = {
            p.slug: {
                "summary": p.title,
                "value": problem_body(p.slug, detail=p.description),
            }
            for p in group
        }
        response: dict[str, Any] = {
            "description": f"Problem: {names}",
            "content": {
                PROBLEM_MEDIA_TYPE: {"schema": {"$ref": PROBLEM_SCHEMA_REF}, "examples": examples}
            },
        }
        if status == 503:
            response["headers"] = {
                "Retry-After": {
                    "description": "Seconds to wait before retrying.",
                    "schema": {"type": "integer"},
                }
            }
        responses[status] = response
    return responses
