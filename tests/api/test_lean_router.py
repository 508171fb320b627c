"""LeanRouter and LeanRoute route every request where APIRouter and APIRoute would, whether
FastAPI includes the routers or the app serves their routes as its own (``include_lean``):
the same routers, the same paths and methods, the same answers (404, 405 with its Allow,
slash redirects included)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import APIRouter, FastAPI, Response
from fastapi.routing import APIRoute

from app.api.lean_route import LeanRoute
from app.api.router import LeanRouter, include_lean


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


def _app(router_class: type[APIRouter], route_class: type[APIRoute], own: bool = False) -> FastAPI:
    """Routers like the service's: one without a prefix, overlapping prefixes, a prefix
    with a parameter, and a route of the app after them; with ``own``, the app serves
    all but the first as its own routes, as the service does."""
    app = FastAPI()
    ops = router_class(route_class=route_class)
    v1 = router_class(prefix="/v1", route_class=route_class)
    games = router_class(prefix="/v1/games", route_class=route_class)
    reports = router_class(prefix="/v1/games/{game_id}/reports", route_class=route_class)
    ops.get("/healthz")(healthz)
    v1.get("/faith-track")(faith_track)
    v1.get("/slashed/")(slash)
    _add_game_routes(games)
    reports.get("/{period}")(report)
    app.include_router(ops)
    for router in (v1, games, reports):
        if own:
            include_lean(app, router)
        else:
            app.include_router(router)

    @app.get("/after")
    async def after() -> Response:
        return await answer("after")

    return app


@pytest.fixture
async def clients() -> AsyncIterator[list[tuple[httpx.AsyncClient, str]]]:
    """Clients of FastAPI's routing, of LeanRouters included, of LeanRoutes as the app's
    own, and of those behind a root path, each with the root path of its requests."""
    apps = [
        (_app(APIRouter, APIRoute), ""),
        (_app(LeanRouter, LeanRoute), ""),
        (_app(LeanRouter, LeanRoute, own=True), ""),
        (_app(APIRouter, APIRoute), "/api"),
        (_app(LeanRouter, LeanRoute, own=True), "/api"),
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
    full, lean, own, full_rooted, own_rooted = answers
    assert lean == full
    assert own == full
    assert own_rooted == full_rooted


def _prefixed_app(route_class: type[APIRoute]) -> FastAPI:
    """Routes under an including router's prefix, behind a root path: where a LeanRoute's
    literal part is not the start of the request's path."""
    router = APIRouter(prefix="/games", route_class=route_class)
    _add_game_routes(router)
    app = FastAPI()
    app.include_router(router, prefix="/v1")
    return app


@pytest.mark.parametrize(
    "path",
    [
        "/v1/games",
        "/api/v1/games",
        "/v1/games/abc",
        "/api/v1/games/abc/events",
        "/v1/games/abc/events/",
        "/games/abc",
        "/api/games",
        "/v1/gamesx",
    ],
)
@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_a_lean_route_under_a_prefix_and_a_root_path_matches_as_apiroute(
    method: str, path: str
) -> None:
    answers = []
    for route_class in (LeanRoute, APIRoute):
        transport = httpx.ASGITransport(app=_prefixed_app(route_class), root_path="/api")
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            r = await client.request(method, path)
            answers.append((r.status_code, r.text, r.headers.get("allow")))
    assert answers[0] == answers[1]
