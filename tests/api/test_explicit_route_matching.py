"""ExplicitRoutes served as the app's own routes (as the service serves them) route every
request where FastAPI's included APIRoutes would: the same routers, the same paths and
methods, the same answers (404, 405 with its Allow, slash redirects included), behind a
root path too (where a route's literal part is not the start of the request's path)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import APIRouter, FastAPI, Response
from fastapi.routing import APIRoute

from app.api.platform.explicit_route import ExplicitRoute


async def answer(name: str) -> Response:
    return Response(name, media_type="text/plain")


async def healthz() -> Response:
    return await answer("healthz")


async def faith_track() -> Response:
    return await answer("faith-track")


async def create() -> Response:
    return await answer("create")


async def game(game_id: str) -> Response:
    return await answer(f"game {game_id}")


async def events(game_id: str) -> Response:
    return await answer(f"events {game_id}")


async def report(game_id: str, period: int) -> Response:
    return await answer(f"report {game_id} {period}")


async def slash() -> Response:
    return await answer("slash")


def _add_game_routes(games: APIRouter) -> None:
    games.post("")(create)
    games.get("/{game_id}")(game)
    games.get("/{game_id}/events")(events)


def _app(route_class: type[APIRoute]) -> FastAPI:
    """Routers like the service's: one without a prefix, overlapping prefixes, a prefix
    with a parameter, and a route of the app after them; ExplicitRoutes are the app's own
    routes, FastAPI's are included."""
    ops = APIRouter(route_class=route_class)
    v1 = APIRouter(prefix="/v1", route_class=route_class)
    games = APIRouter(prefix="/v1/games", route_class=route_class)
    reports = APIRouter(prefix="/v1/games/{game_id}/reports", route_class=route_class)
    ops.get("/healthz")(healthz)
    v1.get("/faith-track")(faith_track)
    v1.get("/slashed/")(slash)
    _add_game_routes(games)
    reports.get("/{period}")(report)
    routers = (ops, v1, games, reports)
    if route_class is ExplicitRoute:
        app = FastAPI(routes=[route for router in routers for route in router.routes])
    else:
        app = FastAPI()
        for router in routers:
            app.include_router(router)

    @app.get("/after")
    async def after() -> Response:
        return await answer("after")

    return app


@pytest.fixture
async def clients() -> AsyncIterator[list[tuple[httpx.AsyncClient, str]]]:
    """Clients of FastAPI's routing and of ExplicitRoutes, each without and behind a root
    path, each with the root path of its requests."""
    apps = [
        (_app(APIRoute), ""),
        (_app(ExplicitRoute), ""),
        (_app(APIRoute), "/api"),
        (_app(ExplicitRoute), "/api"),
    ]
    async with contextlib.AsyncExitStack() as stack:
        yield [
            (
                await stack.enter_async_context(
                    httpx.AsyncClient(
                        transport=httpx.ASGITransport(app=app, root_path=root),
                        base_url="http://t",
                    )
                ),
                root,
            )
            for app, root in apps
        ]


REQUESTS = [
    ("GET", "/healthz"),
    ("GET", "/healthz/"),
    ("GET", "/v1/faith-track"),
    ("POST", "/v1/faith-track"),
    ("GET", "/v1/slashed"),
    ("POST", "/v1/games"),
    ("GET", "/v1/games"),
    ("GET", "/v1/games/"),
    ("GET", "/v1/games/abc"),
    ("DELETE", "/v1/games/abc"),
    ("GET", "/v1/games/abc/events"),
    ("GET", "/v1/games/abc/reports/2"),
    ("GET", "/v1/games/abc/reports/x"),
    ("GET", "/v1/games/abc/reports/"),
    ("GET", "/v1"),
    ("GET", "/v2/games/abc"),
    ("GET", "/after"),
    ("GET", "/"),
]


@pytest.mark.parametrize(("method", "path"), REQUESTS)
async def test_a_request_is_routed_as_apirouter_routes_it(
    clients: list[tuple[httpx.AsyncClient, str]], method: str, path: str
) -> None:
    answers = []
    for client, root in clients:
        r = await client.request(method, root + path)
        answers.append((r.status_code, r.text, r.headers.get("allow"), r.headers.get("location")))
    full, explicit, full_rooted, explicit_rooted = answers
    assert explicit == full
    assert explicit_rooted == full_rooted
