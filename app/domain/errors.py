"""Errors the service answers with a problem document, each declared once, here and below.

Every error class that declares a ``slug`` declares with it the HTTP ``status``, the
``title`` and a one-line ``description`` of its problem type; the catalogue served at
``/problems``, the exception handlers and the OpenAPI responses are all built from these
declarations (``app/api/problems``). Slugs are part of the public contract: never rename one.

The rules' own errors live in this module; the use cases add theirs in
``app/services/errors.py`` and the HTTP layer in ``app/api/problems/catalogue.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar


class ServiceError(Exception):
    """Base of every error answered with a problem document.

    A subclass that sets ``slug`` declares a problem type and registers it; one that does
    not is a variant of its parent's type.
    """

    slug: ClassVar[str]
    status: ClassVar[int]
    title: ClassVar[str]
    description: ClassVar[str]

    #: Every declared problem type, by slug, in declaration order.
    declared: ClassVar[dict[str, type[ServiceError]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "slug" not in cls.__dict__:
            return
        for attribute in ("status", "title", "description"):
            if attribute not in cls.__dict__:
                raise TypeError(f"{cls.__name__} declares a slug but no {attribute}")
        if cls.slug in ServiceError.declared:
            raise TypeError(f"problem slug {cls.slug!r} is declared twice")
        ServiceError.declared[cls.slug] = cls

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        # Extra members for the problem document, e.g. ``pending=[...]``.
        self.extra: Mapping[str, Any] = extra


class InvalidInput(ServiceError):
    """Input that is well-formed JSON but breaks a rule (e.g. an unknown tile id)."""

    slug = "validation-error"
    status = 422
    title = "Invalid request"
    description = (
        "The request is not valid: malformed JSON, an unknown field, a value of the wrong "
        "type or one that breaks a rule. `errors` names each offending field."
    )

    def __init__(self, detail: str, *, loc: tuple[str | int, ...] = (), **extra: Any) -> None:
        super().__init__(detail, **extra)
        self.loc = loc


class UnknownExpansion(InvalidInput):
    slug = "unknown-expansion"
    status = 422
    title = "Unknown expansion"
    description = "An expansion this service does not know."


class NotFound(ServiceError):
    slug = "not-found"
    status = 404
    title = "Not found"
    description = "No such resource (or route)."


class DecisionsPending(ServiceError):
    slug = "decisions-pending"
    status = 409
    title = "Eligible players have not chosen"
    description = "Eligible players must choose before the report resolves; `pending` lists them."

    def __init__(self, pending: list[str]) -> None:
        super().__init__(
            "These eligible players must choose support or refuse before the report resolves: "
            + ", ".join(pending),
            pending=list(pending),
        )
        self.pending = list(pending)


class NotEligible(ServiceError):
    slug = "not-eligible"
    status = 409
    title = "Player is not eligible to choose"
    description = "The player has too little faith to choose; they are excommunicated."


class ReportResolved(ServiceError):
    slug = "report-resolved"
    status = 409
    title = "Report already resolved"
    description = "The Vatican Report is resolved; its decisions can no longer change."


class ReportOutOfOrder(ServiceError):
    slug = "report-out-of-order"
    status = 409
    title = "An earlier report is still open"
    description = "Reports resolve in period order; an earlier one is still open."
