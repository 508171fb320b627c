"""Content negotiation (``app/api/platform/negotiation.py``): ``Accept`` read as RFC 9110 says, and
a 406 ``not-acceptable`` problem, before the route runs, for a request that takes none
of what its route answers (JSON, the event stream, the docs' HTML, /metrics' text, the
table's files)."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.api.platform.negotiation import MediaRange, parse_accept, weight_of
from app.main import create_app
from app.settings import Settings
from tests.api.conftest import GameHandle, create_game
from tests.settings import LIMITS_OFF

JSON = "application/json"
STREAM = "text/event-stream"


@pytest.mark.parametrize(
    ("accept", "media_type", "weight"),
    [
        ("application/json", JSON, 1.0),
        ("APPLICATION/JSON", JSON, 1.0),
        ("*/*", JSON, 1.0),
        ("application/*", JSON, 1.0),
        ("application/*", STREAM, 0.0),
        ("text/*;q=0.3", STREAM, 0.3),
        ("application/xml", JSON, 0.0),
        ("application/json;q=0, */*", JSON, 0.0),
        ("application/json;q=0, */*", STREAM, 1.0),
        ("*/*;q=0.1, application/json;q=0.7", JSON, 0.7),
        ("application/*;q=0, application/json;q=0.2", JSON, 0.2),
        ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", JSON, 0.8),
        ("application/json; charset=utf-8; q=0.5", JSON, 0.5),
        ("application/json;q=1.000", JSON, 1.0),
        ("application/json;q=0.001", JSON, 0.001),
        # Weights and ranges that cannot be read are left out.
        ("application/json;q=1.5", JSON, 0.0),
        ("application/json;q=0.0001", JSON, 0.0),
        ("application/json;q=²", JSON, 0.0),
        ("application/json;q=-1", JSON, 0.0),
        ("*/json", JSON, 0.0),
        ("json", JSON, 0.0),
    ],
)
def test_a_media_type_takes_the_weight_of_the_most_specific_range(
    accept: str, media_type: str, weight: float
) -> None:
    assert weight_of(parse_accept(accept), media_type) == weight


def test_ranges_that_cannot_be_read_are_left_out() -> None:
    assert parse_accept("²/², , ;q=1, application/json;q=nan, text/plain") == (
        MediaRange("text", "plain", 1.0),
    )
    assert parse_accept("\x00garbage") == ()


@pytest.fixture
def app(database_url: str) -> FastAPI:
    return create_app(Settings(database_url=database_url, stream_max_seconds=0.05, **LIMITS_OFF))


@pytest.fixture
async def game(client: httpx.AsyncClient) -> GameHandle:
    return await create_game(client)


# Each route kind with what it answers: a JSON read, the stream, the docs' HTML, /metrics'
# text, the table's page and a docs asset (files).
ROUTES = {
    "json": "/v1/games/{game}",
    "stream": "/v1/games/{game}/events/stream",
    "html": "/docs",
    "text": "/metrics",
    "page": "/table/",
    "css": "/docs/assets/swagger-ui.css",
}

# Accept -> the route kinds it takes (the others: 406).
TAKES = {
    None: set(ROUTES),
    "*/*": set(ROUTES),
    "": set(ROUTES),
    "application/json": {"json"},
    "application/*": {"json"},
    "text/*": {"stream", "html", "text", "page", "css"},
    "text/event-stream": {"stream"},
    "text/html": {"html", "page"},
    "text/plain": {"text"},
    "text/css,*/*;q=0.1": set(ROUTES),
    "application/xml": set(),
    "application/json;q=0, */*": set(ROUTES) - {"json"},
    "*/*, text/css;q=0": set(ROUTES) - {"css"},
    "application/problem+json": set(),
    "²/²": set(ROUTES),  # nothing readable: as if none were sent
    "application/json;q=1.5, text/plain": {"text"},
}


@pytest.mark.parametrize("accept", list(TAKES), ids=[repr(a) for a in TAKES])
async def test_each_route_answers_what_accept_takes_and_406_otherwise(
    client: httpx.AsyncClient, game: GameHandle, accept: str | None
) -> None:
    headers: dict[str, str | bytes] = {**game.host()}
    if accept is not None:
        headers["Accept"] = accept.encode()  # as bytes: "²/²" is not ASCII
    for kind, path in ROUTES.items():
        response = await client.get(path.format(game=game.id), headers=headers)
        if kind in TAKES[accept]:
            assert response.status_code == 200, (kind, response.text[:200])
        else:
            assert response.status_code == 406, (kind, response.text[:200])
            assert response.headers["content-type"] == "application/problem+json"
            problem = response.json()
            assert problem["type"].endswith("/not-acceptable")
            assert problem["status"] == 406
            assert "which the Accept header refuses" in problem["detail"]


async def test_a_change_that_cannot_be_answered_is_not_made(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    response = await client.put(
        f"{game.url}/players/p1/faith",
        json={"faith": 7},
        headers={**game.host(), "Accept": "application/xml"},
    )
    assert response.status_code == 406
    assert (await game.read())["version"] == 1
    created = await client.post(
        "/v1/games",
        json={"players": [{"name": "A"}, {"name": "B"}]},
        headers={"Accept": "text/html"},
    )
    assert created.status_code == 406


async def test_problems_are_sent_whatever_accept_says(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    """A 401, a 404 or a 422 is a problem document, which a client that accepts JSON
    gets as application/problem+json rather than a 406."""
    for path, headers, status in [
        (game.url, {"Accept": "application/json"}, 401),
        ("/v1/nowhere", {"Accept": "application/json"}, 404),
        (f"{game.url}/events?after=x", {**game.host(), "Accept": "application/json"}, 422),
    ]:
        response = await client.get(path, headers=headers)
        assert response.status_code == status
        assert response.headers["content-type"] == "application/problem+json"


async def test_several_accept_fields_are_one_list(
    client: httpx.AsyncClient, game: GameHandle
) -> None:
    headers = [("Authorization", f"Bearer {game.host_token}")]
    headers += [("Accept", "application/xml"), ("Accept", "application/json")]
    response = await client.get(game.url, headers=headers)
    assert response.status_code == 200
