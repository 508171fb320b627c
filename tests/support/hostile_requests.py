"""Hostile HTTP requests, generated: every operation of the contract (and the routes
outside it), each sent with a few things wrong in its method, target, headers, body or
framing, as raw bytes, so that what an HTTP client library would refuse to send is sent
too. Deterministic for a seed.

What is varied (each a table below): methods, known and unknown; targets with real and
wrong ids, odd encodings, huge and non-ASCII numbers in the query; ``Accept``,
``Authorization``, ``If-Match``/``If-None-Match``, ``Idempotency-Key``, ``Last-Event-ID``,
``Content-Type``, ``Content-Encoding``, request ids and forwarded-for values; JSON bodies
whose leaves are replaced by huge numbers, 4,301-digit integers, NaN, lone surrogates,
strings of every kind, or which are not JSON, not UTF-8, nested deep or too large; and
framing: chunked bodies (valid and not), repeated or wrong ``Content-Length``, HTTP/1.0,
bare line feeds, obsolete line folding, header names without a value.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

OPENAPI = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
JSON = b"application/json"


@dataclass(frozen=True)
class Target:
    """What the generated requests are aimed at: a real game and its tokens."""

    game_ids: tuple[str, ...]
    host_tokens: tuple[str, ...]
    player_tokens: tuple[str, ...]


@dataclass(frozen=True)
class Operation:
    method: str
    path: str  # a template: /v1/games/{game_id}
    bodies: tuple[Any, ...] = ()  # example bodies (the contract's)


@dataclass
class HostileRequest:
    """One request: its raw bytes and what it was made of (for the report)."""

    label: str
    operation: Operation
    raw: bytes
    # Every value sent of each header field, by lowercased name.
    headers: dict[str, list[bytes]] = field(default_factory=dict)


def operations() -> list[Operation]:
    """Every operation of the committed contract, and the routes outside it."""
    document = json.loads(OPENAPI.read_text(encoding="utf-8"))
    schemas = document["components"]["schemas"]
    found = []
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method not in ("get", "put", "post", "delete", "patch"):
                continue
            bodies: tuple[Any, ...] = ()
            content = operation.get("requestBody", {}).get("content", {})
            ref = content.get("application/json", {}).get("schema", {}).get("$ref")
            if ref:
                bodies = tuple(schemas[ref.rsplit("/", 1)[1]].get("examples", [{}]))
            found.append(Operation(method.upper(), path, bodies))
    for path in ("/metrics", "/docs", "/redoc", "/openapi.json", "/problems", "/problems/{slug}"):
        found.append(Operation("GET", path))
    found += [Operation("GET", "/table/"), Operation("GET", "/docs/assets/swagger-ui.css")]
    return found


# ---- the tables of values ---------------------------------------------------------------

METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "FOO", "get"]
NUMBERS = [
    "0",
    "1",
    "-1",
    "3",
    "2147483647",
    "2147483648",
    "9007199254740993",
    "1e400",
    "-0",
    "1.5",
    "nan",
    "inf",
    "-inf",
    "0x10",
    "1_000",
    " 1",
    "1 ",
    "+1",
    "9" * 4301,
    "²",
    "\u0661",  # ARABIC-INDIC DIGIT ONE: a digit to str.isdigit(), not to int() in a URL
    "%C2%B2",
    "%00",
    "",
    "true",
    "[]",
]
WRONG_IDS = [
    "0" * 32,
    "f" * 31,
    "F" * 32,
    "a" * 33,
    "%00",
    "%2e%2e%2f",
    "..",
    "%C2%B2",
    "%ff%fe",
    "x" * 2000,
    "🎲",
    "%F0%9F%8E%B2",
    "' OR 1=1 --",
    "%0d%0aX-Injected: 1",
    "null",
    "p1",
]
PLAYER_IDS = ["p1", "p2", "p3", "p4", "p5", "p0", "p6", "P1", "p01", "p1%00", "%C2%B2", ""]
# A seat: the host's or a player's (seat tokens).
SEATS = ["host", "p1", "p2", "HOST", "p9", "host%00", "%C2%B2", ""]
PERIODS = ["1", "2", "3", "0", "4", "-1", "1.0", "01", "1e0", "²", "9" * 400]
TILE_IDS = ["I-1", "II-7", "III-4", "IV-1", "I-0", "i-1", "I-%00", "%C2%B2"]
SLUGS = ["not-found", "validation-error", "nope", "%00", "../problems"]
ACCEPTS: list[bytes] = [
    b"*/*",
    b"application/json",
    b"application/xml",
    b"text/event-stream",
    b"text/html",
    b"application/*;q=0",
    b"application/json;q=0, */*;q=0.1",
    b"*/*;q=1.5",
    b"*/*;q=\xb2",
    b"text/*",
    b"\xff\xfe",
    b"",
    b",,,;;;",
    b"application/problem+json",
    b"a/b;" * 200,
    b"application/json;q=0.001",
    b"*/json",
]
AUTHORIZATIONS: list[bytes] = [
    b"Bearer",
    b"Bearer ",
    b"Basic dXNlcjpwYXNz",
    b"bearer x",
    b"Bearer " + b"a" * 5000,
    b"Bearer \xb2",
    b"Bearer \xff\xfe",
    b"Bearer a b c",
    b"Token abc",
    b"Bearer\ttab",
]
ETAGS: list[bytes] = [
    b'"1"',
    b'W/"1"',
    b"*",
    b'"\xb2"',
    b'"' + b"9" * 30 + b'"',
    b"1",
    b'""',
    b'"1", "2"',
    b"W/",
    b'"-1"',
    b'"1e3"',
    b'"' + b"9" * 4301 + b'"',
    b"\xff",
    b", , ,",
]
IDEMPOTENCY_KEYS: list[bytes] = [
    b"short",
    b"a" * 22,
    b"a" * 300,
    b"\xb2" * 30,
    b"00000000-0000-0000-0000-000000000000",
    b"aaaaaaaaaaaaaaaaaaaaaa!",
    b"",
    b"a" * 255,
    b"a" * 256,
]
LAST_EVENT_IDS: list[bytes] = [
    b"0",
    b"1",
    b"-1",
    b"1e3",
    b" 2 ",
    b"2147483647",
    b"2147483648",
    b"9" * 4301,
    b"\xb2",
    b"\xb3",
    b"\xb9",
    b"\xb21",
    b"abc",
    b"",
    b"1.0",
    b"0x1",
]
CONTENT_TYPES: list[bytes] = [
    b"application/json",
    b"application/json; charset=utf-8",
    b"application/json; charset=utf-16",
    b"text/plain",
    b"application/x-www-form-urlencoded",
    b"multipart/form-data; boundary=x",
    b"application/merge-patch+json",
    b"application/json;;",
    b"\xb2/\xb2",
    b"",
]
REQUEST_IDS: list[bytes] = [b"x" * 200, b"\xb2\xb3", b"ok-id", b"a b", b""]
FORWARDED: list[bytes] = [b"203.0.113.7", b"::1, 127.0.0.1", b"garbage", b"1.2.3.4" * 50]

# Replacements for one leaf of a JSON body, as raw JSON text.
LEAVES = [
    "1" * 4301,
    "1e400",
    "-1e400",
    "NaN",
    "Infinity",
    "-0",
    str(2**63),
    str(-(2**63)),
    str(10**30),
    "1.5",
    "-1",
    "0",
    "true",
    "null",
    '""',
    '"\\u0000"',
    '"\\ud800"',
    '"' + "x" * 3000 + '"',
    '"²"',
    '"p1"',
    '"I-1"',
    '"support"',
    "[]",
    "{}",
    '["p1","p1"]',
    '{"$ref": "#"}',
]
BODIES: list[bytes] = [
    b"",
    b"{",
    b"[]",
    b'"x"',
    b"null",
    b'{"a":1,"a":2}',
    b"[" * 5000 + b"]" * 5000,
    b"\xef\xbb\xbf{}",
    b"\xff\xfe{\x00}\x00",
    b'{"faith": 1}\x00',
    b"{'faith': 1}",
    b'{"faith": 1} trailing',
    b"\xb2",
    b"x" * 70000,
    b'{"' + b"k" * 60000 + b'": 1}',
]


def _choose(rng: random.Random, values: list[Any]) -> Any:
    return values[rng.randrange(len(values))]


def _fill(rng: random.Random, path: str, target: Target, wrong: bool) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "game_id":
            return _choose(rng, WRONG_IDS) if wrong else _choose(rng, list(target.game_ids))
        table = {
            "player_id": PLAYER_IDS,
            "seat": SEATS,
            "period": PERIODS,
            "tile_id": TILE_IDS,
            "slug": SLUGS,
        }[name]
        return _choose(rng, table[:3] if not wrong else table)

    return re.sub(r"\{(\w+)\}", value, path)


def _query(rng: random.Random, operation: Operation) -> str:
    names = {
        "/v1/games/{game_id}/events": ["after", "limit", "wait"],
        "/v1/games/{game_id}/events/stream": ["after"],
        "/v1/excommunication-tiles": ["period", "expansion"],
    }.get(operation.path, ["x"])
    parts = []
    for _ in range(rng.randrange(1, 4)):
        value = _choose(rng, NUMBERS)
        # Mostly encoded as a client would; sometimes raw (spaces and all).
        parts.append(
            f"{_choose(rng, names)}={quote(value, safe='%') if rng.random() < 0.8 else value}"
        )
    if rng.random() < 0.1:
        parts.append(_choose(rng, ["%zz=1", "&&&", "=", "a=%", "token=abc", "a" * 3000 + "=1"]))
    return "?" + "&".join(parts)


def _mutate_json(rng: random.Random, example: Any) -> bytes:
    """The example with one leaf (or a key) replaced by a hostile value."""
    text = json.dumps(example)
    leaves = list(re.finditer(r'(?<=: )("[^"]*"|-?\d[\d.eE+-]*|true|false|null)', text))
    choice = rng.random()
    if leaves and choice < 0.7:
        leaf = _choose(rng, leaves)
        text = text[: leaf.start()] + _choose(rng, LEAVES) + text[leaf.end() :]
    elif choice < 0.8 and text.startswith("{") and len(text) > 2:
        text = '{"unknown_field": 1, ' + text[1:]
    elif choice < 0.9 and text.startswith("{") and len(text) > 2:
        first_key = re.match(r'\{("[^"]+"): ', text)
        if first_key:
            text = "{" + first_key.group(1) + ": null, " + text[1:]  # the key twice
    else:
        text = _choose(rng, ["[", "{}", "[" + text + "]", text + text, text[: len(text) // 2]])
    return text.encode("utf-8", "surrogatepass")


def _body(rng: random.Random, operation: Operation) -> bytes | None:
    if operation.bodies and rng.random() < 0.85:
        example = _choose(rng, list(operation.bodies))
        if rng.random() < 0.25:
            return json.dumps(example).encode()
        return _mutate_json(rng, example)
    if operation.method in ("POST", "PUT") or rng.random() < 0.05:
        return _choose(rng, BODIES)
    return None


def _headers(rng: random.Random, operation: Operation, target: Target) -> list[tuple[bytes, bytes]]:
    headers: list[tuple[bytes, bytes]] = [(b"Host", b"hostile")]
    token_choice = rng.random()
    if "{game_id}" in operation.path and token_choice < 0.6:
        token = _choose(
            rng, list(target.host_tokens if token_choice < 0.45 else target.player_tokens)
        )
        headers.append((b"Authorization", b"Bearer " + token.encode()))
    elif token_choice < 0.8:
        headers.append((b"Authorization", _choose(rng, AUTHORIZATIONS)))
    for _ in range(rng.randrange(0, 4)):
        kind = rng.randrange(9)
        if kind == 0:
            headers.append((b"Accept", _choose(rng, ACCEPTS)))
        elif kind == 1:
            headers.append((b"If-Match", _choose(rng, ETAGS)))
        elif kind == 2:
            headers.append((b"If-None-Match", _choose(rng, ETAGS)))
        elif kind == 3:
            headers.append((b"Idempotency-Key", _choose(rng, IDEMPOTENCY_KEYS)))
        elif kind == 4:
            headers.append((b"Last-Event-ID", _choose(rng, LAST_EVENT_IDS)))
        elif kind == 5:
            headers.append((b"X-Request-ID", _choose(rng, REQUEST_IDS)))
        elif kind == 6:
            headers.append((b"X-Forwarded-For", _choose(rng, FORWARDED)))
        elif kind == 7:
            headers.append((b"Content-Encoding", _choose(rng, [b"gzip", b"br", b"identity", b"x"])))
        else:
            headers.append((b"Origin", _choose(rng, [b"http://evil.example", b"null", b"\xb2"])))
    if operation.path.endswith("/stream") and rng.random() < 0.5:
        headers.append((b"Last-Event-ID", _choose(rng, LAST_EVENT_IDS)))
    if rng.random() < 0.05:  # a header sent twice
        headers.append(headers[rng.randrange(len(headers))])
    return headers


def _frame(
    rng: random.Random, request_line: bytes, headers: list[tuple[bytes, bytes]], body: bytes | None
) -> tuple[str, bytes]:
    """The request as bytes on the wire: mostly well framed, sometimes not."""
    choice = rng.random()
    lines = [request_line]
    if body is not None and choice < 0.08:  # chunked, sometimes wrongly
        lines += [name + b": " + value for name, value in headers]
        lines.append(b"Transfer-Encoding: chunked")
        chunk = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
        if rng.random() < 0.3:
            chunk = _choose(rng, [b"zz\r\nabc\r\n0\r\n\r\n", b"5\r\nab\r\n0\r\n\r\n", b"-1\r\n"])
        return "chunked", b"\r\n".join(lines) + b"\r\n\r\n" + chunk
    if choice < 0.1:
        lines += [name + b": " + value for name, value in headers]
        lines.append(b"Content-Length: 5")
        lines.append(b"Content-Length: 6")
        return "two-lengths", b"\r\n".join(lines) + b"\r\n\r\n" + (body or b"")[:6].ljust(6)
    if choice < 0.12:
        lines += [name + b": " + value for name, value in headers]
        return "bare-lf", b"\n".join(lines) + b"\n\n"
    if choice < 0.14:
        lines += [name + b": " + value for name, value in headers]
        lines += [b"X-Folded: a", b" b"]
        return "obs-fold", b"\r\n".join(lines) + b"\r\n\r\n"
    if choice < 0.16:
        lines += [name + b": " + value for name, value in headers]
        lines += [_choose(rng, [b"NoColon", b": empty-name", b"Bad Name: x", b"X-\x00: y"])]
        return "bad-field", b"\r\n".join(lines) + b"\r\n\r\n"
    if choice < 0.18:
        lines += [name + b": " + value for name, value in headers]
        lines.append(
            _choose(
                rng,
                [
                    b"Content-Length: -1",
                    b"Content-Length: 1_0",
                    b"Content-Length: 99999999999999999999",
                ],
            )
        )
        return "bad-length", b"\r\n".join(lines) + b"\r\n\r\n"
    if body is not None and choice < 0.2:
        lines += [name + b": " + value for name, value in headers]
        lines.append(b"Expect: 100-continue")
        lines.append(b"Content-Length: %d" % len(body))
        return "expect-continue", b"\r\n".join(lines) + b"\r\n\r\n" + body
    lines += [name + b": " + value for name, value in headers]
    if body is not None:
        if not any(name.lower() == b"content-type" for name, _ in headers):
            content_type = (
                b"application/json" if rng.random() < 0.8 else _choose(rng, CONTENT_TYPES)
            )
            lines.append(b"Content-Type: " + content_type)
        lines.append(b"Content-Length: %d" % len(body))
    return "framed", b"\r\n".join(lines) + b"\r\n\r\n" + (body or b"")


def generate(target: Target, count: int, seed: int = 0) -> Iterator[HostileRequest]:
    """``count`` hostile requests aimed at ``target``, the same ones for the same seed.
    Each closes its connection after its answer (``Connection: close``)."""
    rng = random.Random(seed)
    ops = operations()
    for _ in range(count):
        operation = _choose(rng, ops)
        method = operation.method if rng.random() < 0.8 else _choose(rng, METHODS)
        wrong_target = rng.random() < 0.3
        path = _fill(rng, operation.path, target, wrong_target)
        if rng.random() < 0.3 or operation.path.endswith(("/events", "/stream", "-tiles")):
            path += _query(rng, operation)
        version = (
            b"HTTP/1.1"
            if rng.random() < 0.95
            else _choose(rng, [b"HTTP/1.0", b"HTTP/2.0", b"HTTP/9"])
        )
        request_line = method.encode() + b" " + path.encode("utf-8") + b" " + version
        headers = _headers(rng, operation, target)
        headers.append((b"Connection", b"close"))
        body = (
            _body(rng, operation) if method not in ("GET", "HEAD") or rng.random() < 0.03 else None
        )
        if body is not None and rng.random() < 0.1:
            headers.append((b"Content-Type", _choose(rng, CONTENT_TYPES)))
        framing, raw = _frame(rng, request_line, headers, body)
        sent: dict[str, list[bytes]] = {}
        for name, value in headers:
            sent.setdefault(name.decode("latin-1").lower(), []).append(value)
        label = f"{method} {operation.path} [{framing}]"
        yield HostileRequest(label, operation, raw, sent)
