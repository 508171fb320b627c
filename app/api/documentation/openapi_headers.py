"""The OpenAPI document's response headers: each declared once, under
``components.headers``, and which answers carry which."""

from __future__ import annotations

from typing import Any

# Response headers, declared once under components.headers and referenced by each answer
# that carries them (tests/api/test_openapi_headers.py checks real answers against this).
HEADERS: dict[str, dict[str, Any]] = {
    "X-Request-ID": {
        "required": True,
        "description": "The request's id: the client's own when it sent a sane one, else a "
        "new one. Quote it when reporting a problem.",
        "schema": {"type": "string", "minLength": 1, "maxLength": 128},
    },
    "ETag": {
        "required": True,
        "description": 'The game\'s version, as a strong tag (`"3"`): send it back as '
        "`If-Match` to change the game, or as `If-None-Match` to poll.",
        "schema": {"type": "string", "pattern": '^"[0-9]+"$'},
    },
    "Location": {
        "required": True,
        "description": "The created game's URL.",
        "schema": {"type": "string", "format": "uri-reference"},
    },
    "Idempotent-Replayed": {
        "description": "`true` when this answer is the replay of an earlier call with the "
        "same `Idempotency-Key`; absent on the first answer.",
        "schema": {"type": "string", "enum": ["true"]},
    },
    "Retry-After": {
        "required": True,
        "description": "Seconds to wait before retrying.",
        "schema": {"type": "integer", "minimum": 0},
    },
    "Follow-Ended": {
        "description": "On a long-poll's page only, when the service ended the wait before "
        "an event came or `wait` ran out: why, as a stream's last line (`: end <reason>`) "
        "says it. `superseded`: a newer follower of this seat took this one's place, past "
        "`MAX_STREAMS_PER_SEAT`; asking again ends another follower of the seat in turn. "
        "`shutdown`: the process is stopping; ask again (another replica answers).",
        "schema": {"type": "string", "enum": ["superseded", "shutdown"]},
    },
    "Cache-Control": {
        "required": True,
        "description": "`no-store` on every answer that carries a token or a recovery code: "
        "no cache, proxy or browser may keep it.",
        "schema": {"type": "string", "enum": ["no-store"]},
    },
}
# The answers of a deprecated operation (app/api/platform/deprecation.py) carry these too; they are
# declared only in a document that has one, so that no component goes unused.
DEPRECATION_HEADERS: dict[str, dict[str, Any]] = {
    "Deprecation": {
        "required": True,
        "description": "RFC 9745: this operation is deprecated, since the date given as "
        "`@<seconds since the epoch>`. See docs/api.md, Versioning and deprecation.",
        "schema": {"type": "string", "pattern": "^@-?[0-9]+$"},
    },
    "Sunset": {
        "description": "RFC 8594: the HTTP-date after which the operation may be removed.",
        "schema": {"type": "string"},
    },
    "Link": {
        "description": 'What to use instead, with `rel="deprecation"` (and `"sunset"`).',
        "schema": {"type": "string"},
    },
}
HEADER_REFS = {
    name: {"$ref": f"#/components/headers/{name}"} for name in [*HEADERS, *DEPRECATION_HEADERS]
}

# Which success answers carry which headers besides X-Request-ID (every answer has it).
_VERSIONED = ("ETag",)
_IDEMPOTENT = ("ETag", "Idempotent-Replayed")
_SECRET = (*_IDEMPOTENT, "Cache-Control")
SUCCESS_HEADERS: dict[str, tuple[str, ...]] = {
    "createGame": ("ETag", "Location", "Idempotent-Replayed", "Cache-Control"),
    "getGame": _VERSIONED,
    "setPlayerFaith": _VERSIONED,
    "setFaith": _VERSIONED,
    "setPlayerLeaders": _VERSIONED,
    "setTurnOrder": _VERSIONED,
    "listGameEvents": ("ETag", "Follow-Ended"),
    "getReport": _VERSIONED,
    "setReportDecision": _VERSIONED,
    "resolveReport": _IDEMPOTENT,
    "changePlayerFaith": _IDEMPOTENT,
    "advanceRound": _IDEMPOTENT,
    "undoChange": _IDEMPOTENT,
    "redoChange": _IDEMPOTENT,
    "issueSeatToken": _SECRET,
    "revokeSeatToken": _VERSIONED,
    "recoverHostSeat": _SECRET,
}
