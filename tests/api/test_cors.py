"""CORS: preflights and real requests from a listed origin, a refused one and none."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from app.api.platform.cors import parse_origins
from app.main import create_app
from app.settings import Settings
from tests.api.conftest import create_game

ALLOWED = "https://table.example"
REFUSED = "https://evil.example"
PROBLEM = "application/problem+json"
EXPOSED = {"etag", "location", "idempotent-replayed", "retry-after", "x-request-id", "follow-ended"}
CLIENT_HEADERS = (
    "authorization, content-type, if-match, if-none-match, idempotency-key, last-event-id"
)


def _preflight(origin: str, method: str = "PUT", headers: str = CLIENT_HEADERS) -> dict[str, str]:
    return {
        "Origin": origin,
        "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": headers,
    }


def _listed(value: str) -> set[str]:
    return {item.strip().lower() for item in value.split(",") if item.strip()}


async def _client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c
    app.state.db.dispose()


@pytest.fixture
async def cors_client(database_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async for c in _client(create_app(Settings(database_url=database_url, cors_origins=ALLOWED))):
        yield c


# --- preflights -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/v1/games"),
        ("GET", "/v1/games/g/events"),
        ("PUT", "/v1/games/g/players/p1/faith"),
        ("POST", "/v1/games/g/reports/1/resolution"),
        ("DELETE", "/v1/games/g"),
        ("DELETE", "/v1/games/g/seats/p2/token"),
        ("POST", "/v1/calculations/gains"),
        ("GET", "/v1/excommunication-tiles"),
        ("GET", "/healthz"),
    ],
)
async def test_preflight_from_a_listed_origin_allows_the_client_headers(
    cors_client: httpx.AsyncClient, method: str, path: str
) -> None:
    response = await cors_client.options(path, headers=_preflight(ALLOWED, method))
    assert response.status_code == 204, response.text
    assert response.headers["access-control-allow-origin"] == ALLOWED
    assert method.lower() in _listed(response.headers["access-control-allow-methods"])
    assert _listed(CLIENT_HEADERS) <= _listed(response.headers["access-control-allow-headers"])
    assert int(response.headers["access-control-max-age"]) == 600
    assert "origin" in response.headers["vary"].lower()
    assert response.headers["x-request-id"]


async def test_preflight_from_a_refused_origin_is_a_403_problem(
    cors_client: httpx.AsyncClient,
) -> None:
    response = await cors_client.options("/v1/games", headers=_preflight(REFUSED, "POST"))
    assert response.status_code == 403
    assert response.headers["content-type"] == PROBLEM
    assert response.json()["type"] == "/problems/cors-refused"
    assert REFUSED in response.json()["detail"]
    assert not any(h.startswith("access-control-") for h in response.headers)
    assert response.headers["x-request-id"]


@pytest.mark.parametrize(
    ("method", "headers", "named"),
    [("PATCH", "authorization", "PATCH"), ("PUT", "authorization, x-secret", "x-secret")],
)
async def test_preflight_for_a_method_or_header_not_allowed_is_a_403_problem(
    cors_client: httpx.AsyncClient, method: str, headers: str, named: str
) -> None:
    response = await cors_client.options(
        "/v1/games/g/faith", headers=_preflight(ALLOWED, method, headers)
    )
    assert response.status_code == 403
    assert response.json()["type"] == "/problems/cors-refused"
    assert named in response.json()["detail"]


async def test_without_cors_origins_every_preflight_is_refused_and_nothing_is_exposed(
    client: httpx.AsyncClient,
) -> None:
    response = await client.options("/v1/games", headers=_preflight(ALLOWED, "POST"))
    assert response.status_code == 403  # not 405
    assert response.json()["type"] == "/problems/cors-refused"
    real = await client.get("/v1/faith-track", headers={"Origin": ALLOWED})
    assert real.status_code == 200
    assert not any(h.startswith("access-control-") for h in real.headers)


async def test_an_options_that_is_no_preflight_is_still_405(cors_client: httpx.AsyncClient) -> None:
    response = await cors_client.options("/v1/games")
    assert response.status_code == 405
    assert response.json()["type"] == "/problems/method-not-allowed"


# --- real requests ----------------------------------------------------------------------


async def test_a_listed_origin_may_read_etag_location_and_request_id(
    cors_client: httpx.AsyncClient,
) -> None:
    game = await create_game(cors_client)
    body = {"players": [{"name": "Anna"}, {"name": "Bruno"}], "seed": 1}
    created = await cors_client.post("/v1/games", json=body, headers={"Origin": ALLOWED})
    assert created.status_code == 201
    assert created.headers["access-control-allow-origin"] == ALLOWED
    assert _listed(created.headers["access-control-expose-headers"]) >= EXPOSED
    assert "location" in created.headers
    read = await cors_client.get(game.url, headers={**game.host(), "Origin": ALLOWED})
    assert read.status_code == 200
    assert read.headers["access-control-allow-origin"] == ALLOWED
    assert "etag" in read.headers
    assert "origin" in read.headers["vary"].lower()


async def test_a_listed_origin_may_read_problems_too(cors_client: httpx.AsyncClient) -> None:
    response = await cors_client.get("/v1/games/nope", headers={"Origin": ALLOWED})
    assert response.status_code in (401, 404)
    assert response.headers["content-type"] == PROBLEM
    assert response.headers["access-control-allow-origin"] == ALLOWED


async def test_the_platform_413_carries_cors_headers(database_url: str) -> None:
    settings = Settings(database_url=database_url, cors_origins=ALLOWED, max_body_bytes=10)
    async for c in _client(create_app(settings)):
        response = await c.post("/v1/games", content=b"x" * 100, headers={"Origin": ALLOWED})
        assert response.status_code == 413
        assert response.headers["access-control-allow-origin"] == ALLOWED


async def test_a_refused_origin_gets_its_answer_without_cors_headers(
    cors_client: httpx.AsyncClient,
) -> None:
    response = await cors_client.get("/v1/faith-track", headers={"Origin": REFUSED})
    assert response.status_code == 200  # the browser, not the service, withholds it
    assert not any(h.startswith("access-control-") for h in response.headers)
    assert "origin" in response.headers["vary"].lower()


async def test_any_origin_with_a_star(database_url: str) -> None:
    settings = Settings(database_url=database_url, cors_origins="*")
    async for c in _client(create_app(settings)):
        response = await c.options("/v1/games", headers=_preflight(REFUSED, "POST"))
        assert response.status_code == 204
        assert response.headers["access-control-allow-origin"] == REFUSED


# --- the setting ------------------------------------------------------------------------


def test_cors_origins_is_a_comma_separated_list() -> None:
    assert parse_origins("") == frozenset()
    assert parse_origins(" https://a.example , http://b.example:8080/ ") == {
        "https://a.example",
        "http://b.example:8080",
    }


@pytest.mark.parametrize("value", ["a.example", "https://a.example/path", "ftp://a.example"])
def test_a_cors_origin_that_is_not_an_origin_stops_the_start(value: str) -> None:
    with pytest.raises(ValueError, match="CORS_ORIGINS"):
        create_app(Settings(database_url="sqlite://", cors_origins=value))
