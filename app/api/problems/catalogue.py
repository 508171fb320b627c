"""The problem types this service answers with, all declared by their error classes.

The rules declare theirs in ``app/domain/errors.py``, the use cases in
``app/services/errors.py``; the answers only the HTTP layer gives are declared here. This
module imports all three so that :data:`PROBLEM_TYPES` is complete wherever it is read.
"""

from __future__ import annotations

from collections.abc import Mapping

import app.services.errors  # noqa: F401  (declares the use cases' problem types)
from app.api.problems.statuses import HttpProblem
from app.domain.errors import Kind, ServiceError

PROBLEM_TYPE_PREFIX = "/problems/"


class BadRequest(HttpProblem):
    slug = "bad-request"
    status = 400
    title = "Bad request"
    description = (
        "The request is malformed in a way no body field names, e.g. a header that may be "
        "sent once is sent twice."
    )


class MethodNotAllowed(HttpProblem):
    slug = "method-not-allowed"
    status = 405
    title = "Method not allowed"
    description = "The route exists but not with this method; `Allow` lists the methods it takes."


class CorsRefused(HttpProblem):
    slug = "cors-refused"
    status = 403
    title = "Cross-origin request refused"
    description = (
        "A browser's CORS preflight from an origin that `CORS_ORIGINS` does not list, or "
        "asking for a method or header the service does not allow."
    )


class NotAcceptable(HttpProblem):
    slug = "not-acceptable"
    status = 406
    title = "Not acceptable"
    description = "The service cannot answer in the media type asked."


class RequestTimeout(HttpProblem):
    slug = "request-timeout"
    status = 408
    title = "Request timeout"
    description = (
        "The request's body did not all arrive within `BODY_TIMEOUT_SECONDS` of its "
        "headers; the connection is closed."
    )


class PayloadTooLarge(HttpProblem):
    slug = "payload-too-large"
    status = 413
    title = "Request body too large"
    description = "The request body is larger than this service accepts."


class UnsupportedMediaType(HttpProblem):
    slug = "unsupported-media-type"
    status = 415
    title = "Unsupported media type"
    description = "The request body must be `application/json`."


class RequestHeaderFieldsTooLarge(HttpProblem):
    slug = "request-header-fields-too-large"
    status = 431
    title = "Request header fields too large"
    description = "The request's headers are larger than this service accepts."


class ServiceUnavailable(ServiceError):
    slug = "service-unavailable"
    kind = Kind.UNAVAILABLE
    title = "Service unavailable"
    description = (
        "The service cannot answer now (its database is unreachable or does not answer "
        "within the service's bounds, a change waited too long for another change of the "
        "same game, or it is at its limit of connections); retry after `Retry-After` "
        "seconds."
    )


class InternalError(HttpProblem):
    slug = "internal-error"
    status = 500
    title = "Internal error"
    description = (
        "A bug in this service. It is logged with the request id; nothing else is disclosed."
    )


#: Every problem type, by slug.
PROBLEM_TYPES: Mapping[str, type[ServiceError]] = ServiceError.declared


def problem_type_uri(slug: str) -> str:
    return PROBLEM_TYPE_PREFIX + slug
