"""Cross-origin calls from web pages (CORS): the origins the operator lists may call.

Two pure ASGI layers built from one :class:`CorsPolicy`, so each answer goes through the
platform middleware (request id, access log, metrics) exactly once:

- :class:`CorsPreflight`, inside the platform layer, answers every preflight (``OPTIONS``
  with ``Origin`` and ``Access-Control-Request-Method``) itself: 204 with the allowed
  methods and headers for a listed origin, else a 403 ``cors-refused`` problem. Without
  it a preflight reaches the router and gets 405.
- :class:`CorsHeaders`, outside the platform layer, adds ``Access-Control-Allow-Origin``
  and ``Access-Control-Expose-Headers`` to every answer to a listed origin, the platform's
  own 413 and 503 included (a page must be able to read ``Retry-After``).

No origin listed (the default) means same-origin only: no answer carries an
``Access-Control-*`` header, and every preflight is refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

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
EXPOSED_HEADERS = ("ETag", "Location", "Idempotent-Replayed", "Retry-After", "X-Request-ID")
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


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _requested_headers(scope: Scope) -> list[str]:
    value = _header(scope, b"access-control-request-headers") or ""
    return [h.strip().lower() for h in value.split(",") if h.strip()]


class CorsPreflight:
    """Answers CORS preflights: 204 for a listed origin, else 403 ``cors-refused``."""

    def __init__(self, app: ASGIApp, *, policy: CorsPolicy) -> None:
        self.app = app
        self.policy = policy
        self._allow_methods = ", ".join(ALLOWED_METHODS).encode()
        self._allow_headers = ", ".join(ALLOWED_HEADERS).encode()
        self._max_age = str(policy.max_age_seconds).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "OPTIONS":
            await self.app(scope, receive, send)
            return
        origin = _header(scope, b"origin")
        method = _header(scope, b"access-control-request-method")
        if origin is None or method is None:  # a plain OPTIONS: the router answers (405)
            await self.app(scope, receive, send)
            return
        vary = (b"vary", b"Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
        refusal = self.policy.refusal(origin, method, _requested_headers(scope))
        if refusal is not None:
            payload = problem_bytes(
                problem_body("cors-refused", detail=refusal, instance=scope["path"])
            )
            headers = [
                (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
                (b"content-length", str(len(payload)).encode()),
                vary,
            ]
            await send({"type": "http.response.start", "status": 403, "headers": headers})
            await send({"type": "http.response.body", "body": payload})
            return
        headers = [
            (b"access-control-allow-methods", self._allow_methods),
            (b"access-control-allow-headers", self._allow_headers),
            (b"access-control-max-age", self._max_age),
            vary,
        ]
        await send({"type": "http.response.start", "status": 204, "headers": headers})
        await send({"type": "http.response.body", "body": b""})


class CorsHeaders:
    """Lets a listed origin's page read the answers, whoever wrote them."""

    def __init__(self, app: ASGIApp, *, policy: CorsPolicy) -> None:
        self.app = app
        self.policy = policy
        self._expose = ", ".join(EXPOSED_HEADERS).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        origin = _header(scope, b"origin")
        allowed = origin is not None and self.policy.allows(origin)
        origin_bytes = (origin or "").encode("latin-1")

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                # Caches must not hand the answer to one origin to another.
                if not any(k == b"vary" and b"origin" in v.lower() for k, v in headers):
                    headers.append((b"vary", b"Origin"))
                if allowed:
                    headers.append((b"access-control-allow-origin", origin_bytes))
                    headers.append((b"access-control-expose-headers", self._expose))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_cors)
