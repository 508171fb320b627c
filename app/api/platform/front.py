"""The front every HTTP request comes through, and the service's FastAPI app that has one.

FastAPI declares every route (the contract is written from the declarations) and could
serve every request through its own stack: middlewares of its own, each added middleware,
an exception middleware, an exit stack per request, and a router that tries each route
in turn. The service's routes need none of it (they are explicit routes,
``explicit_route.py``, which read their requests themselves), and per request that stack
cost more than the service's own work on its cheapest routes (bench/RESULTS.md). So the
app's :class:`Front` does the platform's part of every request itself, in one layer:

- ``X-Request-ID``: echoed when the client sent a sane one, else 32 new random hex
  digits; on every answer, problems included, and in the error log lines;
- the metrics and the access line (``request_log.py``), once the request is answered;
- a body over ``max_body_bytes``: 413 ``payload-too-large``, at once from its
  ``Content-Length``, or as soon as a chunked body grows past the limit; an answer given
  while the rest of such a body, or of a chunked one, may still come closes the
  connection (``_CLOSE``);
- CORS (``cors.py``): preflights answered, and the headers that let a listed origin read;
- ``HEAD`` on every route that answers ``GET``: served as the ``GET``, without the body
  (the same status and headers by construction; a stream ends once its head is sent);
- content negotiation (``negotiation.py``): a 406 before the route runs, so a change
  that could not be answered is never made;
- the headers of a deprecated route (``deprecation.py``);
- an exception nothing else handled: 503 ``service-unavailable`` when the database is
  down, else a logged 500 ``internal-error``; a client gone before its answer is complete
  is not an error: counted and logged (at info) with status 499 (nginx's convention),
  unless the server answered the request itself first (``app/asgi_extensions.py``).

Then it finds the route the router would serve (``route_table.py``): an explicit route it
serves itself, its errors answered by the app's exception handlers as FastAPI's
exception middleware would; anything else (the documentation, the web client, a 404) it
hands to FastAPI's own stack. ``tests/api/test_front.py`` serves requests both ways and
compares the answers.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute
from starlette.types import Message, Receive, Scope, Send

from app.api.platform.cors import CorsPolicy, parse_origins
from app.api.platform.explicit_route import ExplicitRoute
from app.api.platform.json_bodies import StrictJSONRequest
from app.api.platform.negotiation import Negotiation, not_acceptable_body
from app.api.platform.request_log import RequestLog, route_template
from app.api.platform.route_table import RouteTable
from app.api.problems import PROBLEM_MEDIA_TYPE, problem_body, problem_bytes, unexpected_error_body
from app.asgi_extensions import answered_by_server
from app.request_ids import HEADER as REQUEST_ID_HEADER
from app.request_ids import request_id_for
from app.settings import Settings, get_settings

#: The status recorded (metrics, access log) for a request whose client went away before
#: its answer could be delivered (nginx's convention; never sent on the wire).
CLIENT_CLOSED_REQUEST = 499

error_logger = logging.getLogger("app.errors")

Headers = list[tuple[bytes, bytes]]
Handler = Callable[[Request, Exception], Any]

_PROBLEM = PROBLEM_MEDIA_TYPE.encode()
# The answer of a HEAD: its GET's head, then this in place of the GET's body.
_HEAD_DONE: Message = {"type": "http.response.body", "body": b"", "more_body": False}
# An answer given while the rest of a large body may still come (chunked, or declared past
# the limit) ends its connection: a 413, or a 404 or a 406 answered before the body is
# read. The server would otherwise read that rest and drop it, for as long as the client
# sends it within the body timeout. (A declared length within the limit is read, then
# the connection is kept.)
_CLOSE: Headers = [(b"connection", b"close")]
# How a plain response sends itself: its head, then its body (no background task).
_SENT_AS_IS = Response.__call__


@dataclass(frozen=True)
class FrontConfig:
    """What the front bounds and allows, from the settings."""

    max_body_bytes: int
    retry_after_seconds: int
    cors: CorsPolicy

    @classmethod
    def from_settings(cls, settings: Settings) -> FrontConfig:
        return cls(
            max_body_bytes=settings.max_body_bytes,
            retry_after_seconds=settings.retry_after_seconds,
            cors=CorsPolicy(parse_origins(settings.cors_origins), settings.cors_max_age_seconds),
        )


class ServiceApp(FastAPI):
    """A FastAPI app whose HTTP requests go through its :class:`Front`."""

    def __init__(self, *, front: FrontConfig | None = None, **fastapi_options: Any) -> None:
        super().__init__(**fastapi_options)
        self.front = Front(self, front or FrontConfig.from_settings(get_settings()))
        # FastAPI's stack answers an exception that no handler takes with a plain-text 500
        # of its own, unless the app has a handler for Exception: this one leaves it to
        # the front, which answers it as a problem document.
        self.add_exception_handler(Exception, _leave_it_to_the_front)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self.front(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)

    async def serve_by_fastapi(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A request served by FastAPI's own stack (routes the front does not serve)."""
        await super().__call__(scope, receive, send)

    def deprecate(self, route: BaseRoute, headers: Iterable[tuple[str, str]]) -> None:
        """Every answer served by ``route`` carries ``headers``."""
        self.front.deprecated[id(route)] = [
            (name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers
        ]


async def _leave_it_to_the_front(request: Request, exc: Exception) -> Response:
    raise exc


class Front:
    """The platform's part of every HTTP request to ``app`` (see the module's docstring)."""

    def __init__(self, app: ServiceApp, config: FrontConfig) -> None:
        self.app = app
        self.max_body_bytes = config.max_body_bytes
        self.retry_after = str(config.retry_after_seconds).encode()
        self.cors = config.cors
        # With no origin listed, answers carry no CORS header at all.
        self.answers_cors = bool(config.cors.origins)
        # By the route's id: routes compare by their declarations and cannot be hashed.
        self.deprecated: dict[int, Headers] = {}
        self.log = RequestLog()
        self.negotiation = Negotiation()
        self._table: RouteTable | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        start = perf_counter()
        exchange = Exchange(self, scope, receive, send)
        try:
            length = exchange.content_length
            if length is not None and length > self.max_body_bytes:
                exchange.too_large = True
                await exchange.send_problem(self.too_large(scope), [])
            else:
                await self._answer(exchange)
            if exchange.disconnected:
                exchange.status = exchange.status_of_the_cut()
        except Exception as exc:
            if exchange.disconnected or isinstance(exc, ClientDisconnect):
                # Nobody to answer: not a failure of the service, nothing to re-raise.
                exchange.status = exchange.status_of_the_cut()
            elif exchange.started:
                # Too late for a problem document: the server will cut the response.
                error_logger.error(
                    "error after the response started on %s %s (request %s)",
                    scope["method"],
                    scope["path"],
                    exchange.request_id,
                    exc_info=exc,
                )
                exchange.status = 500
                raise
            elif exchange.too_large:
                await exchange.send_problem(self.too_large(scope), [])
            else:
                await self._answer_unexpected(exchange, exc)
        finally:
            duration = perf_counter() - start
            if exchange.status == CLIENT_CLOSED_REQUEST:
                error_logger.info(
                    "client disconnected during %s %s (request %s)",
                    scope["method"],
                    scope["path"],
                    exchange.request_id,
                )
            self.log.record(
                scope["method"],
                route_template(exchange.served),
                scope["path"],
                exchange.status,
                duration,
                exchange.request_id,
            )

    def too_large(self, scope: Scope) -> dict[str, Any]:
        return problem_body(
            "payload-too-large",
            detail=f"The request body is larger than {self.max_body_bytes} bytes.",
            instance=scope["path"],
        )

    async def _answer(self, exchange: Exchange) -> None:
        scope = exchange.scope
        method = scope["method"]
        if method == "OPTIONS" and exchange.origin is not None:
            requested = _header(scope, b"access-control-request-method")
            if requested is not None:
                await self._preflight(exchange, exchange.origin, requested)
                return
        if method == "HEAD":
            exchange.serve_as_get()
        served = exchange.served
        app = self.app
        if app.root_path:  # FastAPI sets it in the scope itself: its router matches by it
            await app.serve_by_fastapi(served, exchange.receive, exchange.send)
            return
        self._table = RouteTable.current(self._table, app.router.routes)
        found = self._table.find(served)
        if found is None:
            await app.serve_by_fastapi(served, exchange.receive, exchange.send)
            return
        route = found.route
        if found.full:
            exchange.route = route  # its deprecation headers, if it has any
        if found.full and exchange.accept is not None:
            refused = self.negotiation.refused(exchange.accept, route, served["path"])
            if refused is not None:
                await exchange.answer_bytes(
                    406, _PROBLEM, not_acceptable_body(refused, served["path"])
                )
                return
        if not self.serves(route):
            await app.serve_by_fastapi(served, exchange.receive, exchange.send)
            return
        assert isinstance(route, ExplicitRoute)
        served["app"] = app
        served["route"] = route
        served["endpoint"] = route.endpoint
        served["path_params"] = found.path_params
        request = StrictJSONRequest(served, exchange.receive, exchange.send)
        try:
            response = await route.respond(request)
        except Exception as exc:
            handler = self._handler_of(exc)
            if handler is None:
                raise
            if inspect.iscoroutinefunction(handler):
                response = await handler(request, exc)
            else:
                response = await run_in_threadpool(handler, request, exc)
        await exchange.answer(response)

    def serves(self, route: BaseRoute) -> bool:
        """Whether the front serves ``route`` itself, rather than FastAPI's stack."""
        return isinstance(route, ExplicitRoute)

    def _handler_of(self, exc: Exception) -> Handler | None:
        """The app's handler of ``exc``, as FastAPI's exception middleware finds it: by
        status for an HTTP exception, else by class; an exception it leaves to the
        server's last resort (a handler of ``Exception`` or 500) has none here."""
        handlers = self.app.exception_handlers
        if isinstance(exc, HTTPException) and exc.status_code != 500:
            by_status = handlers.get(exc.status_code)
            if by_status is not None:
                return by_status
        for cls in type(exc).__mro__:
            if cls is not Exception and cls in handlers:
                return handlers[cls]
        return None

    async def _preflight(self, exchange: Exchange, origin: str, method: str) -> None:
        scope = exchange.scope
        status, headers, body = self.cors.preflight(
            origin, method, _header(scope, b"access-control-request-headers"), scope["path"]
        )
        await exchange.send({"type": "http.response.start", "status": status, "headers": headers})
        await exchange.send({"type": "http.response.body", "body": body})

    async def _answer_unexpected(self, exchange: Exchange, exc: Exception) -> None:
        scope = exchange.scope
        body, unavailable = unexpected_error_body(exc, scope["path"])
        if unavailable:
            error_logger.warning(
                "database unavailable on %s %s (request %s): %s",
                scope["method"],
                scope["path"],
                exchange.request_id,
                type(exc).__name__,
            )
            await exchange.send_problem(body, [(b"retry-after", self.retry_after)])
        else:
            error_logger.error(
                "unhandled error on %s %s (request %s)",
                scope["method"],
                scope["path"],
                exchange.request_id,
                exc_info=exc,
            )
            await exchange.send_problem(body, [])


class Exchange:
    """One request and its answer as the front sees them: what it read of the request,
    what has been answered, and the ``receive`` and ``send`` it hands to whoever serves
    the request."""

    __slots__ = (
        "_receive",
        "_send",
        "accept",
        "completed",
        "content_length",
        "disconnected",
        "front",
        "head",
        "head_done",
        "large_body_unread",
        "origin",
        "received",
        "replaced",
        "request_id",
        "request_id_header",
        "route",
        "scope",
        "served",
        "started",
        "status",
        "too_large",
    )

    def __init__(self, front: Front, scope: Scope, receive: Receive, send: Send) -> None:
        self.front = front
        self.scope = scope  # as the client sent it
        self.served = scope  # as it is served: a HEAD's is its GET's (serve_as_get)
        self._receive = receive
        self._send = send
        client_id: bytes | None = None
        self.content_length: int | None = None
        accept: bytes | None = None
        self.origin: str | None = None
        chunked = False
        for name, value in scope["headers"]:
            if name == REQUEST_ID_HEADER:
                client_id = value
            elif name == b"content-length":
                try:
                    self.content_length = int(value)
                except ValueError:
                    self.content_length = None
            elif name == b"accept":
                accept = value if accept is None else accept + b", " + value
            elif name == b"origin" and self.origin is None:
                self.origin = value.decode("latin-1")
            elif name == b"transfer-encoding":
                chunked = True
        self.accept = accept if accept is not None and accept.strip() else None
        # A large body comes, and has not been read to its end (see _CLOSE).
        self.large_body_unread = chunked or (
            self.content_length is not None and self.content_length > front.max_body_bytes
        )
        self.request_id = request_id_for(client_id)
        self.request_id_header = (REQUEST_ID_HEADER, self.request_id.encode("ascii"))
        self.route: BaseRoute | None = None  # the route that serves it (a full match)
        self.status = 500
        self.started = False
        self.completed = False  # the last byte of the answer was handed to the server
        self.disconnected = False
        self.too_large = False
        self.replaced = False  # the app's own answer was swapped for the 413
        self.head = False
        self.head_done = False
        self.received = 0

    def status_of_the_cut(self) -> int:
        """The status to record for a request whose app was told the client left: the
        one the server answered itself (a body that broke or did not come in time), with
        the request id it answered, or a client's 499."""
        answer = answered_by_server(self.scope)
        if answer is None:
            return CLIENT_CLOSED_REQUEST
        self.request_id = answer.request_id
        return answer.status

    def serve_as_get(self) -> None:
        """Serve this HEAD as its GET, and send none of the GET's body."""
        self.served = {**self.scope, "method": "GET"}
        self.head = True

    async def receive(self) -> Message:
        message = await self._receive()
        kind = message["type"]
        if kind == "http.disconnect":
            # A response that listens for the disconnect (a file, a stream) also hears it
            # after its last byte: only a client gone before that is the client's 499.
            if not self.completed:
                self.disconnected = True
        elif kind == "http.request":
            if not message.get("more_body", False):
                self.large_body_unread = False
            if self.content_length is not None:
                return message  # a declared length within the limit: the server holds it
            self.received += len(message.get("body", b""))
            limit = self.front.max_body_bytes
            if self.received > limit:
                self.too_large = True
                raise HTTPException(413, f"The request body is larger than {limit} bytes.")
        return message

    async def send(self, message: Message) -> None:
        if self.replaced:
            return
        kind = message["type"]
        if kind == "http.response.start":
            if self.too_large and message["status"] != 413:
                # Whatever was made of the truncated body, the answer is a 413.
                self.replaced = True
                await self.send_problem(self.front.too_large(self.scope), [])
                return
            self.status = message["status"]
            self.started = True
            headers = [h for h in message.get("headers", ()) if h[0] != REQUEST_ID_HEADER]
            headers.append(self.request_id_header)
            message = {**message, "headers": self._outer(headers)}
        elif kind == "http.response.body" and self.head:
            # The first part of the body ends a HEAD's answer (the server, which knows
            # it is a HEAD, expects none of it); what comes after goes nowhere.
            if self.head_done:
                return
            self.head_done = True
            message = _HEAD_DONE
        await self._send(message)
        if kind == "http.response.body" and not message.get("more_body"):
            self.completed = True

    async def answer(self, response: Response) -> None:
        """Send ``response`` (a plain one as it would send itself, without its call)."""
        if type(response).__call__ is _SENT_AS_IS and response.background is None:
            await self.send(
                {
                    "type": "http.response.start",
                    "status": response.status_code,
                    "headers": response.raw_headers,
                }
            )
            await self.send({"type": "http.response.body", "body": response.body})
        else:
            await response(self.served, self.receive, self.send)

    async def answer_bytes(self, status: int, media_type: bytes, body: bytes) -> None:
        headers = [(b"content-type", media_type), (b"content-length", b"%d" % len(body))]
        await self.send({"type": "http.response.start", "status": status, "headers": headers})
        await self.send({"type": "http.response.body", "body": body})

    async def send_problem(self, body: dict[str, Any], extra_headers: Headers) -> None:
        """The front's own problem answer, sent past ``send`` (whatever was answered)."""
        payload = problem_bytes(body)
        self.status = body["status"]
        self.started = True
        headers = [
            (b"content-type", _PROBLEM),
            (b"content-length", str(len(payload)).encode()),
            self.request_id_header,
            *extra_headers,
        ]
        await self._send(
            {"type": "http.response.start", "status": self.status, "headers": self._outer(headers)}
        )
        await self._send({"type": "http.response.body", "body": payload})

    def _outer(self, headers: Headers) -> Headers:
        """What every answer carries besides its own headers: CORS, deprecation, and the
        close of a connection whose large body is still unread (``_CLOSE``)."""
        front = self.front
        if self.large_body_unread:
            headers.extend(_CLOSE)
        if front.answers_cors:
            front.cors.answer_headers(headers, self.origin)
        if front.deprecated and id(self.route) in front.deprecated:
            headers.extend(front.deprecated[id(self.route)])
        return headers


def _header(scope: Scope, name: bytes) -> str | None:
    """The first value of the header ``name``, or None."""
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None
