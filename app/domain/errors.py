"""Errors the rules raise. Each carries a stable slug that the HTTP layer maps to a status.

The slug is part of the public contract (API.md, "Problem type slugs"): never rename one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class RuleError(Exception):
    """Base of every error raised by the domain or the use cases."""

    slug: str = "validation-error"
    title: str = "The request breaks a rule"

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        # Extra members for the problem document, e.g. ``pending=[...]``.
        self.extra: Mapping[str, Any] = extra


class InvalidInput(RuleError):
    """Input that is well-formed JSON but breaks a rule (e.g. an unknown tile id)."""

    slug = "validation-error"
    title = "Invalid input"

    def __init__(self, detail: str, *, loc: tuple[str | int, ...] = (), **extra: Any) -> None:
        super().__init__(detail, **extra)
        self.loc = loc


class UnknownExpansion(InvalidInput):
    slug = "unknown-expansion"
    title = "Unknown expansion"


class NotFound(RuleError):
    slug = "not-found"
    title = "Not found"


class DecisionsPending(RuleError):
    slug = "decisions-pending"
    title = "Eligible players have not chosen"

    def __init__(self, pending: list[str]) -> None:
        super().__init__(
            "These eligible players must choose support or refuse before the report resolves: "
            + ", ".join(pending),
            pending=list(pending),
        )
        self.pending = list(pending)


class NotEligible(RuleError):
    slug = "not-eligible"
    title = "Player is not eligible to choose"


class ReportResolved(RuleError):
    slug = "report-resolved"
    title = "Report already resolved"


class ReportOutOfOrder(RuleError):
    slug = "report-out-of-order"
    title = "An earlier report is still open"
