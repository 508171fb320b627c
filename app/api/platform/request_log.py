"""What every request leaves behind: its count and duration in the metrics, labelled with
its route's template, and one JSON line on the ``app.access`` logger."""

from __future__ import annotations

import logging
from typing import Any

import pydantic_core
from prometheus_client import Counter, Histogram
from starlette.types import Scope

#: The route label of a request no route matched.
UNMATCHED_ROUTE = "unmatched"

access_logger = logging.getLogger("app.access")

HTTP_REQUESTS = Counter(
    "http_requests_total",
    "HTTP requests handled, by method, route template and status.",
    ["method", "route", "status"],
)
HTTP_DURATION = Histogram(
    "http_request_duration_seconds",
    "Time to handle an HTTP request, by method and route template.",
    ["method", "route"],
)

# Any other method is labelled "OTHER" so a client cannot grow the metric series.
_KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def route_template(scope: Scope) -> str:
    """The matched route's path template (bounded cardinality), else ``"unmatched"``."""
    route = scope.get("route")
    if route is None:
        return UNMATCHED_ROUTE
    template = getattr(route, "path_format", None) or getattr(route, "path", None)
    if not isinstance(template, str):
        return UNMATCHED_ROUTE
    return template or UNMATCHED_ROUTE


class RequestLog:
    """Counts, times and logs each request once it is answered."""

    def __init__(self) -> None:
        self._counters: dict[tuple[str, str, str], Any] = {}
        self._histograms: dict[tuple[str, str], Any] = {}

    def record(
        self, method: str, route: str, path: str, status: int, duration: float, request_id: str
    ) -> None:
        """``route`` is the template of the route that answered (``UNMATCHED_ROUTE`` if none)."""
        if method not in _KNOWN_METHODS:
            method = "OTHER"
        status_label = str(status)
        counter_key = (method, route, status_label)
        counter = self._counters.get(counter_key)
        if counter is None:
            counter = self._counters[counter_key] = HTTP_REQUESTS.labels(*counter_key)
        counter.inc()
        histogram_key = (method, route)
        histogram = self._histograms.get(histogram_key)
        if histogram is None:
            histogram = self._histograms[histogram_key] = HTTP_DURATION.labels(*histogram_key)
        histogram.observe(duration)
        if access_logger.isEnabledFor(logging.INFO):
            line = pydantic_core.to_json(
                {
                    "event": "request",
                    "method": method,
                    "route": route,
                    "path": path,
                    "status": status,
                    "duration_ms": round(duration * 1000, 3),
                    "request_id": request_id,
                }
            ).decode()
            # Handed to the logger's handlers as a record of its own: Logger.info would
            # first walk the stack for the caller's file and line, which a line of the
            # access log does not carry (bench/RESULTS.md: the access log's cost).
            access_logger.handle(
                logging.getLogRecordFactory()(
                    access_logger.name, logging.INFO, __file__, 0, line, None, None
                )
            )
