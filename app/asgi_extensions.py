"""What the service's server tells its app beyond the ASGI spec, through the scope's
``extensions`` (where the spec lets a server put its own).

The edge (``app/server``) sometimes answers a request itself while the app is serving it:
a body whose framing breaks (400) or that does not come in time (408). The app then reads
a disconnect, as if the client had left, and would record the request as a client's 499.
The edge leaves the status and the request id it sent in the request's scope first, so
that the metrics and the access line say what the client was answered. This module
imports nothing of the app: the server's worker loads it before the app, and the app's
front reads it.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any, NamedTuple

#: The extension's name in ``scope["extensions"]``.
ANSWERED_BY_SERVER = "vatican-report.answered-by-server"


class ServerAnswer(NamedTuple):
    """What the server answered a request with, itself."""

    status: int
    request_id: str


def mark_answered_by_server(scope: Any, status: int, request_id: str) -> None:
    """Record in ``scope`` (uvicorn's, a TypedDict that no mapping type admits) that the
    server answered its request ``status`` itself, with ``request_id``."""
    answer = {"status": status, "request_id": request_id}
    scope.setdefault("extensions", {})[ANSWERED_BY_SERVER] = answer


def answered_by_server(scope: MutableMapping[str, Any]) -> ServerAnswer | None:
    """What the server answered ``scope``'s request with itself, if it did."""
    extensions = scope.get("extensions") or {}
    answer = extensions.get(ANSWERED_BY_SERVER)
    if answer is None:
        return None
    return ServerAnswer(answer["status"], answer["request_id"])
