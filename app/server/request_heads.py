"""The head of a request (its request line and headers), counted as it arrives, and the
deadlines a connection's phases are held to.

The bytes are counted before the parser sees them, so that a header that never ends costs
at most ``max_bytes`` of memory; the fields the parser reports are counted too (at most
``max_fields``, and their bytes at most ``max_bytes``), since a parser may hold a field
it was fed in several pieces.

One read can hold several requests (pipelined, or a body and the next request's head),
and the parser does not say where in the bytes it was fed one request ended and the next
began. So a read is fed in pieces of at most ``PIECE_BYTES``, and a head that began
inside a piece is counted from that piece's start: never less than its bytes, and at most
``PIECE_BYTES - 1`` more.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

#: The most bytes fed to the parser at once. A request in one read no larger than this is
#: parsed in one call; a head pipelined behind another in the same piece may be counted up
#: to this many bytes early (so refused only past ``max_bytes - PIECE_BYTES + 1`` bytes).
PIECE_BYTES = 2048


class RequestHead:
    """The head being read on one connection: counted from the first byte of a request
    until its headers are complete, then again for the next request."""

    __slots__ = (
        "begun",
        "boundaries",
        "field_bytes",
        "fields",
        "in_head",
        "max_bytes",
        "max_fields",
        "wire_bytes",
    )

    def __init__(self, max_bytes: int, max_fields: int) -> None:
        self.max_bytes = max_bytes
        self.max_fields = max_fields
        self.in_head = True
        self.begun = False  # a byte of this head has come (the parser began a request)
        self.boundaries = 0  # heads begun plus requests done, to tell where a piece fell
        self.wire_bytes = 0  # bytes fed to the parser while in the head (at most; see feed)
        self.field_bytes = 0  # bytes of the fields the parser reported
        self.fields = 0

    def feed(self, data: bytes, parse: Callable[[bytes | memoryview], None]) -> bool:
        """Give ``data`` to ``parse`` in pieces, no more of it than the head may still take
        while the parser is in a head; False when the head goes past its bound (the rest is
        not parsed)."""
        view: memoryview | None = None  # pieces of a larger read, without copying it
        start, end = 0, len(data)
        while start < end:
            if self.in_head:
                room = self.max_bytes - self.wire_bytes
                if room <= 0:
                    return False
                size = room if room < PIECE_BYTES else PIECE_BYTES
            else:
                size = PIECE_BYTES  # a body, after which the next head may begin
            piece: bytes | memoryview
            if start == 0 and end <= size:
                piece = data
            else:
                if view is None:
                    view = memoryview(data)
                piece = view[start : start + size]
            start += len(piece)
            boundaries = self.boundaries
            parse(piece)
            if not self.in_head:
                continue  # in a body: bounded by the server's flow control and the app
            if boundaries == self.boundaries:
                self.wire_bytes += len(piece)  # the same head (or bytes before one) goes on
            elif self.begun:
                self.wire_bytes = len(piece)  # this head began inside the piece
            # else a request ended inside the piece and the next has not begun (done()
            # reset the count; what the parser skipped after it is not held).
        return True

    def url(self, url: bytes) -> bool:
        """Count the request's target; False past the bound."""
        self.field_bytes += len(url)
        return self.field_bytes <= self.max_bytes

    def field(self, name: bytes, value: bytes) -> bool:
        """Count one header field (with its ``: `` and line end); False past the bound."""
        self.fields += 1
        self.field_bytes += len(name) + len(value) + 4
        return self.fields <= self.max_fields and self.field_bytes <= self.max_bytes

    def begin(self) -> None:
        self.in_head = self.begun = True
        self.boundaries += 1

    def complete(self) -> None:
        """The headers are complete: what comes next is the body."""
        self.in_head = False

    def done(self) -> None:
        """The request is complete: the next bytes begin another head."""
        self.in_head, self.begun = True, False
        self.wire_bytes = self.field_bytes = self.fields = 0
        self.boundaries += 1


class Deadline:
    """A callback due some seconds after it is armed, unless cancelled before."""

    __slots__ = ("_callback", "_handle", "_loop", "_seconds")

    def __init__(
        self, loop: asyncio.AbstractEventLoop, seconds: float, callback: Callable[[], None]
    ) -> None:
        self._loop = loop
        self._seconds = seconds
        self._callback = callback
        self._handle: asyncio.TimerHandle | None = None

    def arm(self) -> None:
        """Start counting, unless it already is."""
        if self._handle is None:
            self._handle = self._loop.call_later(self._seconds, self._due)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _due(self) -> None:
        self._handle = None
        self._callback()
