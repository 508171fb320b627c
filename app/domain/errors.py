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


class NotInReportPhase(ServiceError):
    slug = "not-in-report-phase"
    status = 409
    title = "The report's round has not reached its report phase"
    description = (
        "In a game that tracks rounds, a report resolves only in the report phase of round "
        "2, 4 or 6 (R-RND-2); advance the round first."
    )


class ReportStillOpen(ServiceError):
    slug = "report-still-open"
    status = 409
    title = "The round's report is still open"
    description = (
        "The round cannot move past round 2, 4 or 6 while that round's report is open "
        "(R-RND-3); resolve the report first."
    )


class LastRound(ServiceError):
    slug = "last-round"
    status = 409
    title = "Round 6 is the last"
    description = "The game ends with the Vatican Report of round 6; there is no round 7 (R-RND-4)."


class RoundsNotTracked(ServiceError):
    slug = "rounds-not-tracked"
    status = 409
    title = "This game does not track rounds"
    description = "Only a game created with `track_rounds: true` has a round to advance."


class NothingToUndo(ServiceError):
    slug = "nothing-to-undo"
    status = 409
    title = "Nothing to undo"
    description = "No change of play is left to undo: the game is as it was created (R-UNDO-1)."


class NothingToRedo(ServiceError):
    slug = "nothing-to-redo"
    status = 409
    title = "Nothing to redo"
    description = (
        "No undone change waits to be redone: nothing was undone, or a change of play came "
        "since, which clears what could be redone (R-UNDO-2)."
    )
