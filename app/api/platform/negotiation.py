"""Content negotiation: a request whose ``Accept`` takes none of what its route answers is
a 406 ``not-acceptable``, before the route runs (so a change that could not be answered
is never made).

What a route answers is what it already declares: an API route's ``response_class``
(JSON by default; the event stream's ``EventStreamResponse``, the docs' ``HTMLResponse``,
``/metrics``' plain text), which the contract is built from too; a plain route's
endpoint's return annotation (FastAPI's ``/openapi.json``); a mount of files, each
file's type. Problems are ``application/problem+json`` whatever ``Accept`` says: an
error is sent as what it is.

``Accept`` is read as RFC 9110 (12.5.1) says: media ranges (``*/*``, ``type/*``,
``type/subtype``) with weights (``q=0`` to ``q=1``, three decimals at most); a media type
takes the weight of the most specific range that matches it, and a weight of 0 refuses
it. A media range's other parameters are not compared. A missing ``Accept``, or one in
which no range can be read, takes anything.

Most requests send no ``Accept``, ``*/*``, or one that takes every type the app answers:
those are passed at once. The others are matched against the routes that answer a type
their ``Accept`` refuses, in the app's order.
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, get_type_hints

from fastapi.routing import APIRoute
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.problems import PROBLEM_MEDIA_TYPE, problem_body, problem_bytes

# type/subtype, each an RFC 9110 token (ASCII only), case-insensitive.
_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_RANGE = re.compile(rf"({_TOKEN})/({_TOKEN})")
_QVALUE = re.compile(r"(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)")
# The types of files, as a mount of files answers them (starlette's FileResponse).
_FILE_FALLBACK = "text/plain"
_DIRECTORY = "text/html"
# Accept values seen, with what they take: clients send few distinct ones.
_CACHE_SIZE = 256


@dataclass(frozen=True, slots=True)
class MediaRange:
    type: str  # "*" for any
    subtype: str  # "*" for any
    weight: float

    def specificity(self, media_type: str) -> int:
        """How specifically this range names ``media_type`` (2 exactly, 1 its type, 0 any),
        or -1 when it does not match it."""
        kind, _, sub = media_type.partition("/")
        if self.type == "*":
            return 0
        if self.type != kind:
            return -1
        if self.subtype == "*":
            return 1
        return 2 if self.subtype == sub else -1


def parse_accept(value: str) -> tuple[MediaRange, ...]:
    """The media ranges of an ``Accept`` value that can be read; the others are left out."""
    ranges = []
    for item in value.split(","):
        parts = [part.strip() for part in item.split(";")]
        found = _RANGE.fullmatch(parts[0])
        if found is None:
            continue
        kind, sub = found.group(1).lower(), found.group(2).lower()
        if kind == "*" and sub != "*":
            continue
        weight: float | None = 1.0
        for parameter in parts[1:]:
            name, _, text = parameter.partition("=")
            if name.strip().lower() == "q":
                text = text.strip()
                weight = float(text) if _QVALUE.fullmatch(text) else None
        if weight is not None:
            ranges.append(MediaRange(kind, sub, weight))
    return tuple(ranges)


def weight_of(ranges: Iterable[MediaRange], media_type: str) -> float:
    """The weight ``ranges`` give ``media_type``: the most specific match's, else 0."""
    best, weight = -1, 0.0
    for media_range in ranges:
        specificity = media_range.specificity(media_type)
        if specificity > best:
            best, weight = specificity, media_range.weight
    return weight


def answers_of(route: BaseRoute) -> frozenset[str] | None:
    """The media types ``route`` answers, as it declares them; None when it depends on
    the request (a mount of files) or when it declares none (not negotiated)."""
    if isinstance(route, APIRoute):
        response_class = route.response_class
        if not (isinstance(response_class, type) and issubclass(response_class, Response)):
            # Not set: FastAPI's placeholder for its default, which this app keeps.
            response_class = JSONResponse
        media_type = getattr(response_class, "media_type", None)
        return frozenset({_base(media_type)}) if media_type else None
    if isinstance(route, Route):
        try:
            returns = get_type_hints(route.endpoint).get("return")
        except (NameError, TypeError):
            return None
        if isinstance(returns, type) and issubclass(returns, Response) and returns.media_type:
            return frozenset({_base(returns.media_type)})
    return None


def _base(media_type: str) -> str:
    return media_type.split(";")[0].strip().lower()


def _file_type(path: str) -> str:
    if path.endswith("/"):
        return _DIRECTORY
    return mimetypes.guess_type(path)[0] or _FILE_FALLBACK


@dataclass(frozen=True, slots=True)
class _Takes:
    """What one ``Accept`` value takes."""

    ranges: tuple[MediaRange, ...]
    types: frozenset[str]  # of the types the app's routes declare
    anything: bool


