"""Errors the service answers with a problem document, each declared once, here and below.

Every error class that declares a ``slug`` declares with it its :class:`Kind`, the
``title`` and a one-line ``description`` of its problem type; the catalogue served at
``/problems``, the exception handlers and the OpenAPI responses are all built from these
declarations (``app/api/problems``), and the HTTP status of each kind is the HTTP layer's
to say (``app/api/problems/statuses.py``). Slugs are part of the public contract: never
rename one.

The rules' own errors live in this module; the use cases add theirs in
``app/services/errors.py`` and the HTTP layer in ``app/api/problems/catalogue.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any, ClassVar


class Kind(Enum):
    """What a refusal means, whatever carries it to the client."""

    INVALID = "invalid"  # the input breaks a rule, or is not what the call takes
    NOT_FOUND = "not-found"  # no such game, report or player
    CONFLICT = "conflict"  # the game's state does not allow it now
    UNAUTHENTICATED = "unauthenticated"  # no token, or one the game does not know
    FORBIDDEN = "forbidden"  # the token may not do that
    STALE = "stale"  # the client's version of the game is not the current one
    RATE_LIMITED = "rate-limited"  # a limit of the client's share; try again later
    UNAVAILABLE = "unavailable"  # the service cannot answer now; try again later


class ServiceError(Exception):
    """Base of every error answered with a problem document.

    A subclass that sets ``slug`` declares a problem type and registers it; one that does
    not is a variant of its parent's type. A problem type has a ``kind``, except the ones
    only the HTTP layer answers (a 405, a 413...), which declare their ``status`` there.
    """

    slug: ClassVar[str]
    kind: ClassVar[Kind | None] = None
    title: ClassVar[str]
    description: ClassVar[str]

    #: Every declared problem type, by slug, in declaration order.
    declared: ClassVar[dict[str, type[ServiceError]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "slug" not in cls.__dict__:
            return
        for attribute in ("title", "description"):
            if attribute not in cls.__dict__:
                raise TypeError(f"{cls.__name__} declares a slug but no {attribute}")
        if ("kind" in cls.__dict__) == ("status" in cls.__dict__):
            raise TypeError(f"{cls.__name__} declares a slug: it needs a kind or a status")
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
    kind = Kind.INVALID
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
    kind = Kind.INVALID
    title = "Unknown expansion"
    description = "An expansion this service does not know."


class NotFound(ServiceError):
    slug = "not-found"
    kind = Kind.NOT_FOUND
    title = "Not found"
    description = "No such resource (or route)."


class DecisionsPending(ServiceError):
    slug = "decisions-pending"
    kind = Kind.CONFLICT
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
    kind = Kind.CONFLICT
    title = "Player is not eligible to choose"
    description = "The player has too little faith to choose; they are excommunicated."


class ReportResolved(ServiceError):
    slug = "report-resolved"
    kind = Kind.CONFLICT
    title = "Report already resolved"
    description = "The Vatican Report is resolved; its decisions can no longer change."


class ReportOutOfOrder(ServiceError):
    slug = "report-out-of-order"
    kind = Kind.CONFLICT
    title = "An earlier report is still open"
    description = "Reports resolve in period order; an earlier one is still open."


class NotInReportPhase(ServiceError):
    slug = "not-in-report-phase"
    kind = Kind.CONFLICT
    title = "The report's round has not reached its report phase"
    description = (
        "In a game that tracks rounds, a report resolves only in the report phase of round "
        "2, 4 or 6 (R-RND-2); advance the round first."
    )


class ReportStillOpen(ServiceError):
    slug = "report-still-open"
    kind = Kind.CONFLICT
    title = "The round's report is still open"
    description = (
        "The round cannot move past round 2, 4 or 6 while that round's report is open "
        "(R-RND-3); resolve the report first."
    )


class LastRound(ServiceError):
    slug = "last-round"
    kind = Kind.CONFLICT
    title = "Round 6 is the last"
    description = "The game ends with the Vatican Report of round 6; there is no round 7 (R-RND-4)."


class RoundsNotTracked(ServiceError):
    slug = "rounds-not-tracked"
    kind = Kind.CONFLICT
    title = "This game does not track rounds"
    description = "Only a game created with `track_rounds: true` has a round to advance."


class NothingToUndo(ServiceError):
    slug = "nothing-to-undo"
    kind = Kind.CONFLICT
    title = "Nothing to undo"
    description = "No change of play is left to undo: the game is as it was created (R-UNDO-1)."


class NothingToRedo(ServiceError):
    slug = "nothing-to-redo"
    kind = Kind.CONFLICT
    title = "Nothing to redo"
    description = (
        "No undone change waits to be redone: nothing was undone, or a change of play came "
        "since, which clears what could be redone (R-UNDO-2)."
    )
