"""Cross-origin calls from web pages (CORS): the origins the operator lists may call.

One :class:`CorsPolicy`, applied by the front every request comes through
(``app/api/platform/front.py``):

- :meth:`CorsPolicy.preflight` answers every preflight (``OPTIONS`` with ``Origin`` and
  ``Access-Control-Request-Method``): 204 with the allowed methods and headers for a
  listed origin, else a 403 ``cors-refused`` problem. Without it a preflight would reach
  the router and get 405.
- :meth:`CorsPolicy.answer_headers` adds ``Access-Control-Allow-Origin`` and
  ``Access-Control-Expose-Headers`` to every answer to a listed origin, the front's own
  413 and 503 included (a page must be able to read ``Retry-After``).

No origin listed (the default) means same-origin only: no answer carries an
``Access-Control-*`` header, and every preflight is refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from app.api.problems import PROBLEM_MEDIA_TYPE, problem_body, problem_bytes

#: The methods the routes take.
ALLOWED_METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS")
#: The request headers clients send (the CORS-safelisted ones are always allowed).
ALLOWED_HEADERS = (
    "Authorization",
    "Content-Type",
    "If-Match",
    "If-None-Match",
    "Idempotency-Key",
    "Last-Event-ID",
    "X-Request-ID",
)
#: The response headers a page may read (beyond the CORS-safelisted ones).
EXPOSED_HEADERS = (
    "ETag",
    "Location",
    "Idempotent-Replayed",
    "Retry-After",
    "X-Request-ID",
    "Follow-Ended",
)
_SAFELISTED_REQUEST_HEADERS = frozenset({"accept", "accept-language", "content-language"})

# scheme://host[:port], as browsers send it in Origin (no path, no trailing slash).
_ORIGIN = re.compile(r"^https?://[^\s/?#:]+(?::\d{1,5})?$", re.IGNORECASE)


def parse_origins(value: str) -> frozenset[str]:
    """The origins of a comma-separated ``CORS_ORIGINS``; ``*`` stands for any origin.

    A value that is not ``scheme://host[:port]`` is refused at start-up rather than
    silently never matching.
    """
    origins = set()
    for item in value.split(","):
        origin = item.strip().rstrip("/")
        if not origin:
            continue
        if origin != "*" and not _ORIGIN.match(origin):
            raise ValueError(
                f"CORS_ORIGINS: {item.strip()!r} is not an origin like https://example.org"
            )
        origins.add(origin.lower())
    return frozenset(origins)


Headers = list[tuple[bytes, bytes]]

_VARY = (b"vary", b"Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
_ALLOW_METHODS = ", ".join(ALLOWED_METHODS).encode()
_ALLOW_HEADERS = ", ".join(ALLOWED_HEADERS).encode()
_EXPOSE = ", ".join(EXPOSED_HEADERS).encode()


@dataclass(frozen=True)
class CorsPolicy:
    """Which origins may call, and for how long a browser may cache a preflight."""

    origins: frozenset[str]
    max_age_seconds: int

    def allows(self, origin: str) -> bool:
        return "*" in self.origins or origin.lower() in self.origins

    def refusal(self, origin: str, method: str, requested_headers: Iterable[str]) -> str | None:
        """Why a preflight is refused, or None when it is allowed."""
        if not self.allows(origin):
            if not self.origins:
                return (
                    f"The origin {origin!r} may not call: this service takes no cross-origin calls."
                )
            return f"The origin {origin!r} is not one this service takes calls from."
        if method.upper() not in ALLOWED_METHODS:
            return f"The method {method!r} is not allowed; allowed: {', '.join(ALLOWED_METHODS)}."
        allowed = _SAFELISTED_REQUEST_HEADERS | {h.lower() for h in ALLOWED_HEADERS}
        refused = [h for h in requested_headers if h not in allowed]
        if refused:
            return (
                f"The header {refused[0]!r} is not allowed; allowed: {', '.join(ALLOWED_HEADERS)}."
            )
        return None

    def preflight(
        self, origin: str, method: str, requested_headers: str | None, path: str
    ) -> tuple[int, Headers, bytes]:
        """The answer to a preflight from ``origin`` for ``method`` with the
        ``Access-Control-Request-Headers`` value ``requested_headers``: its status,
        headers and body."""
        requested = [h.strip().lower() for h in (requested_headers or "").split(",") if h.strip()]
        refusal = self.refusal(origin, method, requested)
        if refusal is not None:
            payload = problem_bytes(problem_body("cors-refused", detail=refusal, instance=path))
            headers = [
                (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
                (b"content-length", str(len(payload)).encode()),
                _VARY,
            ]
            return 403, headers, payload
        headers = [
            (b"access-control-allow-methods", _ALLOW_METHODS),
            (b"access-control-allow-headers", _ALLOW_HEADERS),
            (b"access-control-max-age", str(self.max_age_seconds).encode()),
            _VARY,
        ]
        return 204, headers, b""

    def answer_headers(self, headers: Headers, origin: str | None) -> Headers:
        """``headers`` of an answer to a request from ``origin`` (None: no ``Origin``), with
        what lets a listed origin's page read it; only when some origin is listed."""
        # Caches must not hand the answer to one origin to another.
        if not any(k == b"vary" and b"origin" in v.lower() for k, v in headers):
            headers.append((b"vary", b"Origin"))
        if origin is not None and self.allows(origin):
            headers.append((b"access-control-allow-origin", origin.encode("latin-1")))
            headers.append((b"access-control-expose-headers", _EXPOSE))
        return headers
