"""The HTTP status of every problem type: by its kind for the rules' and the use cases'
errors (they say what a refusal means; this says how HTTP carries it), or as the HTTP
layer's own problem types declare it (app/api/problems/catalogue.py)."""

from __future__ import annotations

from collections.abc import Mapping

from app.domain.errors import Kind, ServiceError

STATUS_OF_KIND: Mapping[Kind, int] = {
    Kind.INVALID: 422,
    Kind.NOT_FOUND: 404,
    Kind.CONFLICT: 409,
    Kind.UNAUTHENTICATED: 401,
    Kind.FORBIDDEN: 403,
    Kind.STALE: 412,
    Kind.RATE_LIMITED: 429,
    Kind.UNAVAILABLE: 503,
}


class HttpProblem(ServiceError):
    """A problem type only the HTTP layer answers: it names its status itself."""

    status: int


def status_of(problem_type: type[ServiceError]) -> int:
    if problem_type.kind is not None:
        return STATUS_OF_KIND[problem_type.kind]
    assert issubclass(problem_type, HttpProblem), problem_type
    return problem_type.status
