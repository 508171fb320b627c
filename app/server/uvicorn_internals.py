"""uvicorn beyond its public API (``uvicorn.Config``, ``uvicorn.Server``): the one module
that reaches into it, and why it must.

uvicorn's protocol trusts the peer: httptools accumulates a header that never ends (and
any number of them), one read can queue thousands of pipelined requests, a connection
that sends nothing is never timed out. No uvicorn option bounds these per connection,
and an ASGI middleware sees a request only once its head is parsed. So
:class:`EdgeHttpToolsProtocol` keeps uvicorn's request cycle and re-implements its
``data_received`` with the bounds of :class:`~app.server.edge_limits.EdgeLimits` (docs/api.md,
"Limits at the edge"), on members of uvicorn's protocol that are not public (``parser``,
``cycle``, ``pipeline``, ``flow``, ``_start_asgi_task``...). It also gives
each request's cycle a transport of its own (:class:`OneWriteAnswer`), so that an answer
leaves in one write instead of uvicorn's two (no option of uvicorn's does), and it holds
an idle connection to its keep-alive timeout with one timer per connection, where uvicorn
arms a timer after every answer and cancels it at the next request (it re-implements
``on_response_complete`` for that). It paces each client address's requests where
uvicorn starts their apps (``_start_asgi_task``): a request past its address's rate
starts later, on a timer. The workers' supervisor and the exit status of a
failed start serve ``app/server/serve.py``.
``tests/packaging/test_internals_pinned.py`` fails when another module imports uvicorn's
internals, or when a release changes what is used here; pyproject.toml holds uvicorn and
httptools to the minor series tested.
"""

from __future__ import annotations

import asyncio
from asyncio import TimerHandle
from collections.abc import Callable, Iterable
from math import ceil
from time import monotonic
from typing import Any

import httptools
from uvicorn.config import STARTUP_FAILURE, Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
from uvicorn.server import ServerState
from uvicorn.supervisors import Multiprocess

from app.asgi_extensions import mark_answered_by_server
from app.request_ids import new_request_id, request_id_for, sent_request_id
from app.server import answers
from app.server.addresses import Pace, counted_as, counts_of, forwarded_client
from app.server.edge_limits import EdgeLimits
from app.server.request_heads import Deadline, RequestHead

__all__ = ["STARTUP_FAILURE", "EdgeHttpToolsProtocol", "Multiprocess"]


# An answer's head and the first bytes of its body leave in one write when the body is no
# larger than this; a larger body is not copied to join them.
JOINED_BODY_BYTES = 64 * 1024
# How uvicorn writes a declared length among an answer's head (names lowercased).
_DECLARED_LENGTH = b"\r\ncontent-length: "
# A timer of the standard library's loop may run up to its clock's resolution early: a
# keep-alive deadline this near is taken as reached rather than armed again.
_TIMER_SLACK = 0.01


class OneWriteAnswer:
    """The transport a request's cycle writes its answer to.

    uvicorn writes an answer's head as soon as the app starts it, then its body: two
    writes, so two send(2)s and two segments for every answer, each waking the client.
    Here the head of an answer that declares its length waits for the body's first bytes
    and leaves with them, in one write (as aiohttp does for small answers). A head that
    declares no length (a stream, whose head must go at once) or an interim 100 Continue
    leaves at once; so does every head of a ``HEAD``, which has no body to wait for. A held
    head leaves before a close (an app that failed after starting its answer)."""

    __slots__ = ("_close", "_fresh", "_head", "_transport")

    def __init__(
        self,
        transport: asyncio.Transport,
        *,
        hold: bool,
        close: Callable[[], None] | None = None,
    ) -> None:
        self._transport = transport
        self._fresh = hold  # until the answer's head is written
        self._head: bytes | None = None
        # How the connection is closed once an answer that ends it is written.
        self._close = close or transport.close

    def write(self, data: bytes | bytearray | memoryview) -> None:
        head = self._head
        if head is not None:
            self._head = None
            if len(data) <= JOINED_BODY_BYTES:
                self._transport.write(b"".join((head, data)))  # any bytes-like body
                return
            self._transport.write(head)
        elif self._fresh and data[:9] == b"HTTP/1.1 " and data[9:10] != b"1":
            self._fresh = False
            if _DECLARED_LENGTH in data:
                self._head = bytes(data)
                return
        self._transport.write(data)

    def close(self) -> None:
        if self._head is not None:
            self.write(b"")
        self._close()

    def is_closing(self) -> bool:
        return self._transport.is_closing()


