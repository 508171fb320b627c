"""The one middleware every request goes through: request id, access log, metrics, body limit.

Pure ASGI on purpose (``BaseHTTPMiddleware`` runs the app in a separate task and buffers
through memory streams, which costs measurably per request), and one layer rather than
four so each request pays for a single wrapper of ``receive``/``send``.
"""

from __future__ import annotations

import logging
import re
import secrets
import time
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.platform.request_log import RequestLog, route_template
from app.api.problems import (
    PROBLEM_MEDIA_TYPE,
    problem_body,
    problem_bytes,
    unexpected_error_body,
)

REQUEST_ID_HEADER = b"x-request-id"
#: The status recorded (metrics, access log) for a request whose client went away before
#: its answer could be delivered (nginx's convention; never sent on the wire).
CLIENT_CLOSED_REQUEST = 499

error_logger = logging.getLogger("app.errors")

# A client's id is echoed only when it is short and plainly printable: it lands in logs.
_SANE_REQUEST_ID = re.compile(rb"[\x21-\x7e]{1,128}")


class PlatformMiddleware:
    """Request id, access log, Prometheus metrics, body size limit and last-resort errors.

    - ``X-Request-ID``: echoed when the client sent a sane one, else 32 new random hex digits; on
      every response, problems included, and in the error log lines.
    - One JSON line per request on logger ``app.access``.
    - ``http_requests_total`` and ``http_request_duration_seconds`` labelled with the
      route template.
    - Bodies over ``max_body_bytes`` -> 413 ``payload-too-large``: at once from
      ``Content-Length``, or as soon as a chunked body grows past the limit.
    - An exception that escapes the app -> 503 ``service-unavailable`` when the database
      is down, else a logged 500 ``internal-error``; answered here so the response still
      carries the request id and is counted.
    - A client that disconnects before its answer is complete is not an error: it is
      counted and logged (at info) with status 499, and nothing is raised to the server.
    """

    def __init__(self, app: ASGIApp, *, max_body_bytes: int, retry_after_seconds: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.retry_after = str(retry_after_seconds).encode()
        self._log = RequestLog()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        start = time.perf_counter()
        client_id: bytes | None = None
        content_length: int | None = None
        for name, value in scope["headers"]:
            if name == REQUEST_ID_HEADER:
                client_id = value
            elif name == b"content-length":
                try:
                    content_length = int(value)
                except ValueError:
                    content_length = None
        if client_id is not None and _SANE_REQUEST_ID.fullmatch(client_id):
            request_id = client_id.decode("ascii")
        else:
            # 32 random hex digits, as uuid4().hex gave, without building a UUID.
            request_id = secrets.token_hex(16)
        request_id_header = (REQUEST_ID_HEADER, request_id.encode("ascii"))

        status = 500
        started = False
        completed = False  # the last byte of the answer was handed to the server
        disconnected = False
        too_large = False
        replaced = False  # the app's own answer was swapped for our 413
        limit = self.max_body_bytes

        async def send_problem(
            body: dict[str, Any], extra_headers: list[tuple[bytes, bytes]]
        ) -> None:
            nonlocal status, started
            payload = problem_bytes(body)
            status = body["status"]
            started = True
            headers = [
                (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
                (b"content-length", str(len(payload)).encode()),
                request_id_header,
                *extra_headers,
            ]
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": payload})

        def too_large_body() -> dict[str, Any]:
            return problem_body(
                "payload-too-large",
                detail=f"The request body is larger than {limit} bytes.",
                instance=scope["path"],
            )

        async def send_wrapper(message: Message) -> None:
            nonlocal status, started, replaced, completed
            if replaced:
                return
            if message["type"] == "http.response.start":
                if too_large and message["status"] != 413:
                    # Whatever the app made of the truncated body, the answer is a 413.
                    replaced = True
                    await send_problem(too_large_body(), [])
                    return
                status = message["status"]
                started = True
                headers = [h for h in message.get("headers", ()) if h[0] != REQUEST_ID_HEADER]
                headers.append(request_id_header)
                message = {**message, "headers": headers}
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                completed = True

        async def receive_watched() -> Message:
            nonlocal disconnected
            message = await receive()
            # A response that listens for the disconnect (a file, a stream) also hears it
            # after its last byte: only a client gone before that is the client's 499.
            if message["type"] == "http.disconnect" and not completed:
                disconnected = True
            return message

        received = 0

        async def receive_limited() -> Message:
            nonlocal received, too_large
            message = await receive_watched()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    too_large = True
                    raise HTTPException(413, f"The request body is larger than {limit} bytes.")
            return message

        try:
            if content_length is not None and content_length > limit:
                too_large = True
                await send_problem(too_large_body(), [])
            else:
                # A declared length within the limit is enforced by the server itself.
                inner_receive = receive_watched if content_length is not None else receive_limited
                await self.app(scope, inner_receive, send_wrapper)
            if disconnected:
                status = CLIENT_CLOSED_REQUEST
        except Exception as exc:
            if disconnected or isinstance(exc, ClientDisconnect):
                # Nobody to answer: not a failure of the service, nothing to re-raise.
                status = CLIENT_CLOSED_REQUEST
            elif started:
                # Too late for a problem document: the server will cut the response.
                error_logger.error(
                    "error after the response started on %s %s (request %s)",
                    scope["method"],
                    scope["path"],
                    request_id,
                    exc_info=exc,
                )
                status = 500
                raise
            elif too_large:
                await send_problem(too_large_body(), [])
            else:
                body, unavailable = unexpected_error_body(exc, scope["path"])
                if unavailable:
                    error_logger.warning(
                        "database unavailable on %s %s (request %s): %s",
                        scope["method"],
                        scope["path"],
                        request_id,
                        type(exc).__name__,
                    )
                    await send_problem(body, [(b"retry-after", self.retry_after)])
                else:
                    error_logger.error(
                        "unhandled error on %s %s (request %s)",
                        scope["method"],
                        scope["path"],
                        request_id,
                        exc_info=exc,
                    )
                    await send_problem(body, [])
        finally:
            duration = time.perf_counter() - start
            if status == CLIENT_CLOSED_REQUEST:
                error_logger.info(
                    "client disconnected during %s %s (request %s)",
                    scope["method"],
                    scope["path"],
                    request_id,
                )
            self._record(scope, status, duration, request_id)

    def _record(self, scope: Scope, status: int, duration: float, request_id: str) -> None:
        self._log.record(
            scope["method"], route_template(scope), scope["path"], status, duration, request_id
        )
