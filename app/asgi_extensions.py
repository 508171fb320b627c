"""What the service's server tells its app beyond the ASGI spec, through the scope's
``extensions`` (where the spec lets a server put its own).

The edge (``app/server``) sometimes answers a request itself while the app is serving it:
a body whose framing breaks (400) or that does not come in time (408). The app then reads
a disconnect, as if the client had left, and would record the request as a client's 499.
The edge leaves the status it sent in the request's scope first, so that the metrics and
the access line say what the client was answered. This module imports nothing: the
server's worker loads it before the app, and the app's front reads it.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

#: The extension's name in ``scope["extensions"]``; its value is ``{"status": int}``.
ANSWERED_BY_SERVER = "vatican-report.answered-by-server"


def mark_answered_by_server(scope: Any, status: int) -> None:
    """Record in ``scope`` (uvicorn's, a TypedDict that no mapping type admits) that the
    server answered its request ``status`` itself."""
    scope.setdefault("extensions", {})[ANSWERED_BY_SERVER] = {"status": status}


def status_answered_by_server(scope: MutableMapping[str, Any]) -> int | None:
    """The status the server answered ``scope``'s request with itself, if it did."""
    extensions = scope.get("extensions") or {}
    answer = extensions.get(ANSWERED_BY_SERVER)
    return None if answer is None else int(answer["status"])
