"""How the edge counts a request's head when one read holds several requests: each head
alone, from at most one piece before its first byte, and never past ``max_bytes`` of the
parser's input. In process, on httptools' parser, as the edge protocol feeds it."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import httptools
from hypothesis import given, settings
from hypothesis import strategies as st

from app.server.request_heads import PIECE_BYTES, RequestHead

MAX_BYTES = 16384


@dataclass
class Parsed:
    """The callbacks the edge protocol gives the parser, reduced to their counting."""

    head: RequestHead
    done: int = 0
    bodies: list[bytes] = field(default_factory=list)

    def on_message_begin(self) -> None:
        self.head.begin()

    def on_headers_complete(self) -> None:
        self.head.complete()

    def on_body(self, body: bytes) -> None:
        self.bodies.append(body)

    def on_message_complete(self) -> None:
        self.head.done()
        self.done += 1


class Feeder:
    """One connection's head and parser, and how many bytes the parser was given."""

    def __init__(self) -> None:
        self.head = RequestHead(MAX_BYTES, 100)
        self.parsed = Parsed(self.head)
        self.parser = httptools.HttpRequestParser(self.parsed)
        self.fed = 0

    def _parse(self, piece: bytes | memoryview) -> None:
        self.fed += len(piece)
        self.parser.feed_data(piece)

    def feed(self, read: bytes) -> bool:
        return self.head.feed(read, self._parse)


def request(head_bytes: int, body: bytes = b"") -> bytes:
    """A request whose head is ``head_bytes`` long (at least 128), then its body."""
    head = b"PUT /v1/games/g HTTP/1.1\r\nHost: edge\r\n"
    head += f"Content-Length: {len(body):05d}\r\nX-Pad: ".encode()
    head += b"a" * (head_bytes - len(head) - 4) + b"\r\n\r\n"
    assert len(head) == head_bytes
    return head + body


def reads(stream: bytes, cuts: list[int]) -> list[bytes]:
    """``stream`` cut at ``cuts`` (offsets into it), as the reads a socket might give."""
    at = sorted({0, len(stream), *(cut % (len(stream) + 1) for cut in cuts)})
    return [stream[a:b] for a, b in itertools.pairwise(at)]


def test_requests_pipelined_in_one_read_larger_than_the_head_bound_are_each_counted_alone() -> None:
    # Ten heads of 1,946 bytes in one read of 19,460: before, the read was cut at the
    # head bound and the ninth head refused as too large.
    feeder = Feeder()
    assert feeder.feed(request(1946) * 10)
    assert feeder.parsed.done == 10


def test_a_head_that_follows_a_body_in_the_same_read_is_held_to_the_bound() -> None:
    # Before, a read's bytes after a head were all parsed at once, so the head that
    # followed a body in the same read could take the rest of the read, past the bound.
    feeder = Feeder()
    endless = b"GET /healthz HTTP/1.1\r\nX-Endless: " + b"a" * 200_000
    first = request(200, body=b"x" * 100)
    assert not feeder.feed(first + endless)
    assert feeder.parsed.done == 1
    assert feeder.fed <= len(first) + MAX_BYTES


heads = st.integers(min_value=128, max_value=MAX_BYTES - PIECE_BYTES + 1)
bodies = st.binary(max_size=3 * PIECE_BYTES)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(heads, bodies), min_size=1, max_size=12),
    st.lists(st.integers(min_value=0), max_size=8),
)
def test_heads_within_a_piece_of_the_bound_are_never_refused_however_they_are_read(
    requests: list[tuple[int, bytes]], cuts: list[int]
) -> None:
    feeder = Feeder()
    stream = b"".join(request(size, body) for size, body in requests)
    for read in reads(stream, cuts):
        assert feeder.feed(read)
    assert feeder.parsed.done == len(requests)
    assert b"".join(feeder.parsed.bodies) == b"".join(body for _, body in requests)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(heads, bodies), max_size=6),
    st.integers(min_value=MAX_BYTES + 1, max_value=3 * MAX_BYTES),
    st.lists(st.integers(min_value=0), max_size=8),
)
def test_a_head_past_the_bound_is_refused_before_the_parser_takes_more_of_it(
    before: list[tuple[int, bytes]], too_large: int, cuts: list[int]
) -> None:
    feeder = Feeder()
    start = b"".join(request(size, body) for size, body in before)
    stream = start + request(too_large)
    refused = False
    for read in reads(stream, cuts):
        if not feeder.feed(read):
            refused = True
            break
    assert refused
    assert feeder.parsed.done == len(before)
    assert feeder.fed <= len(start) + MAX_BYTES
