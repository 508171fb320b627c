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

The front every request comes through (``app/api/platform/front.py``) asks, once it
knows the route that serves a request, whether its ``Accept`` takes what that route
answers; most requests send no ``Accept`` or ``*/*``, which take anything at once.
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import get_type_hints

from fastapi.routing import APIRoute
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from app.api.problems import problem_body, problem_bytes

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
    anything: bool


class Negotiation:
    """Whether a request's ``Accept`` takes what its route answers (a 406 when not)."""

    def __init__(self) -> None:
        self._taken: dict[bytes, _Takes] = {}
        # By the route's id: routes compare by their declarations and cannot be hashed.
        self._answers: dict[int, frozenset[str] | None] = {}

    def refused(self, accept: bytes, route: BaseRoute, path: str) -> str | None:
        """What ``route`` (matched for ``path`` with its method) answers, as the 406 says
        it, when ``accept`` takes none of it; None when it takes it."""
        takes = self._takes(accept)
        if takes.anything:
            return None
        if isinstance(route, Mount):  # a mount of files: each file's own type
            media_type = _file_type(path)
            return None if weight_of(takes.ranges, media_type) > 0 else media_type
        key = id(route)
        if key in self._answers:
            answers = self._answers[key]
        else:
            answers = self._answers[key] = answers_of(route)
        if answers is None or any(weight_of(takes.ranges, t) > 0 for t in answers):
            return None
        return ", ".join(sorted(answers))

    def _takes(self, accept: bytes) -> _Takes:
        known = self._taken.get(accept)
        if known is None:
            ranges = parse_accept(accept.decode("latin-1"))
            known = _Takes(
                ranges,
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


def not_acceptable_body(answers: str, path: str) -> bytes:
    """The 406 problem document for a route that answers ``answers``."""
    return problem_bytes(
        problem_body(
            "not-acceptable",
            detail=f"This answers {answers}, which the Accept header refuses.",
            instance=path,
        )
    )
