"""Byte streams for one connection, made from valid requests and then broken: below what
``hostile_requests.py`` varies (one well-framed request per connection), these pipeline
up to three requests, mutate their bytes anywhere (head, framing, body), and cut what
is sent into pieces sent apart. Deterministic for a seed.

What is varied: the request (each kind the service serves: a probe, a HEAD, a stored
read, a change, a calculation, a CORS preflight, a long-poll, a stream, the metrics, a
page, a delete); a few header fields added from ``EXTRA_FIELDS`` (upgrades, framing,
conditions, duplicates, a folded line); a chunked body, sometimes broken from
``BROKEN_CHUNKS``; byte mutations (``_mutate``); where the stream is cut, a pause between
pieces, and whether the client then closes its sending side.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

EXTRA_FIELDS: tuple[bytes, ...] = (
    b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    b"Upgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAAQAAP__",
    b"Upgrade: foo",
    b"Expect: 100-continue",
    b"Transfer-Encoding: chunked",
    b"Transfer-Encoding: gzip, chunked",
    b"Transfer-Encoding: chunked\r\nContent-Length: 3",
    b"Content-Length: 99999999999999999999",
    b"Content-Length: -1",
    b"Content-Length: 5",
    b"Content-Length: 1\r\nContent-Length: 2",
    b"Connection: close",
    b"Connection: keep-alive",
    b"Host: a\r\nHost: b",
    b"X-Folded: a\r\n folded",
    b"Accept: text/html",
    b"Origin: http://elsewhere.example",
    b'If-None-Match: "1"',
    b"If-Match: *",
    b"X-Request-ID: \x01",
    b"Authorization: Bearer x\r\nAuthorization: Bearer y",
    b"Idempotency-Key: 0b0e6b8b-8f0b-4e4c-9b1a-3c2d1e0f9a8b",
    b"Content-Type: text/plain",
    b"Range: bytes=0-1",
    b"TE: trailers",
)
# A chunked body, broken: what replaces or joins the well-formed chunks.
BROKEN_CHUNKS: tuple[bytes, ...] = (
    b"zz\r\n",  # a size that is not a number
    b"ffffffffffffffff\r\n",  # a size past any limit
    b" 4\r\nabcd\r\n",  # a space before the size
    b"4\nabcd\n",  # bare line feeds
    b"4;ext=1\r\nabcd\r\n",  # an extension (valid)
    b"0\r\nX-Trailer: 1\r\n\r\n",  # a trailer (valid)
    b"",  # no last chunk: the body never ends
)
# Bytes a mutation inserts: the ones that mean something to a parser.
SPECIAL_BYTES: tuple[bytes, ...] = (b"\r", b"\n", b"\0", b" ", b":", b"\xff", b"\r\n", b"\t")
VERSIONS: tuple[bytes, ...] = (b"HTTP/1.0", b"HTTP/2.0", b"HTTP/0.9", b"HTTP/1.2", b"http/1.1")


@dataclass(frozen=True)
class Template:
    method: bytes
    target: bytes
    fields: tuple[bytes, ...]
    body: bytes = b""


@dataclass(frozen=True)
class Exchange:
    """What one connection sends: ``pieces`` with ``pause`` seconds after each, then
    (``half_close``) the end of its sending side."""

    pieces: tuple[bytes, ...]
    pause: float
    half_close: bool

    @property
    def sent(self) -> bytes:
        return b"".join(self.pieces)


def templates(game_id: str, host_token: str, calculation: bytes) -> list[Template]:
    """A request of each kind the service serves, on a real game with its host's token."""
    game = b"/v1/games/" + game_id.encode()
    bearer = b"Authorization: Bearer " + host_token.encode()
    json_body = b"Content-Type: application/json"
    return [
        Template(b"GET", b"/healthz", ()),
        Template(b"HEAD", b"/v1/faith-track", ()),
        Template(b"GET", game, (bearer,)),
        Template(b"PUT", game + b"/players/p1/faith", (bearer, json_body), b'{"faith": 4}'),
        Template(b"POST", b"/v1/calculations/gains", (json_body,), calculation),
        Template(
            b"OPTIONS",
            b"/v1/games",
            (b"Origin: http://table.example", b"Access-Control-Request-Method: POST"),
        ),
        Template(b"GET", game + b"/events?after=0&wait=1", (bearer,)),
        Template(b"GET", game + b"/events/stream", (bearer, b"Accept: text/event-stream")),
        Template(b"GET", b"/metrics", ()),
        Template(b"GET", b"/docs", ()),
        Template(b"DELETE", b"/v1/games/none", (bearer,)),
    ]


def exchanges(rng: random.Random, made_of: list[Template], count: int) -> list[Exchange]:
    return [_exchange(rng, made_of) for _ in range(count)]


def _exchange(rng: random.Random, made_of: list[Template]) -> Exchange:
    requests = [
        _mutate(rng, _request(rng, rng.choice(made_of))) for _ in range(rng.choice([1, 1, 2, 3]))
    ]
    sent = b"".join(requests)
    cuts = rng.choice([0, 0, 1, 3, 10])
    at = sorted(rng.sample(range(1, len(sent)), min(cuts, len(sent) - 1))) if sent else []
    pieces = tuple(sent[a:b] for a, b in zip([0, *at], [*at, len(sent)], strict=True))
    return Exchange(pieces, rng.choice([0.0, 0.0, 0.01, 0.2]), rng.random() < 0.3)


def _request(rng: random.Random, template: Template) -> bytes:
    fields = [b"Host: edge", *template.fields, *rng.sample(EXTRA_FIELDS, rng.choice([0, 1, 2]))]
    body = template.body
    if body and rng.random() < 0.3:
        fields.append(b"Transfer-Encoding: chunked")
        cut = rng.randrange(len(body) + 1)
        chunks = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in (body[:cut], body[cut:]) if p)
        ending = b"0\r\n\r\n"
        if rng.random() < 0.5:
            broken = rng.choice(BROKEN_CHUNKS)
            chunks, ending = (broken + chunks, ending) if broken else (chunks, b"")
        body = chunks + ending
    elif body:
        fields.append(b"Content-Length: %d" % len(body))
    head = template.method + b" " + template.target + b" HTTP/1.1\r\n"
    return head + b"\r\n".join(fields) + b"\r\n\r\n" + body


def _mutate(rng: random.Random, data: bytes) -> bytes:
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        at = rng.randrange(len(data))
        kind = rng.randrange(9)
        if kind == 0:  # a byte replaced
            data = data[:at] + bytes([rng.randrange(256)]) + data[at + 1 :]
        elif kind == 1:  # a byte that means something inserted
            data = data[:at] + rng.choice(SPECIAL_BYTES) + data[at:]
        elif kind == 2:  # a few bytes gone
            data = data[:at] + data[at + rng.randrange(1, 20) :]
        elif kind == 3:  # cut short
            data = data[: max(at, 1)]
        elif kind == 4:  # trailing garbage
            data += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
        elif kind == 5:  # empty lines first
            data = b"\r\n" * rng.randrange(1, 4) + data
        elif kind == 6:  # another version
            data = data.replace(b"HTTP/1.1", rng.choice(VERSIONS), 1)
        elif kind == 7:  # bare line feeds
            data = data.replace(b"\r\n", b"\n")
        else:  # a long run of one byte: near and past the header bound
            data = data[:at] + b"A" * rng.choice([100, 3000, 17000]) + data[at:]
        data = data or b"\r\n"  # a connection sends something
    return data
