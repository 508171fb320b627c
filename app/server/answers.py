"""The answers the edge gives itself, before (or instead of) the app: problem documents
like every other error of the service, and counters of what it refused or delayed.

The problem catalogue is imported when first needed: this module is imported when a
worker process unpickles its configuration, before it answers its master's health pings,
and the catalogue pulls in the whole app.
"""

from __future__ import annotations

from prometheus_client import Counter
from starlette.types import ASGIApp, Receive, Scope, Send

from app.request_ids import HEADER as REQUEST_ID_HEADER
from app.request_ids import new_request_id, request_id_for, sent_request_id

EDGE_REFUSALS = Counter(
    "http_edge_refusals_total",
    "Connections or requests the HTTP edge refused or cut, by reason.",
    ["reason"],
)

EDGE_DELAYS = Counter(
    "http_edge_delayed_requests_total",
    "Requests the HTTP edge started late, to hold their client address to its request rate.",
)

#: The reasons counted in ``http_edge_refusals_total``.
HEADERS_TOO_LARGE = "header-fields-too-large"
CONNECTION_LIMIT = "connection-limit"
CONNECTION_FLOOD = "connection-flood"
ADDRESS_LIMIT = "address-limit"
ADDRESS_FLOOD = "address-flood"
PIPELINE_LIMIT = "pipeline-limit"
HEADER_TIMEOUT = "header-timeout"
BODY_TIMEOUT = "body-timeout"
BAD_REQUEST = "bad-request"
SEND_TIMEOUT = "send-timeout"
REQUEST_RATE = "request-rate"

BAD_REQUEST_DETAIL = (
    "The request is not valid HTTP/1.1: its request line, a header or its framing "
    "could not be read."
)


def refused(reason: str) -> None:
    EDGE_REFUSALS.labels(reason).inc()


def logged(
    reason: str, status: int, request_id: str, method: str | None = None, path: str | None = None
) -> None:
    """An answer the edge gave itself, on the access log as every answer of the app is, so
    that the request id a client quotes is found there too. ``method`` and ``path`` are
    None when no request line could be read."""
    from app.api.platform.request_log import write_access_line

    write_access_line(
        {
            "event": "edge",
            "reason": reason,
            "method": method,
            "path": path,
            "status": status,
            "request_id": request_id,
        }
    )


def delayed() -> None:
    EDGE_DELAYS.inc()


def headers_too_large(
    max_header_bytes: int,
    max_headers: int,
    default_headers: list[tuple[bytes, bytes]],
    request_id: str = "",
) -> bytes:
    """A complete HTTP/1.1 431 response that closes the connection (with ``request_id``, or
    a new one)."""
    return _closing_answer(
        b"431 Request Header Fields Too Large",
        "request-header-fields-too-large",
        f"The request line and headers may take at most {max_header_bytes} bytes "
        f"in at most {max_headers} fields.",
        default_headers,
        request_id,
    )


def bad_request(default_headers: list[tuple[bytes, bytes]], request_id: str = "") -> bytes:
    """A complete HTTP/1.1 400 response, for bytes the parser cannot read as a request,
    that closes the connection (with ``request_id``, or a new one)."""
    return _closing_answer(
        b"400 Bad Request", "bad-request", BAD_REQUEST_DETAIL, default_headers, request_id
    )


def request_timeout(
    body_timeout: float, default_headers: list[tuple[bytes, bytes]], request_id: str = ""
) -> bytes:
    """A complete HTTP/1.1 408 response that closes the connection (with ``request_id``,
    or a new one)."""
    seconds = f"{body_timeout:g} second{'' if body_timeout == 1 else 's'}"
    return _closing_answer(
        b"408 Request Timeout",
        "request-timeout",
        f"The request's body must arrive within {seconds} of its headers.",
        default_headers,
        request_id,
    )


def _closing_answer(
    status: bytes,
    slug: str,
    detail: str,
    default_headers: list[tuple[bytes, bytes]],
    request_id: str = "",
) -> bytes:
    """A problem as a complete HTTP/1.1 response, written by the edge itself, that closes
    the connection."""
    from app.api.problems import PROBLEM_MEDIA_TYPE, problem_body, problem_bytes

    payload = problem_bytes(problem_body(slug, detail=detail))
    lines = [b"HTTP/1.1 " + status + b"\r\n"]
    headers = [
        *default_headers,
        (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
        (b"content-length", str(len(payload)).encode()),
        (REQUEST_ID_HEADER, (request_id or new_request_id()).encode("ascii")),
        (b"connection", b"close"),
    ]
    lines += [name + b": " + value + b"\r\n" for name, value in headers]
    return b"".join([*lines, b"\r\n", payload])


def service_unavailable(reason: str, detail: str, retry_after_seconds: int) -> ASGIApp:
    """The app a connection past a limit (``reason``) is served by: one 503 saying
    ``detail``, then close."""
    retry_after = (b"retry-after", str(retry_after_seconds).encode())
    return _problem_app(reason, 503, "service-unavailable", detail, [retry_after])


def bad_request_app() -> ASGIApp:
    """The app a request is served by when the parser stopped inside its body while it
    waited behind another answer: the 400 of :func:`bad_request`, its body never read."""
    return _problem_app(BAD_REQUEST, 400, "bad-request", BAD_REQUEST_DETAIL, [])


def too_many_requests(detail: str, retry_after_seconds: int, close: bool) -> ASGIApp:
    """The app a request over its client's rate is served by, when it may not wait (one
    a trusted proxy forwarded): a 429 saying ``detail``. The connection (the proxy's,
    which carries other clients' requests too) is kept open unless ``close``: for a
    request with a body, which the server would otherwise read to its end, however long,
    and drop."""
    retry_after = (b"retry-after", str(retry_after_seconds).encode())
    return _problem_app(REQUEST_RATE, 429, "too-many-requests", detail, [retry_after], close=close)


def _problem_app(
    reason: str,
    status: int,
    slug: str,
    detail: str,
    extra_headers: list[tuple[bytes, bytes]],
    close: bool = True,
) -> ASGIApp:
    """An app that answers one problem and asks for the connection to close (unless not
    ``close``); it reads none of the request's body. Its answer is logged as the edge's,
    for ``reason``."""
    ending = [(b"connection", b"close")] if close else []
    from app.api.problems import PROBLEM_MEDIA_TYPE, problem_body, problem_bytes

    async def answer(scope: Scope, receive: Receive, send: Send) -> None:
        request_id = request_id_for(sent_request_id(scope["headers"]))
        payload = problem_bytes(problem_body(slug, detail=detail, instance=scope.get("path")))
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
                    (b"content-length", str(len(payload)).encode()),
                    *extra_headers,
                    (REQUEST_ID_HEADER, request_id.encode("ascii")),
                    *ending,
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload, "more_body": False})
        logged(reason, status, request_id, scope["method"], scope["path"])

    return answer
