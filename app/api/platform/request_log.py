"""What every request leaves behind: its count and duration in the metrics, labelled with
its route's template, and one JSON line on the ``app.access`` logger."""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Any, TextIO

from prometheus_client import Counter, Histogram
from starlette.types import Scope

from app.api.platform.responses import json_bytes

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
            line = json_bytes(
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
            # Inline, as in write_access_line: a call less on every request.
            sink = _only_access_line_handler()
            if sink is not None:
                sink.write_line(line)
            else:
                _handle(line)


def write_access_line(fields: dict[str, Any]) -> None:
    """``fields`` as one JSON line on the access log (``app.access``, at INFO), as the line
    of an answer the server's edge gave itself."""
    if access_logger.isEnabledFor(logging.INFO):
        line = json_bytes(fields).decode()
        sink = _only_access_line_handler()
        if sink is not None:
            sink.write_line(line)
        else:
            _handle(line)


def _handle(line: str) -> None:
    """``line`` to the access log's handlers as a record of its own: Logger.info would
    first walk the stack for the caller's file and line, which a line of the access log
    does not carry (bench/RESULTS.md: the access log's cost)."""
    access_logger.handle(
        logging.getLogRecordFactory()(
            access_logger.name, logging.INFO, __file__, 0, line, None, None
        )
    )


class AccessLineHandler(logging.Handler):
    """The access log's sink as ``python -m app`` configures it: each line as it is, with
    no formatter, onto a stream (stdout by default). Lines logged during one turn of the
    event loop are written together at the start of the next, with one flush: a busy
    worker writes once per turn, not once per request. Off the loop (or with no loop
    running) a line is written at once. ``close`` (at exit) writes what is still held.

    When ``app.access`` goes to this handler alone (no filters, no propagation),
    :class:`RequestLog` hands it the line without making a ``LogRecord``; any other
    configuration gets ordinary records (bench/RESULTS.md: the access log's cost)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        super().__init__()
        self.stream = stream if stream is not None else sys.stdout
        self._held: list[str] = []
        self._held_for: asyncio.AbstractEventLoop | None = None  # whose next turn writes them

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.write_line(record.getMessage())
        except Exception:
            self.handleError(record)

    def write_line(self, line: str) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a thread, or no loop: nothing will come back to flush
            self._write([line])
            return
        if self._held_for is not loop:
            # Lines held for another loop (one that stopped before its next turn) go now.
            self.flush()
            self._held_for = loop
        if not self._held:
            loop.call_soon(self.flush)
        self._held.append(line)

    def flush(self) -> None:
        held, self._held = self._held, []
        if held:
            self._write(held)

    def _write(self, lines: list[str]) -> None:
        with self.lock:  # type: ignore[union-attr]  # Handler.createLock made it
            self.stream.write("\n".join(lines) + "\n")
            self.stream.flush()

    def close(self) -> None:
        self.flush()
        super().close()


def _only_access_line_handler() -> AccessLineHandler | None:
    """The handler that alone receives ``app.access``'s lines, if it is an
    :class:`AccessLineHandler` that filters nothing; else None (records are made)."""
    handlers = access_logger.handlers
    if len(handlers) != 1 or access_logger.propagate or access_logger.filters:
        return None
    handler = handlers[0]
    if type(handler) is not AccessLineHandler or handler.filters:
        return None
    if handler.level > logging.INFO:
        return None
    return handler
