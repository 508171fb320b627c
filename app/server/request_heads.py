"""The head of a request (its request line and headers), counted as it arrives, and the
deadlines a connection's phases are held to.

The bytes are counted before the parser sees them, so that a header that never ends costs
at most ``max_bytes`` of memory; the fields the parser reports are counted too (at most
``max_fields``, and their bytes at most ``max_bytes``), since a parser may hold a field
it was fed in several pieces.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class RequestHead:
    """The head being read on one connection: counted from the first byte of a request
    until its headers are complete, then again for the next request."""

    __slots__ = (
        "begun",
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
        self.wire_bytes = 0  # bytes fed to the parser while in the head
        self.field_bytes = 0  # bytes of the fields the parser reported
        self.fields = 0

    def feed(self, data: bytes, parse: Callable[[bytes], None]) -> bool:
        """Give ``data`` to ``parse``, no more of it than the head may still take while
        the parser is in a head; False when the head goes past its bound (the rest is not
        parsed)."""
        while data:
            if not self.in_head:
                parse(data)
                return True
            room = self.max_bytes - self.wire_bytes
            if len(data) > room:
                chunk, data = data[:room], data[room:]
            else:
                chunk, data = data, b""
            self.wire_bytes += len(chunk)
            if chunk:
                parse(chunk)
            if self.in_head and data:
                return False
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

    def complete(self) -> None:
        """The headers are complete: what comes next is the body."""
        self.in_head = False

    def done(self) -> None:
        """The request is complete: the next bytes begin another head."""
        self.in_head, self.begun = True, False
        self.wire_bytes = self.field_bytes = self.fields = 0


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
