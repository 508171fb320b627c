"""Errors of the use cases that are not rules of the game: access, versions, idempotency."""

from __future__ import annotations

from app.domain.errors import RuleError


class Unauthorized(RuleError):
    slug = "unauthorized"
    title = "Missing or invalid token"


class Forbidden(RuleError):
    slug = "forbidden"
    title = "This token may not do that"


class VersionMismatch(RuleError):
    slug = "version-mismatch"
    title = "The game changed since that version"


class IdempotencyKeyReused(RuleError):
    slug = "idempotency-key-reused"
    title = "Idempotency-Key reused with a different request"


class IdempotencyInFlight(RuleError):
    slug = "idempotency-in-flight"
    title = "A request with this Idempotency-Key is still being processed"


class ServiceUnavailable(RuleError):
    slug = "service-unavailable"
    title = "The database is unavailable"