def answer_in_one_write(
    protocol: HttpToolsProtocol, close: Callable[[], None] | None = None
) -> None:
    """Give the cycle ``protocol`` has just made (in ``on_headers_complete``, before its
    task runs: nothing is written yet) a :class:`OneWriteAnswer` to write to, which
    closes the connection with ``close`` (by default, its transport's)."""
    hold = protocol.scope["method"] != "HEAD"
    protocol.cycle.transport = OneWriteAnswer(  # type: ignore[assignment]
        protocol.transport, hold=hold, close=close
    )


def _declares_a_body(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    """Whether a request with ``headers`` has a body to come (chunked, or a length)."""
    for name, value in headers:
        if name == b"transfer-encoding" or (name == b"content-length" and value.strip(b" 0")):
            return True
    return False


class _Refused(Exception):
    """Raised to stop the parser; ``EdgeHttpToolsProtocol._refusal`` says why."""


class EdgeHttpToolsProtocol(HttpToolsProtocol):
    # Its own attributes in slots: added to the instance dict of uvicorn's protocol, they
    # would grow that dict of every connection (bench/RESULTS.md, "An open stream's memory").
    __slots__ = (
        "_address",
        "_body_timer",
        "_dead",
        "_head",
        "_head_timer",
        "_idle_since",
        "_keepalive_seconds",
        "_keepalive_timer",
        "_linger_left",
        "_linger_timer",
        "_pace",
        "_proxied",
        "_refusal",
        "_send_timer",
        "_shed",
        "_start_timer",
        "limits",
    )

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        limits = getattr(config, "edge_limits", None)
        self.limits: EdgeLimits = (
            limits if isinstance(limits, EdgeLimits) else EdgeLimits.defaults()
        )
        # How long a connection may stay idle (uvicorn's Config holds whole seconds, the
        # setting is a float), since when it is (None while a request is under way), and
        # the one timer that checks it (see _arm_keepalive).
        self._keepalive_seconds = self.limits.keepalive_timeout
        self._idle_since: float | None = None
        self._keepalive_timer: TimerHandle | None = None
        # Set when this connection is past a limit: the limit's reason, and the detail of
        # the 503 each of its requests is answered.
        self._shed: tuple[str, str] | None = None
        self._address: str | None = None  # what it counts against, once counted
        self._pace: Pace | None = None  # its address's request rate, if it has one
        # From a trusted proxy, whose requests are paced by the client each names.
        self._proxied = False
        # The head (request line and headers) of the next request being read.
        self._head = RequestHead(self.limits.max_header_bytes, self.limits.max_headers)
        limits, loop = self.limits, self.loop
        self._head_timer = Deadline(loop, limits.header_timeout, self._head_timed_out)
        self._body_timer = Deadline(loop, limits.body_timeout, self._body_timed_out)
        self._send_timer = Deadline(loop, limits.send_timeout, self._send_timed_out)
        self._linger_timer: TimerHandle | None = None
        # A request waiting for its address's turn (_start_asgi_task).
        self._start_timer: TimerHandle | None = None
        # Once set, the parser is abandoned: input is dropped (at most linger_bytes).
        self._refusal: str | None = None
        self._dead = False
        self._linger_left = 0

    # Connection

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        limits, connections = self.limits, len(self.connections)
        if connections > 2 * limits.max_connections:
            self._drop_at_once(transport, answers.CONNECTION_FLOOD)
            return
        self._address = counted_as(self.client[0] if self.client else None, limits.trusted_proxies)
        counts = counts_of(self.server_state)
        from_address = counts.opened(self._address) if self._address else 0
        per_address = limits.max_connections_per_address
        if connections > limits.max_connections:
            answers.refused(answers.CONNECTION_LIMIT)
            self._shed = (
                answers.CONNECTION_LIMIT,
                f"The server is at its limit of {limits.max_connections} connections.",
            )
        elif from_address > 2 * per_address:
            self._drop_at_once(transport, answers.ADDRESS_FLOOD)
            return
        elif from_address > per_address:
            answers.refused(answers.ADDRESS_LIMIT)
            self._shed = (
                answers.ADDRESS_LIMIT,
                f"The server is at its limit of {per_address} connections from one address.",
            )
        elif self._address is not None and limits.request_interval:
            self._pace = counts.pace(
                self._address, limits.request_interval, limits.request_tolerance
            )
        elif self._address is None and limits.request_interval:
            # A peer with an address that counts against none is a trusted proxy.
            self._proxied = self.client is not None
        # uvicorn arms its keep-alive timer only after a first answer: a connection that
        # never sends anything would be held forever.
        self._arm_keepalive()

    def _drop_at_once(self, transport: asyncio.Transport, reason: str) -> None:
        """Past twice a limit: no answer, so that a flood cannot exhaust file descriptors."""
        answers.refused(reason)
        self._dead = True
        # It stops counting now, not when connection_lost runs a loop turn later: the
        # standard library's loop accepts a whole backlog in one turn, and a flood met at
        # once would otherwise count as the server's connections and shed everyone else.
        self.connections.discard(self)
        self._stop_counting()
        transport.abort()

    def _stop_counting(self) -> None:
        """Off its address's count, once (a connection dropped at once is lost later)."""
        if self._address is not None:
            counts_of(self.server_state).closed(self._address)
            self._address = None

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_counting()
        for timer in (self._head_timer, self._body_timer, self._send_timer):
            timer.cancel()
        if self._keepalive_timer is not None:
            self._keepalive_timer.cancel()
            self._keepalive_timer = None
        for handle in (self._linger_timer, self._start_timer):
            if handle is not None:
                handle.cancel()
        self._linger_timer = self._start_timer = None
        super().connection_lost(exc)

    def _arm_keepalive(self) -> None:
        """The connection is idle from now on: it is closed once idle for the keep-alive
        timeout. Its timer is armed only when none is; when it falls due after the
        connection was busy in between, it re-arms itself for what is left. So a request
        costs no timer of its own (uvicorn arms one after each answer and cancels it at
        the next request)."""
        self._idle_since = now = self.loop.time()
        if self._keepalive_timer is None:
            self._keepalive_timer = self.loop.call_at(
                now + self._keepalive_seconds, self._keepalive_due
            )

    def _keepalive_due(self) -> None:
        self._keepalive_timer = None
        if self._idle_since is None:
            return  # a request is under way: its answer arms the timer again
        due = self._idle_since + self._keepalive_seconds
        if due - self.loop.time() > _TIMER_SLACK:
            self._keepalive_timer = self.loop.call_at(due, self._keepalive_due)
        else:
            self.timeout_keep_alive_handler()

    # Input

    def data_received(self, data: bytes) -> None:
        if self._dead:
            self._drop(data)
            return
        self._idle_since = None
        try:
            if not self._head.feed(data, self.parser.feed_data):
                self._refusal = answers.HEADERS_TOO_LARGE
                raise _Refused
            if self._dead:
                pass
            elif self._head.in_head:
                # A head begun and not finished (even bytes the parser skips) is timed
                # from its first read; a head that came whole in one read needs no timer.
                if self._head.begun or self._head.wire_bytes:
                    self._head_timer.arm()
                elif not self._busy():
                    # The rest of a body whose request was answered before it had all come
                    # (a 406, a 401...): the connection is idle again, and nothing else
                    # would time it.
                    self._arm_keepalive()
            else:
                self._body_timer.arm()  # a head is complete and its body is not
        except (_Refused, httptools.HttpParserCallbackError) as exc:
            if self._refusal is None:  # a bug in a callback: uvicorn answers those 400
                self._bad_request()
            elif self._refusal == answers.PIPELINE_LIMIT:
                self._finish_then_close()
            else:
                self._refuse_headers()
            if isinstance(exc, httptools.HttpParserCallbackError):
                exc.__context__ = None
        except httptools.HttpParserError:
            self._bad_request()
        except httptools.HttpParserUpgrade:
            # A request that asks to upgrade (WebSocket, h2c) was handed to the app as an
            # ordinary request (EdgeConfig serves no WebSocket), which may ignore the ask
            # (RFC 9110, 7.8). The parser reads nothing after it, so it is answered and
            # the connection closed.
            self._finish_then_close()

    def _bad_request(self) -> None:
        """Bytes the parser cannot read as a request: a 400 problem, as the edge's other
        refusals are (uvicorn's is plain text, and written even while another answer
        is), then the connection closes."""
        self.logger.warning("Invalid HTTP request received.")
        answers.refused(answers.BAD_REQUEST)
        cycle = self.cycle
        if cycle is not None and cycle.more_body and not cycle.response_complete:
            self._cut_short(cycle)
        else:
            self._close_with(answers.BAD_REQUEST, 400, self._bad_request_answer)

    def _cut_short(self, cycle: RequestResponseCycle) -> None:
        """The parser stopped inside the body of ``cycle``'s request, so the rest of that
        body never comes: it is ended (``_end_request``, with a 400), or answered the
        same 400 when its turn comes behind another answer. Its app, left waiting for the
        body, would otherwise hold the connection until the client closed it."""
        self._body_timer.cancel()
        for position, (queued, _) in enumerate(self.pipeline):
            if queued is cycle:
                # Behind an answer under way: its turn comes once that answer is written.
                # (uvicorn types an app with ASGI types of its own; Starlette's say the same)
                self.pipeline[position] = (cycle, answers.bad_request_app())  # type: ignore[assignment]
                self._finish_then_close()
                return
        self._end_request(cycle, 400, self._bad_request_answer)

    def close_after_answer(self) -> None:
        """uvicorn closes the connection after an answer that ends it: at once, unless the
        client may still be sending its request's body (one answered 413 from its declared
        length, say). A close with unread bytes resets the connection, which can destroy
        the answer before the client reads it, so the rest of the body is dropped for a
        moment first, at most ``linger_bytes``, as after the edge's own refusals; reading
        it all, a worker's loop spent the body timeout reading what the client sent."""
        cycle = self.cycle
        if cycle is None or not cycle.more_body or self._dead:
            self.transport.close()
            return
        self._dead = True
        self._body_timer.cancel()
        self._linger()

    def _drop(self, data: bytes) -> None:
        if self._linger_timer is None:
            # Waiting for queued answers before closing: read no more.
            self.flow.pause_reading()
            return
        self._linger_left -= len(data)
        if self._linger_left < 0:
            self.transport.close()

    # Parser callbacks

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head.begin()

    def on_url(self, url: bytes) -> None:
        if not self._head.url(url):
            self._refuse_head()
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        if not self._head.field(name, value):
            self._refuse_head()
        super().on_header(name, value)

    def _refuse_head(self) -> None:
        self._refusal = answers.HEADERS_TOO_LARGE
        raise _Refused

    def on_headers_complete(self) -> None:
        self._head_timer.cancel()
        self._head.complete()
        if self._busy() and len(self.pipeline) >= self.limits.max_pipelined_requests:
            self._refusal = answers.PIPELINE_LIMIT
            raise _Refused
        if self._shed is not None:
            reason, detail = self._shed
            self.app = answers.service_unavailable(reason, detail, self.limits.retry_after_seconds)
        super().on_headers_complete()
        answer_in_one_write(self, self.close_after_answer)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._body_timer.cancel()
        self._head.done()

    def _start_asgi_task(self, cycle: RequestResponseCycle, app: Any) -> None:
        """Start a request's app when its address's request rate allows: a request past
        it waits its turn on a timer, its body read meanwhile (and no further request of
        the connection, which waits behind it), rather than being refused, so that a
        client flooding requests spends a timer, not the worker's loop. A request that a
        trusted proxy forwarded is paced by its client, and answered 429 past the rate:
        waiting, it would hold the proxy's connection, which carries other clients' too."""
        pace = self._pace
        if pace is not None:
            # The monotonic clock, not the loop's time(): one call less per request, and
            # the due times are only compared with each other (the timer takes a delay).
            delay = pace.start_delay(monotonic())
            if delay:
                answers.delayed()
                self._start_timer = self.loop.call_later(delay, self._start_in_turn, cycle, app)
                return
        elif self._proxied:
            wait = self._forwarded_client_wait(cycle)
            if wait:
                answers.refused(answers.REQUEST_RATE)
                detail, retry_after = self.limits.request_rate_detail, max(1, ceil(wait))
                body = _declares_a_body(cycle.scope["headers"])
                app = answers.too_many_requests(detail, retry_after, close=body)
        HttpToolsProtocol._start_asgi_task(self, cycle, app)

    def _forwarded_client_wait(self, cycle: RequestResponseCycle) -> float:
        """0 when the client a trusted proxy forwarded ``cycle``'s request for may have it
        started now (it is counted), else the seconds until it may."""
        forwarded = tuple(
            value.decode("latin-1")
            for name, value in cycle.scope["headers"]
            if name == b"x-forwarded-for"
        )
        limits = self.limits
        assert self.client is not None  # a trusted proxy has an address
        client = forwarded_client(self.client[0], forwarded, limits.trusted_proxies)
        if client is None:
            return 0.0
        counts = counts_of(self.server_state)
        return counts.admit(client, monotonic(), limits.request_interval, limits.request_tolerance)

    def _start_in_turn(self, cycle: RequestResponseCycle, app: Any) -> None:
        self._start_timer = None
        # Not if the request was ended while it waited (its client gone, its body late).
        if not cycle.disconnected and not self.transport.is_closing():
            HttpToolsProtocol._start_asgi_task(self, cycle, app)

    # Refusals

    def _busy(self) -> bool:
        return self.cycle is not None and not self.cycle.response_complete

    def _finish_then_close(self) -> None:
        """Answer what is already queued, read nothing more, close after the last answer."""
        if self._refusal is not None:
            answers.refused(self._refusal)
        self._dead = True
        self.flow.pause_reading()
        self._head_timer.cancel()
        if self._busy():
            self.cycle.keep_alive = False
        else:
            self.transport.close()

    def _refuse_headers(self) -> None:
        assert self._refusal is not None
        self._close_with(self._refusal, 431, self._headers_too_large_answer)

    def _headers_too_large_answer(self, request_id: str) -> bytes:
        limits = self.limits
        return answers.headers_too_large(
            limits.max_header_bytes,
            limits.max_headers,
            self.server_state.default_headers,
            request_id,
        )

    def _close_with(self, reason: str, status: int, answer: Callable[[str], bytes]) -> None:
        """Answer ``status`` (``answer``, given a new request id, is a complete answer that
        closes the connection), log it for ``reason``, and linger, counting the refusal if
        there is one; but while another answer is being written on this connection none
        can be slipped in: that one ends, then the connection."""
        if self._busy():
            self._finish_then_close()
            return
        if self._refusal is not None:
            answers.refused(self._refusal)
        self._dead = True
        self._head_timer.cancel()
        # No request id could be read from a head the edge refuses: a new one.
        request_id = new_request_id()
        self.transport.write(answer(request_id))
        answers.logged(reason, status, request_id)
        self._linger()

    def _linger(self) -> None:
        """Close the sending side, and drop what the client still sends for a moment, so
        that the close does not reset the answer away before the client reads it."""
        self._linger_left = self.limits.linger_bytes
        self._linger_timer = self.loop.call_later(self.limits.linger_seconds, self.transport.close)
        try:
            if self.transport.can_write_eof():
                self.transport.write_eof()
        except (OSError, RuntimeError):
            self.transport.close()

    def _head_timed_out(self) -> None:
        if not self._head.in_head or self.transport.is_closing():
            return
        self._refusal = answers.HEADER_TIMEOUT
        self._finish_then_close()

    def _body_timed_out(self) -> None:
        cycle = self.cycle
        if self._head.in_head or cycle is None or self.transport.is_closing():
            return
        waiting = cycle.waiting_for_100_continue or any(c is cycle for c, _ in self.pipeline)
        if waiting:
            # The server has not asked for this body yet (no 100 Continue sent, or the
            # request waits behind another one, with reading paused): not the client's delay.
            self._body_timer.arm()
            return
        answers.refused(answers.BODY_TIMEOUT)
        self._end_request(cycle, 408, self._request_timeout_answer)

    def _bad_request_answer(self, request_id: str) -> bytes:
        return answers.bad_request(self.server_state.default_headers, request_id)

    def _request_timeout_answer(self, request_id: str) -> bytes:
        return answers.request_timeout(
            self.limits.body_timeout, self.server_state.default_headers, request_id
        )

    def _end_request(
        self, cycle: RequestResponseCycle, status: int, answer: Callable[[str], bytes]
    ) -> None:
        """End the running request of ``cycle``, whose body will not all come, and its
        connection. An app that answered without the body: that answer ends, then the
        connection. Otherwise the request is answered ``status`` (``answer``, given the
        request's id, closes the connection) and the connection lingers; the app reads a
        disconnect (so that it lets go of whatever it holds), and what it answers then is
        dropped. Its scope says what it was answered (``app/asgi_extensions.py``), which
        the app records in place of a client's 499, under the same request id."""
        if cycle.response_started:
            self._finish_then_close()
            return
        self._dead = True
        request_id = request_id_for(sent_request_id(cycle.scope["headers"]))
        mark_answered_by_server(cycle.scope, status, request_id)
        cycle.disconnected = True
        # Answered here: no 100 Continue is due (uvicorn writes one when the app first
        # reads, even once the client is gone, and the linger has ended the sending side).
        cycle.waiting_for_100_continue = False
        cycle.message_event.set()
        self.transport.write(answer(request_id))
        self._linger()

    # Output

    def pause_writing(self) -> None:
        super().pause_writing()
        self._send_timer.arm()

    def resume_writing(self) -> None:
        super().resume_writing()
        self._send_timer.cancel()

    def _send_timed_out(self) -> None:
        if not self.transport.is_closing():
            answers.refused(answers.SEND_TIMEOUT)
            self.transport.abort()

    def on_response_complete(self) -> None:
        # uvicorn's, but for the keep-alive timer (_arm_keepalive).
        self.server_state.total_requests += 1
        if not self.transport.is_closing():
            self.flow.resume_reading()
            if self.pipeline:
                cycle, app = self.pipeline.pop()
                self._start_asgi_task(cycle, app)
            else:
                self._arm_keepalive()
        if self._dead:
            self.flow.pause_reading()
