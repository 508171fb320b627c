"""What every hostile-input table is made of and checked with.

- ``Case``: one request and the exact problem expected; built with ``case`` (any status),
  ``v422`` (a validation error at ``loc``) or ``raw`` (bytes sent as they are).
- ``big_body``, ``deep_array``, ``deep_object``: bodies that are hostile by their size or
  nesting alone.
- ``send`` sends a case, ``assert_problem`` checks its answer; ``snapshot`` and
  ``row_counts`` read what must not change.
- ``World``: the app and its stored games, shared by every case of one database (built by
  the ``world`` fixture in ``conftest.py``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import text

from tests.api.conftest import GameHandle

PROBLEM = "application/problem+json"
JSON_CT = {"content-type": "application/json"}
MAX_BODY = 65536
UNSET: Any = object()
TABLES = ("games", "events")
TABLES_WITH_KEYS = (*TABLES, "idempotency_keys")

# ---- paths and bodies more than one table uses ----------------------------------------------

GAMES = "/v1/games"
G = "/v1/games/{game}"  # `{game}` is replaced by the id of the case's stored game
GAIN = {"source": {"kind": "action_space", "name": "Market"}, "resources": {"coins": 1}}
TWO = [{"name": "Anna"}, {"name": "Bruno"}]
NEW_GAME = {"players": TWO, "seed": 7}  # a body POST /v1/games accepts

# ---- the case model ------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    method: str
    path: str  # `{game}` / `{other}`: the stored game's id / another game's id
    status: int
    slug: str
    loc: tuple[Any, ...] | None = None  # must be the loc of one item of `errors`
    body: Any = UNSET  # sent as JSON (json.dumps: allows NaN and big ints)
    content: bytes | None = None  # sent raw, as is
    stream: bytes | None = None  # sent chunked (no Content-Length)
    headers: dict[str, str | bytes] = field(default_factory=dict)
    # "host", "p1", "p2", "other" (another game's host token), or None (no Authorization)
    auth: str | None = "host"
    # which stored game: None (fresh), "faith" (p1 at faith 5, version 2), "resolved"
    # (report 1 resolved, version 2), "enter" (created with players_enter_faith: true)
    setup: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # members the problem must hold
    pg_bug: str | None = None  # a bug only PostgreSQL shows: xfail(strict) there only


# How the tests run a case: the ``run_stateless_case`` and ``run_game_case`` fixtures.
CaseRunner = Callable[[Case], Awaitable[None]]


def case(
    id: str,
    method: str,
    path: str,
    status: int,
    slug: str,
    loc: tuple[Any, ...] | None = None,
    *,
    bug: str | None = None,
    **kwargs: Any,
) -> Any:
    """A case with test id ``id``; ``bug`` marks it xfail(strict) on every database."""
    marks = [pytest.mark.xfail(strict=True, reason=f"BUG: {bug}")] if bug else []
    return pytest.param(Case(method, path, status, slug, loc, **kwargs), id=id, marks=marks)


def v422(id: str, method: str, path: str, loc: tuple[Any, ...], **kwargs: Any) -> Any:
    """A case answered 422 ``validation-error`` naming ``loc``."""
    return case(id, method, path, 422, "validation-error", loc, **kwargs)


def raw(
    id: str, method: str, path: str, content: bytes, loc: tuple[Any, ...] | None, **kw: Any
) -> Any:
    """A 422 case whose body is sent as these bytes (as JSON unless ``headers`` say else)."""
    headers = kw.pop("headers", JSON_CT)
    return case(
        id, method, path, 422, "validation-error", loc, content=content, headers=headers, **kw
    )


def big_body(size: int = MAX_BODY + 4096) -> bytes:
    """Well-formed JSON larger than the limit: the size alone must refuse it."""
    return json.dumps({"padding": "x" * size}).encode()


def deep_array(depth: int = 25_000) -> bytes:
    return b'{"players": ' + b"[" * depth + b"]" * depth + b"}"


def deep_object(depth: int = 8_000) -> bytes:
    return b'{"seed": ' + b'{"a":' * depth + b"1" + b"}" * depth + b"}"


# ---- running a case ------------------------------------------------------------------------


async def _chunks(data: bytes) -> AsyncIterator[bytes]:
    for start in range(0, len(data), 4096):
        yield data[start : start + 4096]


def _fill(template: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        template = template.replace("{" + key + "}", value)
    return template


async def send(client: httpx.AsyncClient, c: Case, values: dict[str, str]) -> httpx.Response:
    """Send ``c``, its `{name}` placeholders (path, headers) and token filled from ``values``."""
    headers: dict[str, str | bytes] = {}
    if c.auth is not None and c.auth in values:  # stateless endpoints take no token
        headers["Authorization"] = f"Bearer {values[c.auth]}"
    for name, value in c.headers.items():
        headers[name] = _fill(value, values) if isinstance(value, str) else value
    content: Any = None
    if c.stream is not None:
        content = _chunks(c.stream)
    elif c.content is not None:
        content = c.content
    elif c.body is not UNSET:
        content = json.dumps(c.body).encode()
        headers.setdefault("content-type", "application/json")
    request = client.build_request(
        c.method, _fill(c.path, values), content=content, headers=headers
    )
    if c.stream is not None:
        assert "content-length" not in request.headers
    return await client.send(request)


def assert_problem(response: httpx.Response, c: Case) -> dict[str, Any]:
    """The answer is the RFC 9457 problem ``c`` expects (never a 500), with X-Request-ID."""
    assert response.status_code != 500, response.text
    assert response.status_code == c.status, response.text
    assert response.headers["content-type"] == PROBLEM, response.text
    assert response.headers.get("x-request-id"), "no X-Request-ID"
    body = response.json()
    assert isinstance(body, dict)
    assert isinstance(body.get("type"), str) and body["type"].endswith("/" + c.slug), body
    assert body.get("status") == c.status, body
    assert isinstance(body.get("title"), str) and body["title"], body
    assert isinstance(body.get("detail"), str) and body["detail"].strip(), body
    if c.slug == "validation-error" or c.loc is not None:
        errors = body.get("errors")
        assert isinstance(errors, list) and errors, body
        for error in errors:
            assert isinstance(error.get("loc"), list) and isinstance(error.get("msg"), str), error
        if c.loc is not None:
            assert list(c.loc) in [e["loc"] for e in errors], body
    for key, value in c.extra.items():
        assert body.get(key) == value, body
    return body


def row_counts(app: FastAPI) -> dict[str, int]:
    """The number of rows of every table, idempotency keys included."""
    with app.state.db.transaction(write=False) as session:
        return {
            t: session.execute(text(f"SELECT count(*) FROM {t}")).scalar_one()
            for t in TABLES_WITH_KEYS
        }


async def snapshot(client: httpx.AsyncClient, game: GameHandle) -> tuple[Any, ...]:
    """The stored game, its ETag and its event log, to compare before and after a case."""
    response = await client.get(game.url, headers=game.host())
    assert response.status_code == 200, response.text
    events = await client.get(f"{game.url}/events", params={"limit": 1000}, headers=game.host())
    assert events.status_code == 200, events.text
    state = response.json()
    assert response.headers["etag"] == f'"{state["version"]}"'
    assert len(events.json()["events"]) == state["version"]
    return state, response.headers["etag"], events.json()["events"]


@dataclass
class World:
    """One app on one database ("sqlite" or "postgres") and the games the cases use."""

    db: str
    app: FastAPI
    games: dict[str, tuple[str, str, dict[str, str]]]  # setup -> (id, host token, players)
