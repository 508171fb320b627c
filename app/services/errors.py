"""Errors of the use cases that are not rules of the game: access, versions, idempotency,
limits. Each declares its problem type once (see ``app/domain/errors.py``)."""

from __future__ import annotations

from typing import Any

from app.domain.errors import Kind, ServiceError


class Unauthorized(ServiceError):
    slug = "unauthorized"
    kind = Kind.UNAUTHENTICATED
    title = "Missing or invalid token"
    description = "No token, or one this game does not know."


class Forbidden(ServiceError):
    slug = "forbidden"
    kind = Kind.FORBIDDEN
    title = "This token may not do that"
    description = "The token is valid but lacks the right."


class VersionMismatch(ServiceError):
    slug = "version-mismatch"
    kind = Kind.STALE
    title = "The game changed since that version"
    description = "`If-Match` names an older version of the game; reload it and retry."

    def __init__(self, detail: str, *, current_version: int) -> None:
        super().__init__(detail, current_version=current_version)


class IdempotencyKeyReused(ServiceError):
    slug = "idempotency-key-reused"
    kind = Kind.INVALID
    title = "Idempotency-Key reused with a different request"
    description = "An `Idempotency-Key` may only be retried with the same request body."


class IdempotencyInFlight(ServiceError):
    slug = "idempotency-in-flight"
    kind = Kind.CONFLICT
    title = "A request with this Idempotency-Key is still being processed"
    description = "Retry after the first request with this `Idempotency-Key` has finished."


class EventLimitReached(ServiceError):
    slug = "event-limit-reached"
    kind = Kind.CONFLICT
    title = "The game's event log is full"
    description = "The game has logged the most changes a game may have; it can still be read."


class SeatEventLimitReached(ServiceError):
    slug = "seat-event-limit-reached"
    kind = Kind.CONFLICT
    title = "This player has made the most changes a player may"
    description = (
        "A player's token has logged the most changes one player may make to a game; the "
        "host can still change the game."
    )

    def __init__(self, detail: str, *, player_id: str) -> None:
        super().__init__(detail, player_id=player_id)


class TooManyRequests(ServiceError):
    slug = "too-many-requests"
    kind = Kind.RATE_LIMITED
    title = "Too many requests"
    description = "A rate limit was reached; retry after `Retry-After` seconds."

    def __init__(self, detail: str, *, retry_after: int, **extra: Any) -> None:
        super().__init__(detail, **extra)
        self.retry_after = retry_after


class TooManyStreams(ServiceError):
    slug = "too-many-streams"
    kind = Kind.UNAVAILABLE
    title = "Too many clients follow games here"
    description = (
        "This process follows as many games live (streams and long-polls) as it may; retry "
        "after `Retry-After` seconds, perhaps on another replica."
    )

    def __init__(self, detail: str, *, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after
