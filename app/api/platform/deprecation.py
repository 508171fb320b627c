"""Deprecated routes announce it on every answer: ``Deprecation`` (RFC 9745, the date it
was deprecated as ``@<seconds since the epoch>``), ``Sunset`` (RFC 8594, the HTTP-date
after which it may be gone) and a ``Link`` to what replaces it, with ``rel="deprecation"``
(and ``rel="sunset"``). The contract marks such an operation ``deprecated: true`` and
declares those headers on its answers (``app/api/documentation/openapi_document.py``).

A route is deprecated by a line in :data:`DEPRECATED` (none is yet); docs/api.md,
"Versioning and deprecation", says what a client can count on between the two dates.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime

from fastapi.routing import APIRoute

from app.api.platform.front import ServiceApp


@dataclass(frozen=True, slots=True)
class Deprecated:
    """A route (``method`` and ``path`` as declared) deprecated since ``since``, to be
    removed no sooner than ``sunset``; ``link`` names what to use instead."""

    method: str
    path: str
    since: datetime
    sunset: datetime | None = None
    link: str | None = None

    def headers(self) -> list[tuple[str, str]]:
        headers = [("Deprecation", f"@{int(self.since.timestamp())}")]
        if self.sunset is not None:
            headers.append(("Sunset", format_datetime(self.sunset.astimezone(UTC), usegmt=True)))
        if self.link is not None:
            rels = "deprecation sunset" if self.sunset is not None else "deprecation"
            headers.append(("Link", f'<{self.link}>; rel="{rels}"'))
        return headers


# The service's deprecated routes. Within v1 a route is removed only after its sunset,
# and only once it has answered with these headers for at least six months.
DEPRECATED: tuple[Deprecated, ...] = ()


def install_deprecations(app: ServiceApp, deprecated: Iterable[Deprecated] = DEPRECATED) -> None:
    """Mark each deprecated route in the contract and send its headers; a line naming a
    route the app does not have stops the app from being built."""
    for entry in deprecated:
        route = next(
            (
                r
                for r in app.routes
                if isinstance(r, APIRoute)
                and r.path == entry.path
                and entry.method in (r.methods or ())
            ),
            None,
        )
        if route is None:
            raise LookupError(f"no route {entry.method} {entry.path} to deprecate")
        route.deprecated = True
        app.deprecate(route, entry.headers())