@dataclass(frozen=True, slots=True)
class _Entry:
    route: BaseRoute
    answers: frozenset[str] | None  # None: not declared (never refused)
    files: bool = False  # a mount of files: each its own type

    def may_refuse(self, taken: frozenset[str]) -> bool:
        return self.files or (self.answers is not None and not self.answers & taken)


class ContentNegotiation:
    """406 ``not-acceptable`` for a request whose ``Accept`` takes nothing its route
    answers. ``routes`` gives the app's routes, in the order the app tries them, once
    every route is added (on the first request that needs them)."""

    def __init__(self, app: ASGIApp, *, routes: Callable[[], Iterable[BaseRoute]]) -> None:
        self.app = app
        self._routes = routes
        self._entries: list[_Entry] | None = None
        self._answered: frozenset[str] = frozenset()
        self._files = False
        self._taken: dict[bytes, _Takes] = {}
        # Per set of types taken, the positions of the routes that may refuse it.
        self._refusing: dict[frozenset[str], tuple[int, ...]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        accept = _accept(scope)
        if accept is None:
            await self.app(scope, receive, send)
            return
        if self._entries is None:
            self._build()
        takes = self._takes(accept)
        if takes.anything or (takes.types >= self._answered and not self._files):
            await self.app(scope, receive, send)
            return
        refused = self._refused(scope, takes.ranges, takes.types)
        if refused is None:
            await self.app(scope, receive, send)
            return
        await self._not_acceptable(scope, refused, send)

    def _build(self) -> None:
        entries = []
        for route in self._routes():
            if isinstance(route, Mount):
                entries.append(_Entry(route, None, files=True))
            else:
                entries.append(_Entry(route, answers_of(route)))
        self._entries = entries
        self._files = any(entry.files for entry in entries)
        self._answered = frozenset(t for entry in entries for t in entry.answers or ())

    def _takes(self, accept: bytes) -> _Takes:
        known = self._taken.get(accept)
        if known is None:
            ranges = parse_accept(accept.decode("latin-1"))
            known = _Takes(
                ranges,
                frozenset(t for t in self._answered if weight_of(ranges, t) > 0),
                # Nothing read (anything goes), or */* with no range refusing anything.
                not ranges
                or (
                    any(r.type == "*" and r.weight > 0 for r in ranges)
                    and all(r.weight > 0 for r in ranges)
                ),
            )
            if len(self._taken) >= _CACHE_SIZE:
                self._taken.clear()
            self._taken[accept] = known
        return known

    def _refused(
        self, scope: Scope, ranges: tuple[MediaRange, ...], taken: frozenset[str]
    ) -> str | None:
        """What the route of this request answers, when ``ranges`` take none of it."""
        entries = self._entries
        assert entries is not None
        refusing = self._refusing.get(taken)
        if refusing is None:
            refusing = tuple(i for i, entry in enumerate(entries) if entry.may_refuse(taken))
            self._refusing[taken] = refusing
        # Only a route that may refuse is matched; when one matches, a route before it
        # that matches too is the one the app would serve (and it takes the request).
        for position in refusing:
            entry = entries[position]
            if entry.route.matches(scope)[0] is not Match.FULL:
                continue
            if any(e.route.matches(scope)[0] is Match.FULL for e in entries[:position]):
                return None
            if entry.files:
                media_type = _file_type(scope["path"])
                return None if weight_of(ranges, media_type) > 0 else media_type
            assert entry.answers is not None
            return ", ".join(sorted(entry.answers))
        return None

    async def _not_acceptable(self, scope: Scope, answers: str, send: Send) -> None:
        payload = problem_bytes(
            problem_body(
                "not-acceptable",
                detail=f"This answers {answers}, which the Accept header refuses.",
                instance=scope["path"],
            )
        )
        headers = [
            (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
            (b"content-length", str(len(payload)).encode()),
        ]
        await send({"type": "http.response.start", "status": 406, "headers": headers})
        await send({"type": "http.response.body", "body": payload})


def _accept(scope: Scope) -> bytes | None:
    """The request's ``Accept`` (several fields joined, as one list), or None."""
    values = [value for name, value in scope["headers"] if name == b"accept"]
    if not values:
        return None
    joined = b", ".join(values) if len(values) > 1 else values[0]
    return joined if joined.strip() else None


def negotiated_routes(*groups: Iterable[BaseRoute]) -> Callable[[], list[Any]]:
    """The routes and mounts of ``groups`` in order, read when first asked for (an
    included router is not one: give its routes as a group of their own)."""
    return lambda: [
        route for group in groups for route in group if isinstance(route, Route | Mount)
    ]
