"""RFC 9457 problem details: every error this service returns is ``application/problem+json``.

- ``catalogue``: the problem types, declared by their error classes;
- ``statuses``: the HTTP status of each kind of error (and of the HTTP layer's own);
- ``documents``: problem documents and responses;
- ``handlers``: exceptions mapped to problems;
- ``openapi``: the Problem schema and the ``responses=`` of each route.
"""

from app.api.problems.catalogue import PROBLEM_TYPES, problem_type_uri
from app.api.problems.documents import (
    PROBLEM_MEDIA_TYPE,
    ProblemResponse,
    problem_body,
    problem_bytes,
    problem_response,
)
from app.api.problems.handlers import install_problem_handlers, unexpected_error_body
from app.api.problems.openapi import Problem, problem_responses
from app.api.problems.statuses import status_of

__all__ = [
    "PROBLEM_MEDIA_TYPE",
    "PROBLEM_TYPES",
    "Problem",
    "ProblemResponse",
    "install_problem_handlers",
    "problem_body",
    "problem_bytes",
    "problem_response",
    "problem_responses",
    "problem_type_uri",
    "status_of",
    "unexpected_error_body",
]
