"""``HEAD`` on every route that answers ``GET``: the same status and headers as the
``GET``, and no body (``app/api/platform/front.py``). Over every GET route of the app, on
a real game; the real server's side (uvicorn's framing, the stream) is in
tests/edge/test_edge_negotiation.py."""

from __future__ import annotations

import json
import logging
import re

import httpx
import pytest
from fastapi import FastAPI
from starlette.routing import Mount, Route

from app.main import create_app
from app.settings import Settings
from tests.api.conftest import GameHandle, create_game
from tests.settings import LIMITS_OFF

# Headers that differ between any two answers.
VOLATILE = {"x-request-id", "date"}


@pytest.fixture
def app(database_url: str) -> FastAPI:
    # A stream answers for a moment only: its GET must end for the comparison.
    return create_app(Settings(database_url=database_url, stream_max_seconds=0.05, **LIMITS_OFF))


def _get_paths(app: FastAPI, game: GameHandle) -> list[str]:
    """A path of every route that answers GET, its parameters filled from a real game."""
    values = {"game_id": game.id, "period": "1", "tile_id": "II-7", "slug": "not-found"}
    paths = ["/healthz", "/readyz", "/metrics", "/problems", "/problems/not-found"]
    for route in app.routes:
        if isinstance(route, Route) and route.methods and "GET" in route.methods:
            paths.append(re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], route.path))
        elif isinstance(route, Mount):
            paths.append(
                f"{route.path}/" if route.path == "/table" else f"{route.path}/favicon.png"
            )
    return sorted(set(paths))


def _comparable(response: httpx.Response) -> dict[str, str]:
    volatile = VOLATILE
    if response.url.path == "/metrics":  # it counts the requests themselves
        volatile = {*VOLATILE, "content-length"}
    return {k: v for k, v in response.headers.items() if k not in volatile}


async def test_every_get_route_answers_head_with_the_same_headers_and_no_body(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    game = await create_game(client)
    await game.set_faith(p1=5)
    paths = _get_paths(app, game)
    assert f"/v1/games/{game.id}/events/stream" in paths and "/table/" in paths
    headers = {**game.host(), "Origin": "http://elsewhere.example"}
    for path in paths:
        get = await client.get(path, headers=headers)
        head = await client.head(path, headers=headers)
        assert head.status_code == get.status_code != 405, path
        assert _comparable(head) == _comparable(get), path
        assert head.content == b"", path
        assert get.content != b"" or get.status_code == 304, path


async def test_head_carries_the_etag_and_answers_304_like_get(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    get = await client.get(game.url, headers=game.host())
    head = await client.head(game.url, headers=game.host())
    assert head.status_code == 200 and head.headers["etag"] == get.headers["etag"] == '"1"'
    assert int(head.headers["content-length"]) == len(get.content) > 0
    cached = await client.head(game.url, headers={**game.host(), "If-None-Match": '"1"'})
    assert cached.status_code == 304


async def test_head_without_a_token_is_the_get_s_401(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    get = await client.get(game.url)
    head = await client.head(game.url)
    assert head.status_code == get.status_code == 401
    assert head.headers["content-type"] == "application/problem+json"
    assert head.headers["content-length"] == get.headers["content-length"]
    assert head.content == b""


async def test_head_is_counted_and_logged_as_head_with_its_route(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="app.access"):
        await client.head("/v1/excommunication-tiles/I-1")
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "app.access"]
    assert [(line["method"], line["route"], line["status"]) for line in lines] == [
        ("HEAD", "/v1/excommunication-tiles/{tile_id}", 200)
    ]
    metrics = (await client.get("/metrics")).text
    assert (
        'http_requests_total{method="HEAD",route="/v1/excommunication-tiles/{tile_id}",'
        'status="200"}' in metrics
    )


async def test_head_where_get_is_not_answered_is_the_get_s_answer(
    client: httpx.AsyncClient,
) -> None:
    game = await create_game(client)
    head = await client.head(f"{game.url}/faith", headers=game.host())
    assert head.status_code == 405
    assert head.headers["allow"] == "PUT"
    assert (await client.head("/nowhere")).status_code == 404
