"""How problems appear in the OpenAPI document: the Problem schema and the ``responses=``
a route declares, both built from the declared problem types."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.api.problems.catalogue import PROBLEM_TYPES, problem_type_uri
from app.api.problems.documents import PROBLEM_MEDIA_TYPE, problem_body
from app.api.problems.statuses import status_of
from app.domain.errors import ServiceError

PROBLEM_SCHEMA_REF = "#/components/schemas/Problem"

# Every `type` this service can answer with, so a generated client gets an enum.
ProblemTypeUri = Literal[tuple(problem_type_uri(slug) for slug in PROBLEM_TYPES)]  # type: ignore[valid-type]


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
                "detail": "No game 'g_123'.",
                "instance": "/v1/games/g_123",
            }
        },
    )

    type: ProblemTypeUri = Field(  # type: ignore[valid-type]
        description="`/problems/<slug>`: the slug names the problem; `/problems` lists them."
    )
    title: str
    status: int
    detail: str
    instance: str | None = Field(default=None, description="The request path.")
    errors: list[ProblemErrorItem] | None = Field(
        default=None, description="`validation-error` only: each offending field."
    )
    pending: list[str] | None = Field(
        default=None, description="`decisions-pending` only: the players who must still choose."
    )
    current_version: int | None = Field(
        default=None, description="`version-mismatch` only: the game's version now."
    )
    player_id: str | None = Field(
        default=None,
        description="`seat-event-limit-reached` only: the player whose share is spent.",
    )


# The extension members some problems carry, shown in their examples (Spectral checks
# each example against the Problem schema).
_EXAMPLE_MEMBERS: dict[str, dict[str, Any]] = {
    "validation-error": {
        "errors": [
            {
                "loc": ["body", "players", 0, "name"],
                "msg": "String should have at least 1 character",
                "type": "string_too_short",
            }
        ]
    },
    "version-mismatch": {"current_version": 4},
    "decisions-pending": {"pending": ["p2", "p3"]},
    "seat-event-limit-reached": {"player_id": "p2"},
}


def _declared(slug: str) -> type[ServiceError]:
    if slug not in PROBLEM_TYPES:
        raise ValueError(f"unknown problem slug {slug!r}")
    return PROBLEM_TYPES[slug]


def problem_responses(*slugs: str) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route: one entry per status, naming every slug it can return.

    Example: ``@router.get(..., responses=problem_responses("not-found", "unauthorized"))``.
    """
    by_status: dict[int, list[type[ServiceError]]] = {}
    for slug in slugs:
        problem_type = _declared(slug)
        group = by_status.setdefault(status_of(problem_type), [])
        if problem_type not in group:
            group.append(problem_type)
    responses: dict[int | str, dict[str, Any]] = {}
    for status in sorted(by_status):
        group = by_status[status]
        names = ", ".join(f"`{p.slug}`" for p in group)
        examples = {
            p.slug: {
                "summary": p.title,
                "value": problem_body(
                    p.slug, detail=p.description, extra=_EXAMPLE_MEMBERS.get(p.slug)
                ),
            }
            for p in group
        }
        response: dict[str, Any] = {
            "description": f"Problem: {names}",
            "content": {
                PROBLEM_MEDIA_TYPE: {"schema": {"$ref": PROBLEM_SCHEMA_REF}, "examples": examples}
            },
        }
        responses[status] = response
    return responses
