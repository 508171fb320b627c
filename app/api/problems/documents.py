"""Problem documents (RFC 9457) and the responses that carry them."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from fastapi import Request
from starlette.responses import Response

from app.api.problems.catalogue import PROBLEM_TYPES, problem_type_uri
from app.api.problems.statuses import status_of

PROBLEM_MEDIA_TYPE = "application/problem+json"

logger = logging.getLogger("app.errors")


def problem_body(
    slug: str,
    *,
    detail: str,
    title: str | None = None,
    status: int | None = None,
    instance: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The problem document for ``slug``; ``extra`` members never replace the standard ones.

    An undeclared slug is a bug; it is logged and answered as a 422 rather than a 500,
    since it can only come from input a rule refused.
    """
    problem_type = PROBLEM_TYPES.get(slug)
    if problem_type is None:
        logger.warning("problem slug %r is not declared; answering 422", slug)
    body: dict[str, Any] = dict(extra or {})
    body.update(
        type=problem_type_uri(slug),
        title=title or (problem_type.title if problem_type else slug),
        status=status or (status_of(problem_type) if problem_type else 422),
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
    status: int | None = None,
    extra: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
) -> ProblemResponse:
    body = problem_body(slug, detail=detail, status=status, instance=request.url.path, extra=extra)
    all_headers = dict(headers or {})
    if slug == "service-unavailable":
        all_headers.setdefault("Retry-After", str(retry_after_seconds(request)))
    return ProblemResponse(body, status_code=body["status"], headers=all_headers)
